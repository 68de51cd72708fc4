/* A plugin built for the next major backend ABI: kc must refuse it with
 * one line naming the file, both versions and the fix. */
#include "common.h"

KC_API const kc_backend_ops kc_backend_badabi = {
    TP_OPS("badabi"),
    .abi_major = KC_BACKEND_ABI_MAJOR + 1,
    .abi_minor = 3,
};
