/* A shared object named like the threads plugin whose entry symbol
 * kc_backend_threads is not a kc_backend_ops: a 4-byte object (ODDSYM_TINY)
 * or a function (ODDSYM_FUNCTION).  The loader must refuse it before it
 * reads past the symbol. */
#include <kc/backend.h>

#if defined(ODDSYM_TINY)
KC_API const int kc_backend_threads = 1;
#elif defined(ODDSYM_FUNCTION)
KC_API int kc_backend_threads(void);
KC_API int kc_backend_threads(void) { return 1; }
#else
#error "define ODDSYM_TINY or ODDSYM_FUNCTION"
#endif
