#!/bin/bash
# The system service's seccomp filter lets the real daemon work: minerud runs a short session (a
# two-page PDF submitted with mineructl, stats, list, SIGHUP, SIGTERM) under strace, and every
# system call it made must be in the filter minerud.service installs:
#   SystemCallFilter=@system-service minus @privileged (expanded by systemd-analyze syscall-filter).
# A call outside it would fail with EPERM under systemd (SystemCallErrorNumber=EPERM).
#
#   check_syscalls.sh SERVICE_UNIT MINERUD MINERUCTL
#
# Skipped (77) while minerud or mineructl lack the options the session needs.
set -u -o pipefail
unit=$1 minerud=$2 mineructl=$3

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
for tool in strace mutool systemd-analyze; do
  command -v $tool >/dev/null || fail "$tool is missing (scripts/install-deps installs it)"
done
[[ -x $minerud && -x $mineructl ]] || fail "build minerud and mineructl first"
"$minerud" --help 2>/dev/null | grep -q -- '--state-dir' || skip "minerud has no --state-dir yet"
"$mineructl" --help 2>/dev/null | grep -q -- '--socket' || skip "mineructl has no --socket yet"

scratch=$(mktemp -d) || exit 1
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

sock=$scratch/minerud.sock
strace -f -qq -c -U name -o "$scratch/syscalls" \
  "$minerud" --config /dev/null --socket "$sock" --state-dir "$scratch/state" >"$scratch/daemon.log" 2>&1 &
tracer=$!
for _ in $(seq 200); do [[ -S $sock ]] && break; sleep 0.1; done
[[ -S $sock ]] || fail "minerud did not listen on $sock:"$'\n'"$(cat "$scratch/daemon.log")"
daemon=$(pgrep -P "$tracer" -x minerud | head -1)
[[ -n $daemon ]] || fail "cannot find minerud's pid"

"$mineructl" --socket "$sock" submit "$scratch/sample.pdf" -o "$scratch/out" >"$scratch/client.log" 2>&1 ||
  fail "mineructl submit exited $?:"$'\n'"$(cat "$scratch/client.log")"
[[ -s $scratch/out/sample.md ]] || fail "no sample.md written"
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

# strace -c -U name: a header, a rule, one name per line, a closing rule and "total".
awk 'NR > 2 && /^[a-z_0-9]+$/ && $1 != "total"' "$scratch/syscalls" | sort -u >"$scratch/used"
(( $(wc -l <"$scratch/used") > 10 )) || fail "strace recorded no system calls"
outside=$(comm -23 "$scratch/used" "$scratch/allowed")
[[ -z $outside ]] || fail "minerud made system calls the service's filter denies: $(echo $outside)"
echo "ok: minerud made $(wc -l <"$scratch/used") distinct system calls, all allowed by SystemCallFilter=$(echo $filters)"
