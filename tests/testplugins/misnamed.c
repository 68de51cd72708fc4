/* A plugin whose file is libkc-misnamed.so but whose ops call it
 * 'impostor': kc must refuse it (the name selects the backend). */
#include "common.h"

KC_API const kc_backend_ops kc_backend_misnamed = {TP_OPS("impostor")};
