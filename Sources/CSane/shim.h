#include <sane/sane.h>
#include <sane/saneopts.h>
#include "../CLinux/lazy.h"

// What the Scanning adapters call: libsane.so.1 is opened when the first session starts.
#define TRAPPER_SANE_FUNCTIONS(X) \
    X(sane_init) X(sane_exit) X(sane_get_devices) X(sane_open) X(sane_close) X(sane_get_option_descriptor) \
    X(sane_control_option) X(sane_get_parameters) X(sane_start) X(sane_read) X(sane_cancel) X(sane_strstatus)

struct trapper_sane { TRAPPER_SANE_FUNCTIONS(TRAPPER_FIELD) };

static inline const char *_Nullable trapper_sane_load(void *_Nonnull library, struct trapper_sane *_Nonnull api) {
    TRAPPER_SANE_FUNCTIONS(TRAPPER_LOAD)
    return NULL;
}
