#!/bin/bash
# Static checks of the installed systemd units and snippets (no systemd needs to be running).
#
#   check_units.sh MODE CMAKE BUILD_DIR MINERUD
#
# Each mode first installs the `systemd` and `man` components into a scratch DESTDIR with
# `cmake --install`, so it checks what a user gets, then:
#   install   the files are where the cache variables say, ExecStart= names the installed daemon
#   verify    `systemd-analyze verify` (system and --user units) prints nothing; ExecStart= points
#             at the built minerud and Documentation= man: links resolve to the installed pages
#   security  `systemd-analyze security --offline=yes` overall exposure of the system and the user
#             service <= the scores recorded in systemd/README.md (a regression fails; an
#             improvement asks for the README update)
#   cmdline   the built minerud accepts the command line each installed service runs it with
#             (`minerud --check-config ARGS` exits 0), RestartPreventExitStatus= holds the exit
#             codes it gives for a usage and a configuration error, and not the temporary one (75),
#             which is restarted slowly enough that the start limit never ends the retries; skipped
#             (77) while minerud has no --check-config
#   sysusers  systemd-sysusers and systemd-tmpfiles, run against a scratch root, create the
#             minerud user and group and /run/minerud owned by them
set -u -o pipefail
mode=$1 cmake=$2 build=$3 minerud=$4

fail() { echo "FAIL: $*" >&2; exit 1; }
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT

# The install layout, resolved by CMake (tests/systemd/CMakeLists.txt passes it in the environment).
unit_dir=${MINERU_SYSTEMD_UNIT_DIR:?} user_unit_dir=${MINERU_SYSTEMD_USER_UNIT_DIR:?}
sysusers_dir=${MINERU_SYSUSERS_DIR:?} tmpfiles_dir=${MINERU_TMPFILES_DIR:?}
prefix=${MINERU_INSTALL_PREFIX:?} bindir=${MINERU_INSTALL_BINDIR:?} mandir=${MINERU_INSTALL_MANDIR:?}
docdir=${MINERU_INSTALL_DOCDIR:?}

dest=$scratch/dest
for component in systemd man; do
  DESTDIR=$dest "$cmake" --install "$build" --component "$component" >"$scratch/install.log" 2>&1 ||
    { cat "$scratch/install.log"; fail "cmake --install --component $component"; }
done

usec() { systemd-analyze timespan "$1" | sed -n 's/^ *μs: *//p'; }

installed_units() {  # copies the installed units of $1 into $2 with ExecStart= on the built daemon
  local from=$1 to=$2 exec
  mkdir -p "$to"
  for unit in minerud.service minerud.socket; do
    [[ -f $dest$from/$unit ]] || fail "$unit not installed in $from"
    cp "$dest$from/$unit" "$to/$unit"
  done
  exec=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$to/minerud.service")
  [[ $exec == "$bindir/minerud" ]] || fail "$from/minerud.service: ExecStart=$exec, expected $bindir/minerud"
  sed -i "s|^ExecStart=$bindir/minerud|ExecStart=$minerud|" "$to/minerud.service"
}

