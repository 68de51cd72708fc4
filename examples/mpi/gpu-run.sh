#!/bin/sh
# examples/mpi/gpu-run.sh — the MPI examples on the cuda backend, 2 ranks
# on this node, for a GPU machine:
#
#   examples/mpi/gpu-run.sh [BUILDDIR]
#
# 1. Each rank's kc-info: the device its node-local rank mapped it to and
#    what chose it (with one GPU both ranks share device 0).
# 2. heat-mpi and cg-mpi on 2 ranks with the halos as the MPI allows
#    (auto: direct when CUDA-aware), then staged through host mirrors,
#    then (only when the MPI says it is CUDA-aware) direct.
# 3. The test t-mpi-examples.cuda (1, 2, 4 ranks against the single-process
#    results).
# Exits 77 without mpirun, 1 if anything failed.
build=$(cd "${1:-.}" && pwd) || exit 1
mpirun=$(command -v mpirun || command -v mpiexec)
if test -z "$mpirun"; then
  echo "gpu-run.sh: no mpirun or mpiexec on PATH: the MPI examples cannot" \
    "run here (install Open MPI: apt-get install openmpi-bin libopenmpi-dev," \
    "then configure --with-mpi)"
  exit 77
fi
ex=$build/examples/mpi
if ! test -x "$ex/heat-mpi"; then
  echo "gpu-run.sh: $ex/heat-mpi is missing: configure found no MPI" \
    "(configure --with-mpi, make)"
  exit 1
fi
flags=
if "$mpirun" --version 2>&1 | grep -q "Open MPI"; then
  flags=--oversubscribe
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
fi
KC_PLUGIN_PATH=$build/plugins/cuda/.libs
KC_BACKEND=cuda
export KC_PLUGIN_PATH KC_BACKEND
fail=0
if ! "$build/tools/kc-info" >/dev/null 2>&1; then
  echo "gpu-run.sh: the cuda backend cannot start here:"
  "$build/tools/kc-info" | grep '^backend-error:'
  exit 77
fi

echo "=== each rank's device"
# Each line labelled with the rank as the launcher numbers it (Open MPI,
# MPICH/Hydra or PMIx, Slurm).
"$mpirun" $flags -np 2 sh -c "'$build/tools/kc-info' | grep -E \
  '^(backend|backend-error|device|device-from|device-name):' |
  sed \"s/^/rank \${OMPI_COMM_WORLD_RANK:-\${PMI_RANK:-\${PMIX_RANK:-\${SLURM_PROCID:-?}}}}: /\"" ||
  fail=1

for halo in auto staged direct; do
  if test $halo = direct &&
    ! "$mpirun" $flags -np 2 "$ex/heat-mpi" -n 16 2>&1 |
    grep -q "(the MPI is CUDA-aware)"; then
    echo "=== -halo direct: skipped (this MPI is not CUDA-aware)"
    continue
  fi
  for prog in heat-mpi cg-mpi; do
    echo "=== mpirun -np 2 $prog -halo $halo"
    out=$(KC_VERBOSE=1 "$mpirun" $flags -np 2 "$ex/$prog" -halo $halo 2>&1)
    rc=$?
    printf '%s\n' "$out" | grep -v "^kc: \(kernel\|using\|plugin\|trying\)"
    test $rc -eq 0 || { echo "FAILED: exit status $rc"; fail=1; }
  done
done

echo "=== t-mpi-examples.cuda"
make -C "$build/tests" check TESTS=t-mpi-examples.cuda || fail=1
cat "$build/tests/t-mpi-examples.cuda.log"
exit $fail
