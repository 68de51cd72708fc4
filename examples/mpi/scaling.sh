#!/bin/sh
# examples/mpi/scaling.sh — heat-mpi and cg-mpi on one node, the same
# cores split into ranks x threads in several ways, as a table with the
# parallel efficiency of each split against one rank of one thread:
#     E = T(1x1) / (ranks * threads * T(ranks x threads))
# where T is rank 0's time per step (iteration).
#
#   examples/mpi/scaling.sh [BUILDDIR] [CONFIG...]
#
# BUILDDIR is kc's build directory (default: the current directory); each
# CONFIG is RANKSxTHREADS (default: 1x16 2x8 4x4 16x1).  Environment:
#   KC_BACKEND          host backend (default threads)
#   KC_SCALING_HEAT     heat-mpi's arguments (default -n 4096 -s 100 -bench)
#   KC_SCALING_CG       cg-mpi's arguments (default -n 160 -maxit 100 -bench)
#   KC_SCALING_MPIFLAGS mpirun's placement flags, with @T@ for the threads
#                       (Open MPI default: --bind-to core --map-by
#                       slot:PE=@T@; other MPIs: none)
#   MPIRUN              the launcher (default mpirun, else mpiexec)
# Each rank runs KC_NUM_THREADS=THREADS threads on the cores its binding
# gives it (doc/mpi.md).  Every run must pass its own checks.
set -u
build=$(cd "${1:-.}" && pwd) || exit 1
test $# -gt 0 && shift
configs=${*:-1x16 2x8 4x4 16x1}
backend=${KC_BACKEND:-threads}
heat_args=${KC_SCALING_HEAT:--n 4096 -s 100 -bench}
cg_args=${KC_SCALING_CG:--n 160 -maxit 100 -bench}
mpirun=${MPIRUN:-$(command -v mpirun || command -v mpiexec)}
if test -z "$mpirun"; then
  echo "scaling.sh: no mpirun or mpiexec on PATH" >&2
  exit 77
fi
for p in heat-mpi cg-mpi; do
  test -x "$build/examples/mpi/$p" || {
    echo "scaling.sh: $build/examples/mpi/$p is missing (configure" \
      "--with-mpi, make)" >&2
    exit 1
  }
done
openmpi=0
"$mpirun" --version 2>&1 | grep -q "Open MPI" && openmpi=1
if test $openmpi -eq 1; then
  flags=${KC_SCALING_MPIFLAGS:---bind-to core --map-by slot:PE=@T@}
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
else
  flags=${KC_SCALING_MPIFLAGS:-}
fi
KC_PLUGIN_PATH=$build/plugins/threads/.libs:$build/plugins/openmp/.libs
KC_BACKEND=$backend
export KC_PLUGIN_PATH KC_BACKEND

# run PROG RANKS THREADS ARGS...: rank 0's time per step, or fails.
run() {
  prog=$1 r=$2 t=$3
  shift 3
  f=$(printf '%s' "$flags" | sed "s/@T@/$t/g")
  # shellcheck disable=SC2086
  out=$(KC_NUM_THREADS=$t OMP_NUM_THREADS=$t "$mpirun" $f -np "$r" \
    "$build/examples/mpi/$prog" "$@" 2>&1)
  rc=$?
  if test $rc -ne 0; then
    echo "scaling.sh: $prog on $r x $t failed ($rc):" >&2
    printf '%s\n' "$out" >&2
    return 1
  fi
  printf '%s\n' "$out" | sed -n 's/^time per \(step\|iteration\): \([0-9.]*\) us$/\2/p'
}

echo "backend $backend; heat-mpi $heat_args; cg-mpi $cg_args"
echo "mpirun flags: ${flags:-none}"
# shellcheck disable=SC2086
h1=$(run heat-mpi 1 1 $heat_args) || exit 1
# shellcheck disable=SC2086
c1=$(run cg-mpi 1 1 $cg_args) || exit 1
printf '%-14s %14s %8s %14s %8s\n' "ranks x thr" "heat us/step" "eff" \
  "cg us/iter" "eff"
printf '%-14s %14s %8s %14s %8s\n' "1 x 1" "$h1" "1.00" "$c1" "1.00"
for c in $configs; do
  r=${c%x*} t=${c#*x}
  # shellcheck disable=SC2086
  h=$(run heat-mpi "$r" "$t" $heat_args) || exit 1
  # shellcheck disable=SC2086
  g=$(run cg-mpi "$r" "$t" $cg_args) || exit 1
  awk -v c="$r x $t" -v p=$((r * t)) -v h1="$h1" -v h="$h" -v c1="$c1" \
    -v g="$g" 'BEGIN { printf "%-14s %14s %8.2f %14s %8.2f\n",
      c, h, h1 / (p * h), g, c1 / (p * g) }'
done
