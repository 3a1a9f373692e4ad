#!/bin/bash
# Renders every page in man/ and fails on any warning.
#
#   render_pages.sh MAN_DIR
#
# For each page: the .TH line names the file (NAME SECTION); `groff -man -Tutf8 -ww` and
# `man --warnings -l` print no warning; lexgrog finds a NAME section whatis(1) can index; nothing
# overflows 80 columns; references to this project's pages name pages that exist.
set -u -o pipefail
dir=$1
fail=0
pages=("$dir"/*.[1-8])
[[ -f ${pages[0]} ]] || { echo "FAIL: no pages in $dir" >&2; exit 1; }
for page in "${pages[@]}"; do
  base=$(basename "$page")
  name=${base%.*} section=${base##*.}
  th=$(grep -m1 '^\.TH ' "$page")
  want=$(tr '[:lower:]' '[:upper:]' <<<"$name")
  if [[ $th != ".TH $want $section "* ]]; then
    echo "FAIL: $base: '.TH' line is '$th', expected '.TH $want $section ...'" >&2; fail=1
  fi
  out=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
  if [[ -n $out ]]; then echo "FAIL: $base: groff -ww:"$'\n'"$out" >&2; fail=1; fi
  out=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
  if [[ -n $out ]]; then echo "FAIL: $base: man --warnings:"$'\n'"$out" >&2; fail=1; fi
  if ! out=$(lexgrog "$page" 2>&1) || [[ $out != *"$name"* ]]; then
    echo "FAIL: $base: lexgrog finds no NAME section: $out" >&2; fail=1
  fi
  # Pages shown at 80 columns must not overflow them (a long unbreakable line does).
  wide=$(MANWIDTH=80 man -l "$page" 2>/dev/null | awk 'length($0) > 80' | head -3)
  if [[ -n $wide ]]; then echo "FAIL: $base: lines wider than 80 columns:"$'\n'"$wide" >&2; fail=1; fi
  # References to this project's pages (mineru*, minerud*) name a page that exists.
  for ref in $(grep -oE '^\.BR (miner[a-z.]*) \(([1-8])\)' "$page" | sed -E 's/^\.BR ([^ ]*) \(([1-8])\)/\1.\2/' | sort -u); do
    if [[ ! -f $dir/$ref ]]; then echo "FAIL: $base refers to $ref, which is not in $dir" >&2; fail=1; fi
  done
  [[ $fail -eq 0 ]] && echo "ok: $base"
done
exit $fail
