/* The functor of the saxpy kernel (saxpy.kc.c), shared with the program
 * that launches it (saxpy-kc.c).  A functor is a plain C struct of scalars
 * and device pointers; it is copied at each launch. */
#ifndef SAXPY_KC_H
#define SAXPY_KC_H

typedef struct saxpy_functor {
  float a;
  const float *x;
  float *y;
} saxpy_functor;

#endif
