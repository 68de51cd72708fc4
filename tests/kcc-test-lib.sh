# Shell helpers of the t-kcc*.sh tests, sourced after kcc-test.env (what
# they need to know about the build).  A test says each check on one line,
# "ok: ..." or "FAIL: ...", counts the failures in fails and ends with
# finish.

fails=0
# fail WHAT: a failed check.
fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}
# ok WHAT: a passed check.
ok() { echo "ok: $*"; }

# have_nvcc: true if the configured PTX compiler (KC_NVCC) is there.
have_nvcc() {
  test -n "$KC_NVCC" && command -v "$KC_NVCC" >/dev/null 2>&1
}

# refuses WHAT ERROR UNWRITTEN COMMAND...: COMMAND must fail, saying
# ERROR (a grep pattern) on its standard error, which it leaves in ./err,
# and not write the file UNWRITTEN (none if empty), removed first.
refuses() {
  rw=$1 re=$2 ru=$3
  shift 3
  if test -n "$ru"; then rm -f -- "$ru"; fi
  if "$@" 2>err; then
    fail "$rw: accepted"
  elif test -n "$ru" && test -e "$ru"; then
    fail "$rw: refused, but $ru was written"
  elif grep -q -e "$re" err; then
    ok "$rw: refused"
  else
    head -n 3 err
    fail "$rw: no clear error"
  fi
}

# finish WORK: the count of failures; exit 1 leaving the work directory
# WORK for inspection if there were some, else exit 0 without it.
finish() {
  echo "# $fails failure(s)"
  if test "$fails" -ne 0; then
    echo "# left $1 for inspection"
    exit 1
  fi
  cd "$1/.." && rm -rf -- "$1"
  exit 0
}
