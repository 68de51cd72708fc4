# Sourced by the cuda tests that try the values of a KC_CUDA_* variable
# (t-for-grids.sh, t-scan-passes.sh, t-reduce-waves.sh,
# t-queue-devices.sh); needs $top, the top build directory.
#
# run_with VAR VALUE PROGRAM: runs ./PROGRAM with VAR=VALUE and exits with
#   its status unless that is 0 (77, a SKIP, included).
# refused VAR VALUE MESSAGE: kc-info with VAR=VALUE must fail and say
#   MESSAGE (a grep pattern); prints ok or FAIL, returns 0 or 1.
run_with() {
  echo "--- $1=$2 ./$3"
  env "$1=$2" "./$3"
  rc=$?
  test $rc -eq 0 || exit $rc
}

refused() {
  out=$(env "$1=$2" "$top/tools/kc-info" 2>&1)
  if test $? -eq 0 || ! printf '%s\n' "$out" | grep -q -- "$3"; then
    echo "FAIL: $1=$2: kc-info did not refuse it by name:"
    printf '%s\n' "$out" | head -n 5
    return 1
  fi
  echo "ok: $1=$2 refused"
}
