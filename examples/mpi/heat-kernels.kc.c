/* The kernels of examples/heat.kc.c without its program, for heat-mpi. */
#define KC_KERNELS_ONLY
#include "../heat.kc.c"
