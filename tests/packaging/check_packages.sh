#!/bin/bash
# The Debian packages `cpack -G DEB` makes from this build (cmake/MineruPackaging.cmake), checked as
# a user gets them:
#   - minerud holds the daemon, mineructl, the system and user units (ExecStart= on /usr/bin/minerud),
#     the sysusers.d and tmpfiles.d snippets (which create the group `minerud` in a scratch root), the
#     manual pages, bash completion and maintainer scripts that create the user; its dependencies come
#     from dpkg-shlibdeps;
#   - libmineru-client holds the library, its public headers, its pkg-config file and the Python
#     binding, depends on none of the daemon's libraries (libtorch, MuPDF, libcurl), and shares no
#     file with minerud;
#   - both extracted into a temporary root, a C and a C++ program build against the installed
#     mineru-client.pc alone (its Cflags name the include folder and nothing inside it), every
#     mineru header they read comes from that root, and they run against its library; the Python
#     binding imports from there too.
#
#   check_packages.sh CPACK BUILD_DIR VERSION
# Exits 77 (skipped) when a Debian packaging tool or a compiler is missing.
set -u -o pipefail
cpack=$1 build=$2 version=$3

fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in dpkg-deb dpkg-shlibdeps pkg-config cc c++; do
  command -v $tool >/dev/null || { echo "SKIP: $tool is missing (Debian: dpkg-dev, pkg-config, build-essential)"; exit 77; }
done
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT

(cd "$build" && "$cpack" -G DEB -B "$scratch/out") >"$scratch/cpack.log" 2>&1 ||
  { cat "$scratch/cpack.log"; fail "cpack -G DEB"; }
daemon=$(ls "$scratch"/out/minerud_"$version"_*.deb 2>/dev/null) || fail "no minerud_$version package"
client=$(ls "$scratch"/out/libmineru-client_"$version"_*.deb 2>/dev/null) || fail "no libmineru-client package"

contents() { dpkg-deb -c "$1" | awk '{print $6}' | sed 's|^\./|/|; s|/$||'; }
contents "$daemon" >"$scratch/daemon.files"
contents "$client" >"$scratch/client.files"
has() {  # has LIST PATH-REGEX
  grep -qE "^$2\$" "$scratch/$1.files" || fail "$1 package lacks $2"
}

# The daemon package.
for f in /usr/bin/minerud /usr/bin/mineructl /usr/lib/systemd/system/minerud.service \
         /usr/lib/systemd/system/minerud.socket /usr/lib/systemd/user/minerud.service \
         /usr/lib/systemd/user/minerud.socket /usr/lib/sysusers.d/minerud.conf /usr/lib/tmpfiles.d/minerud.conf \
         /usr/share/man/man1/mineructl.1 /usr/share/man/man5/minerud.conf.5 /usr/share/man/man7/mineru.7 \
         /usr/share/man/man8/minerud.8 /usr/share/doc/minerud/examples/minerud.conf \
         /usr/share/bash-completion/completions/mineructl /usr/share/bash-completion/completions/minerud; do
  has daemon "$f"
done
depends=$(dpkg-deb -f "$daemon" Depends)
[[ $depends == *libc6* && $depends == *libuv1* ]] || fail "minerud Depends: '$depends' (dpkg-shlibdeps)"
dpkg-deb --ctrl-tarfile "$daemon" | tar -xO ./postinst | grep -q 'systemd-sysusers minerud.conf' ||
  fail "minerud's postinst does not create the user"

# The client package: the library, public headers only, pkg-config, Python; nothing of the daemon's.
has client '/usr/lib(/[a-z0-9_-]+)?/libmineru-client\.so'
has client '/usr/lib(/[a-z0-9_-]+)?/libmineru-client\.so\.0'
has client '/usr/lib(/[a-z0-9_-]+)?/pkgconfig/mineru-client\.pc'
has client /usr/lib/python3/dist-packages/mineru_client/__init__.py
headers=$(grep '^/usr/include/.*\.h$' "$scratch/client.files" | sort | xargs)
[[ $headers == "/usr/include/mineru/client.h /usr/include/mineru/client_c.h /usr/include/mineru/common/result.h /usr/include/mineru/common/status.h /usr/include/mineru/version.h" ]] ||
  fail "libmineru-client's headers: $headers"
client_depends=$(dpkg-deb -f "$client" Depends)
for lib in libtorch libmupdf libcurl libssl libuv libtesseract; do
  [[ $client_depends != *$lib* ]] || fail "libmineru-client depends on $lib: $client_depends"
done
grep -q '^/usr/bin' "$scratch/client.files" && fail "libmineru-client holds programs"
both=$(comm -12 <(grep -v '/$' "$scratch/daemon.files" | sort) <(sort "$scratch/client.files") |
       while read -r f; do dpkg-deb -c "$daemon" | grep -q "^-.* \.$f\$" && echo "$f"; done)
