#!/bin/bash
# The daemon works inside the sandbox minerud.service puts it in, rebuilt without systemd from the
# same kernel features (systemd is not PID 1 here, so the unit itself cannot be started):
#   User=/Group= an unprivileged uid        setpriv --reuid/--regid, no supplementary groups
#   CapabilityBoundingSet= (empty)           setpriv --bounding-set=-all --inh-caps=-all
#   NoNewPrivileges=yes                      setpriv --no-new-privs
#   LimitMEMLOCK=infinity, UMask=0077        prlimit --memlock=unlimited (if allowed), umask 077
#   ProtectSystem=strict                     / remounted read-only in a private mount namespace
#   StateDirectory=, RuntimeDirectory=       /var/lib/minerud and /run/minerud writable bind mounts
#   PrivateTmp=yes, ProtectHome=yes          empty tmpfs on /tmp, /home and /root
#   PrivateNetwork=yes                       a new network namespace (loopback only, down)
# minerud runs with the service's own command line (ExecStart=, ${STATE_DIRECTORY} expanded), and
# mineructl, outside the sandbox, submits a two-page PDF through the socket, lists, reloads (SIGHUP)
# and stops it (SIGTERM, exit 0). The seccomp filter is checked by check_syscalls.sh.
#
#   check_sandbox.sh MODE SERVICE_UNIT MINERUD MINERUCTL   (the unit or its .in template)
#
# MODE bound: minerud binds /run/minerud/minerud.sock itself (the service started without its
# socket). MODE activated: as minerud.socket does, the socket is created outside the sandbox
# (systemd-socket-activate, then mode 0660 and the service's group), minerud is started by the
# first connection and inherits it as fd 3 with LISTEN_FDS/LISTEN_PID; a user in the socket's group
# may connect and one outside it is refused (mineructl exits 77).
#
# Needs root (mount and network namespaces); skipped (77) otherwise, or when the build folder lies
# where the sandbox hides it (/home, /root, /tmp, /run, /var/lib).
set -u -o pipefail
mode=$1 unit=$2 minerud=$3 mineructl=$4
[[ $mode == bound || $mode == activated ]] || { echo "FAIL: unknown mode $mode" >&2; exit 1; }

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
[[ $(id -u) -eq 0 ]] || skip "needs root to build the sandbox"
for tool in unshare setpriv prlimit mount mutool systemd-socket-activate; do
  command -v $tool >/dev/null || fail "$tool is missing (scripts/install-deps installs it)"
done
[[ -x $minerud && -x $mineructl ]] || fail "build minerud and mineructl first"
# The sandbox hides /home, /root and /tmp (ProtectHome=, PrivateTmp=) and replaces /run and /var/lib.
case $PWD/ in /home/* | /root/* | /tmp/* | /run/* | /var/lib/*)
  skip "the build folder $PWD is in a place the service sandbox hides" ;; esac
case $(readlink -f "$minerud") in /home/* | /root/* | /tmp/* | /run/* | /var/lib/*)
  skip "minerud is in a place the service sandbox hides" ;; esac
unshare --mount --net true 2>/dev/null || skip "cannot create mount and network namespaces here"

uid=$(id -u nobody) gid=$(id -g nobody)
[[ -n $uid && -n $gid ]] || fail "no user nobody"
scratch=$(mktemp -d -p "$PWD" sandbox.XXXXXX) || exit 1
chmod 755 "$scratch"
daemon=
cleanup() {
  [[ -n $daemon ]] && kill -KILL "$daemon" 2>/dev/null
  rm -rf "$scratch"
}
trap cleanup EXIT
mkdir -p "$scratch/state" "$scratch/run" "$scratch/out"
chown "$uid:$gid" "$scratch/state" "$scratch/run"
chmod 700 "$scratch/state"

# ExecStart= of the installed unit, with the state directory systemd would pass.
line=$(sed -n 's/^ExecStart=//p' "$unit")
line=${line//'${STATE_DIRECTORY}'//var/lib/minerud}
read -r -a argv <<<"$line"
argv[0]=$minerud
[[ " ${argv[*]} " == *" --socket /run/minerud/minerud.sock "* ]] ||
  fail "the unit's ExecStart= does not pass --socket /run/minerud/minerud.sock: $line"

printf '%s\n' '%%MediaBox 0 0 595 842' '%%Font Helv Helvetica' \
  'BT /Helv 20 Tf 72 720 Td (Sandboxed heading) Tj ET' \
  'BT /Helv 11 Tf 72 690 Td (Body text parsed inside the service sandbox.) Tj ET' >"$scratch/page.txt"
mutool create -o "$scratch/sample.pdf" "$scratch/page.txt" "$scratch/page.txt" 2>/dev/null || fail "mutool create"

# LimitMEMLOCK=infinity, or as much as this machine lets root raise it (a container may cap it).
memlock=unlimited:unlimited
if ! prlimit --memlock=$memlock true 2>/dev/null; then
  hard=$(ulimit -Hl)
  [[ $hard == unlimited ]] || hard=$((hard * 1024))
  memlock=$hard:$hard
  echo "note: RLIMIT_MEMLOCK cannot be raised here; the sandbox uses the hard limit ($hard bytes)"
fi

# Every step execs the next, so $! is minerud's pid (and, activated, the LISTEN_PID systemd-socket-
# activate sets).
export UID_=$uid GID_=$gid MEMLOCK_=$memlock
sock=$scratch/run/minerud.sock
activate=()
if [[ $mode == activated ]]; then
  activate=(systemd-socket-activate -l "$sock" -E UID_ -E GID_ -E MEMLOCK_ -E PATH)
fi
"${activate[@]}" unshare --mount --net --propagation private -- /bin/sh -c '
  set -e
  scratch=$1; shift
  mount -t tmpfs -o mode=0755 tmpfs /run
  mkdir -p /run/minerud
  mount --bind "$scratch/run" /run/minerud
  mount -t tmpfs -o mode=0755 tmpfs /var/lib
  mkdir -p /var/lib/minerud
  mount --bind "$scratch/state" /var/lib/minerud
  mount -t tmpfs -o mode=1777 tmpfs /tmp
  mount -t tmpfs -o mode=0755 tmpfs /home
  mount -t tmpfs -o mode=0700 tmpfs /root
  mount -o remount,bind,ro /
  umask 077
  exec prlimit --memlock="$MEMLOCK_" setpriv --reuid="$UID_" --regid="$GID_" --clear-groups \
    --no-new-privs --inh-caps=-all --ambient-caps=-all --bounding-set=-all -- "$@"
' sandbox "$scratch" "${argv[@]}" >"$scratch/daemon.log" 2>&1 &
daemon=$!

for _ in $(seq 200); do [[ -S $sock ]] && break; kill -0 "$daemon" 2>/dev/null || break; sleep 0.1; done
[[ -S $sock ]] || fail "minerud did not listen in the sandbox:"$'\n'"$(cat "$scratch/daemon.log")"
if [[ $mode == activated ]]; then
  # minerud.socket: SocketUser=root, SocketGroup=minerud, SocketMode=0660.
  chgrp "$gid" "$sock" && chmod 0660 "$sock"
  [[ $(readlink "/proc/$daemon/exe") == */systemd-socket-activate ]] ||
    fail "minerud started before the first connection"
