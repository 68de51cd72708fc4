/* t-kcc-twins: what library B's own code sees as KC_KERNEL(kt_twin). */
#include <kc/kernel.h>

#include "twin.h"

KC_KERNEL_DECLARE(kt_twin);

KC_API kc_kernel *twin_b_handle(void);
kc_kernel *twin_b_handle(void) { return KC_KERNEL(kt_twin); }
