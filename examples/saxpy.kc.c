/* The saxpy kernel, written once for every backend: y[i] = a * x[i] + y[i].
 *
 * kcc compiles this file for the host (a vectorised loop over each chunk)
 * and, when nvcc is available, to PTX for the CUDA backend; the object it
 * writes registers the kernel as "saxpy" before main() runs.
 *   kcc -c saxpy.kc.c -o saxpy.kc.o
 */
#include <kc/kernel.h>

#include "saxpy-kc.h"

KC_FOR(saxpy, saxpy_functor, f, i, { f->y[i] = f->a * f->x[i] + f->y[i]; })