case $mode in
  install)
    for f in "$unit_dir/minerud.service" "$unit_dir/minerud.socket" "$user_unit_dir/minerud.service" \
             "$user_unit_dir/minerud.socket" "$sysusers_dir/minerud.conf" "$tmpfiles_dir/minerud.conf" \
             "$mandir/man1/mineructl.1" "$mandir/man5/minerud.conf.5" "$mandir/man7/mineru.7" \
             "$mandir/man8/minerud.8" "$docdir/examples/minerud.conf"; do
      [[ -f $dest$f ]] || fail "not installed: $f"
    done
    installed_units "$unit_dir" "$scratch/system"
    installed_units "$user_unit_dir" "$scratch/user"
    grep -q '@[A-Z_]*@' "$dest$unit_dir/minerud.service" "$dest$user_unit_dir/minerud.service" &&
      fail "an @VARIABLE@ was left unsubstituted"
    # The pieces agree: the socket the unit listens on is the one the service names for a start
    # without activation, in the directory tmpfiles creates and the service keeps as its
    # RuntimeDirectory; stopping waits longer than the daemon's default drain.
    service=$dest$unit_dir/minerud.service socket=$dest$unit_dir/minerud.socket
    listen=$(sed -n 's/^ListenStream=//p' "$socket")
    [[ $listen == /* ]] || fail "minerud.socket: ListenStream=$listen is not a path"
    grep -q "^ExecStart=.* --socket $listen\( \|$\)" "$service" ||
      fail "minerud.service does not pass --socket $listen"
    grep -qE "^d[[:space:]]+$(dirname "$listen")[[:space:]]" "$dest$tmpfiles_dir/minerud.conf" ||
      fail "tmpfiles.d does not create $(dirname "$listen")"
    grep -qx "RuntimeDirectory=${listen#/run/}" "$service" && fail "RuntimeDirectory= is the socket itself"
    grep -qx "RuntimeDirectory=$(basename "$(dirname "$listen")")" "$service" ||
      fail "minerud.service: RuntimeDirectory= is not $(dirname "$listen")"
    grep -qx 'RuntimeDirectoryPreserve=yes' "$service" ||
      fail "minerud.service: stopping it would delete the socket minerud.socket listens on"
    example=$(dirname "$0")/../../examples/minerud.conf
    drain=$(sed -n 's/^#drain_timeout = //p' "$example")
    stop=$(sed -n 's/^TimeoutStopSec=//p' "$service")
    [[ -n $drain && -n $stop ]] || fail "no drain_timeout in the example or no TimeoutStopSec="
    (( $(usec "$stop") > $(usec "$drain") )) ||
      fail "TimeoutStopSec=$stop does not outlast the default drain_timeout $drain"
    echo "installed under $prefix: units in $unit_dir and $user_unit_dir; socket $listen"
    ;;
  verify)
    [[ -x $minerud ]] || fail "$minerud is not built (build the minerud target first)"
    installed_units "$unit_dir" "$scratch/system"
    installed_units "$user_unit_dir" "$scratch/user"
    export MANPATH=$dest$mandir
    out=$(cd "$scratch/system" && systemd-analyze verify ./minerud.service ./minerud.socket 2>&1)
    rc=$?
    [[ $rc -eq 0 && -z $out ]] || fail "systemd-analyze verify (system units), rc=$rc:"$'\n'"$out"
    mkdir -p "$scratch/runtime"
    out=$(cd "$scratch/user" && XDG_RUNTIME_DIR=$scratch/runtime \
          systemd-analyze --user verify ./minerud.service ./minerud.socket 2>&1)
    rc=$?
    [[ $rc -eq 0 && -z $out ]] || fail "systemd-analyze --user verify (user units), rc=$rc:"$'\n'"$out"
    echo "systemd-analyze verify: system and user units clean"
    ;;
  security)
    readme=$(dirname "$0")/../../systemd/README.md
    installed_units "$unit_dir" "$scratch/system"
    installed_units "$user_unit_dir" "$scratch/user"
    mkdir -p "$scratch/runtime"
    for unit in system user; do
      if [[ $unit == system ]]; then
        label="minerud.service" scope=--system
      else
        label="the per-user minerud.service" scope=--user
      fi
      recorded=$(sed -n "s/^Overall exposure level for $label: \([0-9.]*\).*/\1/p" "$readme" | head -1)
      [[ -n $recorded ]] || fail "no recorded exposure level for $label in systemd/README.md"
      out=$(cd "$scratch/$unit" && XDG_RUNTIME_DIR=$scratch/runtime \
            systemd-analyze $scope security --offline=yes --no-pager ./minerud.service 2>&1)
      score=$(sed -n 's/.*Overall exposure level for minerud.service: \([0-9.]*\).*/\1/p' <<<"$out")
      [[ -n $score ]] || fail "systemd-analyze security printed no score for the $unit unit:"$'\n'"$out"
      echo "$unit unit: exposure $score (recorded $recorded)"
      awk -v s="$score" -v r="$recorded" 'BEGIN { exit !(s <= r) }' ||
        fail "$unit unit: exposure $score is worse than the recorded $recorded:"$'\n'"$(grep '✗' <<<"$out")"
      awk -v s="$score" -v r="$recorded" 'BEGIN { exit !(s == r) }' ||
        fail "$unit unit: exposure improved to $score: record it in systemd/README.md"
    done
    ;;
  cmdline)
    [[ -x $minerud ]] || fail "$minerud is not built (build the minerud target first)"
    if ! "$minerud" --help 2>/dev/null | grep -- '--check-config' >/dev/null; then  # (not -q: minerud would be killed by SIGPIPE, and pipefail would count it)
      echo "SKIP: this minerud has no --check-config yet"; exit 77
    fi
    installed_units "$unit_dir" "$scratch/system"
    installed_units "$user_unit_dir" "$scratch/user"
    mkdir -p "$scratch/state"
    for unit in system user; do
      line=$(sed -n 's/^ExecStart=//p' "$scratch/$unit/minerud.service")
      line=${line//'${STATE_DIRECTORY}'/$scratch/state}
      [[ $line != *'$'* && $line != *%* ]] || fail "$unit unit: unexpanded variable in ExecStart=$line"
      read -r -a argv <<<"$line"
      out=$("${argv[0]}" --check-config "${argv[@]:1}" 2>&1)
      rc=$?
      [[ $rc -eq 0 ]] || fail "$unit unit: '${argv[*]} --check-config' exited $rc:"$'\n'"$out"
      echo "$unit unit: minerud accepts: ${argv[*]:1}"
    done
    # RestartPreventExitStatus= names the daemon's usage and configuration exit codes.
    "$minerud" --no-such-option >/dev/null 2>&1
    usage=$?
    "$minerud" --check-config --config /dev/null --set max_batch=0 >/dev/null 2>&1
    config=$?
    for unit in system user; do
      prevent=" $(sed -n 's/^RestartPreventExitStatus=//p' "$scratch/$unit/minerud.service") "
      [[ $prevent == *" $usage "* && $prevent == *" $config "* ]] ||
        fail "$unit unit: RestartPreventExitStatus=$prevent lacks the usage ($usage) or config ($config) exit code"
    done
    echo "RestartPreventExitStatus= holds minerud's usage ($usage) and configuration ($config) exit codes"
    # A start that failed for a while (75, EX_TEMPFAIL: the device is not ready yet) is restarted, and
    # far enough apart that the default start limit (5 starts in 10 s) never stops the retries.
    "$minerud" --help | grep -A2 '^Exit status:' | grep -q '75 ' || fail "minerud --help does not name exit status 75"
    for unit in system user; do
      svc=$scratch/$unit/minerud.service
      prevent=" $(sed -n 's/^RestartPreventExitStatus=//p' "$svc") "
      [[ $prevent != *" 75 "* ]] || fail "$unit unit: RestartPreventExitStatus= holds 75, a temporary failure"
      grep -qx 'Restart=on-failure' "$svc" || fail "$unit unit: no Restart=on-failure"
      delay=$(sed -n 's/^RestartSec=//p' "$svc")
      [[ -n $delay ]] && (( $(usec "$delay") * 5 > 10000000 )) ||
        fail "$unit unit: RestartSec=$delay lets five failed starts hit the start limit, which stops the retries"
    done
    echo "a temporary failure (75) is restarted every $delay or more"
    ;;
  sysusers)
    root=$scratch/root
    mkdir -p "$root/etc"
    systemd-sysusers --root="$root" "$dest$sysusers_dir/minerud.conf" >/dev/null 2>&1 ||
      fail "systemd-sysusers rejected $sysusers_dir/minerud.conf"
    uid=$(awk -F: '$1 == "minerud" { print $3 }' "$root/etc/passwd")
    gid=$(awk -F: '$1 == "minerud" { print $3 }' "$root/etc/group")
    [[ -n $uid && -n $gid ]] || fail "sysusers created no minerud user and group"
    (( uid > 0 && uid < 1000 )) || fail "minerud uid $uid is not a system uid"
    home=$(awk -F: '$1 == "minerud" { print $6 }' "$root/etc/passwd")
    [[ $home == /var/lib/minerud ]] || fail "minerud's home is $home"
    systemd-tmpfiles --root="$root" --create "$dest$tmpfiles_dir/minerud.conf" ||
      fail "systemd-tmpfiles rejected $tmpfiles_dir/minerud.conf"
    got=$(stat -c '%a %u %g' "$root/run/minerud") || fail "tmpfiles created no /run/minerud"
    [[ $got == "755 $uid $gid" ]] || fail "/run/minerud is '$got', expected '755 $uid $gid'"
    # The socket's group and the service's user are the ones sysusers creates.
    grep -qx 'SocketGroup=minerud' "$dest$unit_dir/minerud.socket" || fail "minerud.socket: SocketGroup"
    grep -qx 'User=minerud' "$dest$unit_dir/minerud.service" || fail "minerud.service: User"
    echo "sysusers: minerud uid $uid gid $gid; /run/minerud 0755 minerud:minerud"
    ;;
  *) fail "unknown mode $mode" ;;
esac
