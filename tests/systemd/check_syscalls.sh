#!/bin/bash
# The system service's sandbox lets the real daemon work: minerud runs a short session (a two-page
# PDF submitted with mineructl, stats, list, SIGHUP, SIGTERM) under strace, and
#  - every system call it made is in the filter minerud.service installs:
#    SystemCallFilter=@system-service minus @privileged (expanded by systemd-analyze syscall-filter);
#    a call outside it would fail with EPERM under systemd (SystemCallErrorNumber=EPERM);
#  - every file it created, wrote, renamed, removed or bound lies in its state directory, the
#    socket's directory, /tmp (private under PrivateTmp=), /dev or its own /proc entries: under
#    ProtectSystem=strict the rest of the file system is read-only.
#
#   check_syscalls.sh SERVICE_UNIT MINERUD MINERUCTL [MAKE_TINY_VLM_MODEL GOLDEN_MODEL_DIR]
#
# With the last two, the daemon runs the model backend on a tiny test model folder made from the
# golden checkpoint (skipped when ../shared is absent, unless MINERU_REQUIRE_SHARED=1).
#
# Skipped (77) while minerud or mineructl lack the options the session needs.
set -u -o pipefail
unit=$1 minerud=$2 mineructl=$3 make_model=${4:-} golden_model=${5:-}

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
for tool in strace mutool systemd-analyze; do
  command -v $tool >/dev/null || fail "$tool is missing (scripts/install-deps installs it)"
done
[[ -x $minerud && -x $mineructl ]] || fail "build minerud and mineructl first"
"$minerud" --help 2>/dev/null | grep -- '--state-dir' >/dev/null || skip "minerud has no --state-dir yet"
"$mineructl" --help 2>/dev/null | grep -- '--socket' >/dev/null || skip "mineructl has no --socket yet"

# Not under /tmp, so that writes to the state and socket folders are told apart from writes to /tmp.
scratch=$(mktemp -d -p "$PWD" syscalls.XXXXXX) || exit 1
daemon=
cleanup() {
  [[ -n $daemon ]] && kill -KILL "$daemon" 2>/dev/null
  rm -rf "$scratch"
}
trap cleanup EXIT

