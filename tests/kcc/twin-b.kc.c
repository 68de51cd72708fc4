/* t-kcc-twins: library B's kernel "kt_twin" (the other library defines a
 * kernel of the same name); it writes 2. */
#include <kc/kernel.h>

#include "twin.h"

KC_FOR(kt_twin, kt_twin_f, f, i, f->out[i] = 2)
