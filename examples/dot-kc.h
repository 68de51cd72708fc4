/* The functor of the dot kernel (dot.kc.c), shared with dot-kc.c. */
#ifndef DOT_KC_H
#define DOT_KC_H

typedef struct dot_functor {
  const double *x;
  const double *y;
} dot_functor;

#endif
