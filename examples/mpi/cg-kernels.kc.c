/* The kernels of examples/cg.kc.c without its program, for cg-mpi. */
#define KC_KERNELS_ONLY
#include "../cg.kc.c"
