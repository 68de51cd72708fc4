/* The kernels, written once: kcc compiles this file for the host (a loop
 * over each chunk) and, when a CUDA compiler is around, to PTX, and puts
 * both in one object that registers the kernels when the program starts. */
#include <kc/kernel.h>

#include "scale.h"

/* y[i] = a * x[i] */
KC_FOR(scale, scale_args, f, i, f->y[i] = f->a * f->x[i];)

/* the sum of y */
KC_REDUCE_SUM(sum, sum_args, f, i, double, acc, acc += f->y[i];)