# The filter, as the unit states it.
filters=$(sed -n 's/^SystemCallFilter=//p' "$unit")
[[ $filters == *@system-service* ]] || fail "$unit has no SystemCallFilter=@system-service"
expand() {  # the system calls of a filter set, nested sets expanded
  systemd-analyze syscall-filter --no-pager "$1" 2>/dev/null | awk 'NR > 1 && !/^ *#/ && NF { print $1 }' |
    while read -r item; do
      if [[ $item == @* ]]; then expand "$item"; else echo "$item"; fi
    done
}
: >"$scratch/allow"
: >"$scratch/deny"
for f in $filters; do
  if [[ $f == ~* ]]; then
    for g in ${f#\~}; do expand "$g" >>"$scratch/deny"; done
  else
    for g in $f; do
      if [[ $g == @* ]]; then expand "$g" >>"$scratch/allow"; else echo "$g" >>"$scratch/allow"; fi
    done
  fi
done
sort -u "$scratch/allow" -o "$scratch/allow"
sort -u "$scratch/deny" -o "$scratch/deny"
comm -23 "$scratch/allow" "$scratch/deny" >"$scratch/allowed"
(( $(wc -l <"$scratch/allowed") > 100 )) || fail "could not expand the filter: $filters"

# A two-page PDF with a text layer.
printf '%s\n' '%%MediaBox 0 0 595 842' '%%Font Helv Helvetica' \
  'BT /Helv 20 Tf 72 720 Td (Checking the service filter) Tj ET' \
  'BT /Helv 11 Tf 72 690 Td (A line of body text for the text-layer backend.) Tj ET' >"$scratch/page.txt"
mutool create -o "$scratch/sample.pdf" "$scratch/page.txt" "$scratch/page.txt" 2>/dev/null ||
  fail "mutool create"

model_args=()
if [[ -n $make_model ]]; then
  if [[ ! -d $golden_model ]]; then
    [[ ${MINERU_REQUIRE_SHARED:-} == 1 ]] && fail "$golden_model is missing"
    skip "no golden model at $golden_model"
  fi
  "$make_model" "$golden_model" "$scratch/model" || fail "cannot make the test model folder"
  model_args=(--model "$scratch/model" --set max_new_tokens=16)
fi

sock=$scratch/minerud.sock
# LeakSanitizer cannot run under ptrace (sanitizer builds): leaks are checked by the other tests.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
strace -f -qq -y -s 512 -o "$scratch/trace" \
  "$minerud" --config /dev/null --socket "$sock" --state-dir "$scratch/state" "${model_args[@]}" \
  >"$scratch/daemon.log" 2>&1 &
tracer=$!
for _ in $(seq 600); do [[ -S $sock ]] && break; sleep 0.1; done
[[ -S $sock ]] || fail "minerud did not listen on $sock:"$'\n'"$(cat "$scratch/daemon.log")"
daemon=$(pgrep -P "$tracer" -x minerud | head -1)
[[ -n $daemon ]] || fail "cannot find minerud's pid"

"$mineructl" --socket "$sock" submit "$scratch/sample.pdf" -o "$scratch/out" >"$scratch/client.log" 2>&1 ||
  fail "mineructl submit exited $?:"$'\n'"$(cat "$scratch/client.log")"
if [[ -n $make_model ]]; then
  # The tiny model's weights are random: its text need not hold a block, but it is there.
  [[ -f $scratch/out/sample.md ]] || fail "no sample.md written"
  [[ -s $scratch/out/sample_model_output.txt ]] || fail "the model backend wrote no sample_model_output.txt"
else
  [[ -s $scratch/out/sample.md ]] || fail "no sample.md written"
fi
"$mineructl" --socket "$sock" stats >/dev/null 2>&1 || fail "mineructl stats"
"$mineructl" --socket "$sock" list >/dev/null 2>&1 || fail "mineructl list"
kill -HUP "$daemon"
sleep 1
"$mineructl" --socket "$sock" list >/dev/null 2>&1 || fail "mineructl list after SIGHUP"
kill -TERM "$daemon"
wait "$tracer"
rc=$?
daemon=
[[ $rc -eq 0 ]] || fail "minerud exited $rc after SIGTERM:"$'\n'"$(tail -20 "$scratch/daemon.log")"

# System calls: "PID name(" and "PID <... name resumed>" lines.
sed -nE 's/^[0-9]+ +([a-z_0-9]+)\(.*/\1/p; s/^[0-9]+ +<\.\.\. ([a-z_0-9]+) resumed>.*/\1/p' "$scratch/trace" |
  sort -u >"$scratch/used"
(( $(wc -l <"$scratch/used") > 10 )) || fail "strace recorded no system calls"
outside=$(comm -23 "$scratch/used" "$scratch/allowed")
[[ -z $outside ]] || fail "minerud made system calls the service's filter denies: $(echo $outside)"

# Paths written: opens for writing or creating, and calls that change the file system. With -y a
# directory fd prints as 5</its/path> (the working directory as AT_FDCWD</its/path>), so a path
# relative to it is joined to that folder; a bare relative path (after a chdir) counts as outside.
writes=$(grep -E '^[0-9]+ +((open|openat|creat)\(.*(O_WRONLY|O_RDWR|O_CREAT)|(mkdir|mkdirat|rmdir|unlink|unlinkat|rename|renameat|renameat2|link|linkat|symlink|symlinkat|mknod|mknodat|truncate|chmod|fchmodat|utimensat)\(|bind\(.*sun_path=)' \
           "$scratch/trace" |
  awk '{
    line = $0
    base = ""
    if (match(line, /\((AT_FDCWD|[0-9]+)<[^>]*>, "/)) {
      seg = substr(line, RSTART, RLENGTH); sub(/^\((AT_FDCWD|[0-9]+)</, "", seg); sub(/>, "$/, "", seg); base = seg
    }
    while (match(line, /"[^"]*"/)) {
      p = substr(line, RSTART + 1, RLENGTH - 2)
      line = substr(line, RSTART + RLENGTH)
      if (p == "") continue
      if (substr(p, 1, 1) != "/") p = (base != "" ? base "/" p : "RELATIVE:" p)
      print p
    }
  }' | sort -u)
bad=$(grep -v -E "^($scratch/|/tmp/|/dev/|/proc/self/|/proc/thread-self/|/proc/[0-9]+/)" <<<"$writes" | grep -v '^$')
[[ -z $bad ]] || fail "minerud wrote outside the folders the service may write (ProtectSystem=strict):"$'\n'"$bad"

echo "ok: minerud made $(wc -l <"$scratch/used") distinct system calls, all allowed by SystemCallFilter=$(echo $filters)"
echo "ok: it wrote $(grep -c . <<<"$writes") paths, all in its state or socket folder, /tmp, /dev or /proc/self"
echo "system calls: $(echo $(cat "$scratch/used"))"
echo "paths written:"
sed "s|^$scratch/|  (scratch)/|; s|^/|  /|" <<<"$writes"
