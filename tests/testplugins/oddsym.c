/* A shared object named like the threads plugin whose entry symbol
 * kc_backend_threads is not a kc_backend_ops: a 4-byte object (ODDSYM_TINY),
 * a function (ODDSYM_FUNCTION) or a thread-local object (ODDSYM_TLS: dlsym
 * gives the calling thread's copy, which lies in no object's mapping).  The
 * loader must refuse it before it reads past the symbol, or reads memory
 * that is not the plugin's. */
#include <kc/backend.h>

#if defined(ODDSYM_TINY)
KC_API const int kc_backend_threads = 1;
#elif defined(ODDSYM_FUNCTION)
KC_API int kc_backend_threads(void);
KC_API int kc_backend_threads(void) { return 1; }
#elif defined(ODDSYM_TLS)
KC_API __thread kc_backend_ops kc_backend_threads;
#else
#error "define ODDSYM_TINY, ODDSYM_FUNCTION or ODDSYM_TLS"
#endif
