/* A shared object named like a plugin that lacks the entry symbol
 * kc_backend_nosym (it exports another name). */
#include "common.h"

KC_API const kc_backend_ops kc_backend_other = {TP_OPS("other")};
