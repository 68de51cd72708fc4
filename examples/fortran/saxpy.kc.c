/* The kernel of the Fortran saxpy example (saxpy.f90), written once in C
 * and built by kcc: y[i] = a * x[i] + y[i].
 *
 * The functor is the C twin of saxpy.f90's bind(C) type saxpy_functor:
 * the same fields in the same order, real(c_float) as float and
 * type(c_ptr) as a pointer.  C index i is Fortran element i + 1.
 *   kcc -c saxpy.kc.c -o saxpy.kc.o
 */
#include <kc/kernel.h>

typedef struct saxpy_functor {
  float a;
  const float *x;
  float *y;
} saxpy_functor;

KC_FOR(saxpy, saxpy_functor, f, i, { f->y[i] = f->a * f->x[i] + f->y[i]; })
