#!/bin/bash
# The pages document what the programs say they do: every long option printed by `minerud --help`
# appears in minerud(8), every command and long option printed by `mineructl --help` appears in
# mineructl(1), and each page's EXIT STATUS lists exactly the codes its program's --help names.
#
#   check_help.sh MINERUD MINERUCTL MAN_DIR
set -u -o pipefail
minerud=$1 mineructl=$2 dir=$3
fail=0
check() {  # check PROGRAM PAGE
  local program=$1 page=$2 help opt cmd cmd_re
  [[ -x $program ]] || { echo "FAIL: $program is not built" >&2; fail=1; return; }
  help=$("$program" --help) || { echo "FAIL: $program --help exited $?" >&2; fail=1; return; }
  for opt in $(grep -o -- '--[a-z][a-z0-9-]*' <<<"$help" | sort -u); do
    if ! grep -qF -- "${opt//-/\\-}" "$page"; then
      echo "FAIL: $(basename "$page") does not document $opt (from $(basename "$program") --help)" >&2
      fail=1
    fi
  done
  # Commands: the first word of each indented line under a "Commands:" or "Subcommands:" heading.
  for cmd in $(awk '/^(Sub)?[Cc]ommands:/ { on = 1; next } on && /^[^ ]/ { on = 0 } on && /^  [a-z]/ { print $1 }' \
               <<<"$help" | tr -d ',' | sort -u); do
    cmd_re=${cmd//-/\\\\-}  # roff writes daemon-status as daemon\-status
    if ! grep -qE "^\.(B|BR|BI|SS) \"?${cmd_re}\b|\\\\fB${cmd_re}\\\\f" "$page"; then
      echo "FAIL: $(basename "$page") does not document the command '$cmd'" >&2
      fail=1
    fi
  done
  # Exit statuses: the numbers after "Exit status:" in --help are exactly the page's EXIT STATUS list.
  local from_help from_page
  from_help=$(awk '/^Exit status:/ { on = 1 } on && /^$/ { on = 0 } on' <<<"$help" |
              grep -oE '(^|[ :,])[0-9]{1,3} ' | tr -dc '0-9\n ' | tr ' ' '\n' | grep . | sort -nu | xargs)
  from_page=$(awk '/^\.SH EXIT STATUS/ { on = 1; next } /^\.SH / { on = 0 } on && /^\.B [0-9]+$/ { print $2 }' \
              "$page" | sort -nu | xargs)
  if [[ -z $from_help ]]; then
    echo "FAIL: $(basename "$program") --help lists no exit statuses" >&2; fail=1
  elif [[ $from_help != "$from_page" ]]; then
    echo "FAIL: $(basename "$page") EXIT STATUS lists '$from_page', --help says '$from_help'" >&2; fail=1
  fi
}
check "$minerud" "$dir/minerud.8"
check "$mineructl" "$dir/mineructl.1"
[[ $fail -eq 0 ]] && echo "ok: every option and command of --help is in the pages"
exit $fail