[[ -z $both ]] || fail "files in both packages: $both"

# Installed into a temporary root.
root=$scratch/root
dpkg-deb -x "$daemon" "$root" && dpkg-deb -x "$client" "$root" || fail "dpkg-deb -x"
for unit in system user; do
  exec=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$root/usr/lib/systemd/$unit/minerud.service")
  [[ $exec == /usr/bin/minerud ]] || fail "$unit minerud.service: ExecStart=$exec"
done
[[ -x $root/usr/bin/minerud ]] || fail "/usr/bin/minerud is not executable"
if command -v systemd-sysusers >/dev/null; then
  mkdir -p "$root/etc"
  systemd-sysusers --root="$root" >/dev/null 2>&1 || fail "systemd-sysusers --root on the package's snippet"
  grep -q '^minerud:' "$root/etc/group" || fail "the package's sysusers.d snippet creates no group minerud"
fi

# A consumer of the client library, built from the installed pkg-config file alone.
pc=$(find "$root" -name mineru-client.pc) && pcdir=$(dirname "$pc")
cflags=$(PKG_CONFIG_PATH=$pcdir PKG_CONFIG_LIBDIR=$pcdir pkg-config --cflags mineru-client) || fail "pkg-config --cflags"
libs=$(PKG_CONFIG_PATH=$pcdir PKG_CONFIG_LIBDIR=$pcdir pkg-config --libs mineru-client) || fail "pkg-config --libs"
for flag in $cflags; do
  [[ $flag == -I* ]] || continue
  [[ $(realpath -m "${flag#-I}") == $(realpath "$root/usr/include") ]] ||
    fail "mineru-client.pc exposes $flag (only the include folder itself may be named)"
done
libdir=$(dirname "$(find "$root" -name 'libmineru-client.so.0')")
cat >"$scratch/consumer.c" <<'C'
#include <mineru/client_c.h>
#include <stdio.h>
#include <string.h>
int main(void) {
  printf("%s\n", mineru_version());
  return strcmp(mineru_version(), MINERU_VERSION_STRING) == 0 ? 0 : 1;
}
C
cat >"$scratch/consumer.cc" <<'CC'
#include <mineru/client.h>
#include <cstdio>
int main() {
  mineru::client::ClientOptions options;
  options.socket_path = "/nonexistent/minerud.sock";
  options.connect_timeout_ms = 100;
  auto client = mineru::client::Client::Connect(options);
  if (client.ok()) return 1;
  std::printf("%s\n", std::string(mineru::StatusCodeName(client.status().code())).c_str());
  return 0;
}
CC
cd "$scratch" || exit 1
# shellcheck disable=SC2086
cc -std=c11 -Wall -Wextra -Werror -c consumer.c $cflags -MD -MF consumer_c.d -o consumer_c.o 2>cc.log &&
  cc consumer_c.o $libs -o consumer_c 2>>cc.log ||
  { cat cc.log; fail "a C program does not build against mineru-client.pc"; }
# shellcheck disable=SC2086
c++ -std=c++20 -Wall -Wextra -Werror -c consumer.cc $cflags -MD -MF consumer_cc.d -o consumer_cc.o 2>cc.log &&
  c++ consumer_cc.o $libs -o consumer_cc 2>>cc.log ||
  { cat cc.log; fail "a C++ program does not build against mineru-client.pc"; }
for dep in consumer_c.d consumer_cc.d; do
  read_headers=$(tr ' \\' '\n\n' <"$dep" | grep '/mineru/')
  [[ -n $read_headers ]] || fail "$dep names no mineru header"
  outside=$(grep -v "^$root/" <<<"$read_headers")
  [[ -z $outside ]] || fail "the consumer read mineru headers outside the package: $outside"
done
got=$(LD_LIBRARY_PATH=$libdir ./consumer_c) || fail "the C consumer fails: $got"
[[ $got == "$version" ]] || fail "the C consumer prints '$got', expected $version"
got=$(LD_LIBRARY_PATH=$libdir ./consumer_cc) || fail "the C++ consumer fails: $got"
[[ $got == unavailable || $got == not_found ]] || fail "the C++ consumer's failed connect says '$got'"
if command -v python3 >/dev/null; then
  PYTHONPATH=$root/usr/lib/python3/dist-packages MINERU_CLIENT_LIBRARY=$libdir/libmineru-client.so.0 \
    python3 -c 'import mineru_client' || fail "the Python binding does not import from the package"
fi
echo "ok: $(basename "$daemon") ($(wc -l <"$scratch/daemon.files") entries), $(basename "$client"); a C and a C++ consumer built from mineru-client.pc"
