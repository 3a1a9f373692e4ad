#!/bin/bash
# bash completion (completion/mineructl, completion/minerud) run the way bash runs it, through
# bash-completion's own helpers:
#   - every command and every long option that `mineructl --help` and `minerud --help` (and
#     `minerud plan --help`) print is offered in its place, so the scripts follow the programs;
#   - values: --backend's, --log-level's, config keys after --set, PDF files (and folders, not other
#     files) after submit, model names from the models folder after minerud --model, model's
#     sub-commands;
#   - job ids after status/wait/cancel/fetch come from a real minerud (the job this script submits).
#
#   check_completion.sh MINERUCTL MINERUD SOURCE_DIR
# Exits 77 (skipped) when bash-completion is not installed.
set -u -o pipefail
mineructl=$(realpath "$1") minerud=$(realpath "$2") src=$(realpath "$3")
fail() { echo "FAIL: $*" >&2; exit 1; }
bc=/usr/share/bash-completion/bash_completion
[[ -f $bc ]] || { echo "SKIP: $bc is missing (Debian: bash-completion)"; exit 77; }
scratch=$(mktemp -d) || exit 1
daemon=""
trap '[[ -n $daemon ]] && kill "$daemon" 2>/dev/null; rm -rf "$scratch"' EXIT
mkdir -p "$scratch/bin" "$scratch/files/folder" "$scratch/data/minerud/models/my-model"
ln -s "$mineructl" "$scratch/bin/mineructl"
ln -s "$minerud" "$scratch/bin/minerud"
touch "$scratch/files/a.pdf" "$scratch/files/B.PDF" "$scratch/files/notes.txt"

# complete WORD... : what bash would offer for the last WORD (empty for a new word), one per line.
complete_words() {
  PATH=$scratch/bin:$PATH XDG_DATA_HOME=$scratch/data bash -c '
    source "$0" >/dev/null 2>&1
    source "$1"
    shift
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMP_LINE="$*"
    COMP_POINT=${#COMP_LINE}
    # (compopt complains outside a real completion; what it would set does not matter here)
    "_${COMP_WORDS[0]}" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" 2>/dev/null
    printf "%s\n" "${COMPREPLY[@]}"' "$bc" "$src/completion/$1" "$@"
}
# What is offered for LINE: its last word is completed; a LINE ending in a space completes a new word.
offers() {
  local words
  read -r -a words <<<"$1"
  [[ $1 == *" " ]] && words+=("")
  (cd "$scratch/files" && complete_words "${words[@]}")
}
expect() {  # expect "LINE" WANTED...
  local line=$1 got want
  shift
  got=$(offers "$line")
  for want in "$@"; do
    grep -qxF -- "$want" <<<"$got" || fail "'$line' does not offer '$want'; it offers: $(xargs <<<"$got")"
  done
}
refuse() {  # refuse "LINE" UNWANTED
  local got
  got=$(offers "$1")
  ! grep -qxF -- "$2" <<<"$got" || fail "'$1' offers '$2'"
}
# The long options of --help output.
options_of() { grep -o -- '--[a-z][a-z0-9-]*' | sort -u; }
commands_of() {
  awk '/^(Sub)?[Cc]ommands:/ { on = 1; next } on && /^[^ ]/ { on = 0 } on && /^  [a-z]/ { print $1 }' | tr -d ','
}

# mineructl: every command, every option in some place.
ctl_help=$("$mineructl" --help)
# shellcheck disable=SC2046
expect "mineructl " $(commands_of <<<"$ctl_help")
offered=$(for ctx in "" submit list wait cancel fetch "model pull" "model list"; do
            # shellcheck disable=SC2086
            (cd "$scratch/files" && complete_words mineructl $ctx -)
            # shellcheck disable=SC2086
            (cd "$scratch/files" && complete_words mineructl $ctx --)
          done | sort -u)
for opt in $(options_of <<<"$ctl_help"); do
  grep -qxF -- "$opt" <<<"$offered" || fail "mineructl completion never offers $opt (from mineructl --help)"
done
expect "mineructl submit --backend " auto text vlm
expect "mineructl model " pull list
expect "mineructl model pull -" --endpoint --revision --models-dir
expect "mineructl submit " a.pdf B.PDF folder
refuse "mineructl submit " notes.txt
refuse "mineructl model pull -" --stream

# minerud: every option of its --help and of plan's, config keys after --set, model names.
d_help=$("$minerud" --help)
offered=$( (cd "$scratch/files" && complete_words minerud --) | sort -u)
for opt in $(sed -n '/^Options:/,/^$/p' <<<"$d_help" | options_of); do
  grep -qxF -- "$opt" <<<"$offered" || fail "minerud completion never offers $opt (from minerud --help)"
done
offered=$( (cd "$scratch/files" && complete_words minerud plan --) | sort -u)
for opt in $("$minerud" plan --help 2>&1 | options_of); do
  grep -qxF -- "$opt" <<<"$offered" || fail "minerud plan completion never offers $opt (from minerud plan --help)"
done
expect "minerud " plan
expect "minerud --log-level " debug info warning error
# shellcheck disable=SC2046
expect "minerud --set " $(sed -n 's/^  \([a-z_]*\) (.*/\1=/p' <<<"$d_help")
expect "minerud --model " my-model folder

# Job ids from a real daemon.
sock=$scratch/minerud.sock
"$minerud" --socket "$sock" --state-dir "$scratch/state" --workers 1 >"$scratch/daemon.log" 2>&1 &
daemon=$!
for _ in $(seq 300); do [[ -S $sock ]] && break; kill -0 "$daemon" 2>/dev/null || break; sleep 0.1; done
[[ -S $sock ]] || fail "minerud did not start: $(cat "$scratch/daemon.log")"
export MINERU_SOCKET=$sock
id=$("$mineructl" submit --detach "$src/examples/sample.pdf") || fail "submit: $id"
for command in status wait cancel fetch; do expect "mineructl $command " "$id"; done
echo "ok: mineructl and minerud complete every command and option of their --help"
