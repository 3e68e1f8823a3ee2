#include <zbar.h>
#include "../CLinux/lazy.h"

// What SeparatorReader calls: libzbar.so.0 is opened when a barcode separator is first looked for.
#define TRAPPER_ZBAR_FUNCTIONS(X) \
    X(zbar_image_scanner_create) X(zbar_image_scanner_destroy) X(zbar_image_scanner_set_config) \
    X(zbar_image_create) X(zbar_image_destroy) X(zbar_image_set_format) X(zbar_image_set_size) \
    X(zbar_image_set_data) X(zbar_scan_image) X(zbar_image_first_symbol) X(zbar_symbol_next) \
    X(zbar_symbol_get_data) X(zbar_symbol_get_data_length)

struct trapper_zbar { TRAPPER_ZBAR_FUNCTIONS(TRAPPER_FIELD) };

static inline const char *_Nullable trapper_zbar_load(void *_Nonnull library, struct trapper_zbar *_Nonnull api) {
    TRAPPER_ZBAR_FUNCTIONS(TRAPPER_LOAD)
    return NULL;
}