else
  [[ $(stat -c %u "$sock") == "$uid" ]] || fail "the socket is not owned by the service user"
fi
ctl() { "$mineructl" --socket "$sock" "$@"; }
ctl submit "$scratch/sample.pdf" -o "$scratch/out" >"$scratch/client.log" 2>&1 ||
  fail "mineructl submit exited $? against the sandboxed daemon:"$'\n'"$(cat "$scratch/client.log")"$'\n'"$(cat "$scratch/daemon.log")"
grep -q 'Sandboxed heading' "$scratch/out/sample.md" || fail "sample.md lacks the document's text"
[[ $(readlink "/proc/$daemon/exe") == "$(readlink -f "$minerud")" ]] || fail "pid $daemon is not minerud"
ctl list >/dev/null 2>&1 || fail "mineructl list"
if [[ $mode == activated ]]; then
  # Served on the inherited socket: minerud did not replace it with one of its own.
  [[ $(stat -c %u:%a "$sock") == "0:660" ]] || fail "minerud replaced the activated socket"
  # SocketMode=0660 with the group: a member may connect, anyone else is refused (mineructl: 77).
  other=54321
  setpriv --reuid=$other --regid=$other --groups="$gid" -- "$mineructl" --socket "$sock" daemon-status \
    >"$scratch/member.log" 2>&1 || fail "a member of the socket's group cannot connect:"$'\n'"$(cat "$scratch/member.log")"
  setpriv --reuid=$other --regid=$other --clear-groups -- "$mineructl" --socket "$sock" daemon-status \
    >"$scratch/outsider.log" 2>&1
  rc=$?
  [[ $rc -eq 77 ]] || fail "a user outside the socket's group got exit $rc, not 77:"$'\n'"$(cat "$scratch/outsider.log")"
fi
ctl stats >/dev/null 2>&1 || fail "mineructl stats"
find "$scratch/state" -mindepth 1 ! -user "$uid" | grep -q . && fail "files in the state directory not owned by the service user"
kill -HUP "$daemon"
sleep 0.5
ctl list >/dev/null 2>&1 || fail "mineructl list after SIGHUP"
kill -TERM "$daemon"
wait "$daemon"
rc=$?
daemon=
[[ $rc -eq 0 ]] || fail "minerud exited $rc after SIGTERM in the sandbox:"$'\n'"$(tail -20 "$scratch/daemon.log")"
grep '^minerud\[' "$scratch/daemon.log" | sed 's/^/  /'
echo "ok ($mode socket): minerud ran as uid $uid with no capabilities on a read-only system, served a job, reloaded and stopped"
