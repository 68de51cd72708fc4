#!/bin/sh
# The manual pages of the installed commands (doc/man/*.1) render without a
# single warning: `groff -man -ww -z` (every warning on, no output), else
# `mandoc -T lint`.  SKIPs with the reason when neither is installed
# (Debian: groff-base or mandoc).
srcdir=${KC_TEST_TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
pages="$srcdir/doc/man/kcc.1 $srcdir/doc/man/kc-info.1"
tmp=${TMPDIR:-/tmp}/t-man.$$
trap 'rm -f "$tmp"' EXIT INT TERM

if command -v groff >/dev/null 2>&1; then
  render() { LC_ALL=C groff -man -ww -z "$1"; }
  how="groff -man -ww -z"
elif command -v mandoc >/dev/null 2>&1; then
  render() { mandoc -T lint -W warning "$1"; }
  how="mandoc -T lint"
else
  echo "SKIP: neither groff nor mandoc is installed (apt-get install groff-base)"
  exit 77
fi

fail=0
for p in $pages; do
  if test ! -f "$p"; then
    echo "FAIL: $p is missing"
    fail=1
    continue
  fi
  render "$p" >"$tmp" 2>&1
  rc=$?
  if test $rc -ne 0 || test -s "$tmp"; then
    echo "FAIL: $how $p (exit $rc):"
    cat "$tmp"
    fail=1
  else
    echo "ok: $how $p: no warning"
  fi
  # The page must name the command it documents in its NAME section.
  name=$(basename "$p" .1)
  grep -q "^$(printf '%s' "$name" | sed 's/-/\\\\-/g') \\\\- " "$p" || {
    echo "FAIL: $p has no NAME line for $name"
    fail=1
  }
done
exit $fail
