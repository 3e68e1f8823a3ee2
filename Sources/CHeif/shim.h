#include <libheif/heif.h>
#include "../CLinux/lazy.h"

// What the HEIC and AVIF reader calls: libheif.so.1 (which decodes HEVC through libde265 and AV1
// through dav1d) is opened when the first such photo is read.
#define TRAPPER_HEIF_FUNCTIONS(X) \
    X(heif_init) X(heif_get_version) X(heif_context_alloc) X(heif_context_free) \
    X(heif_context_read_from_memory_without_copy) X(heif_context_get_primary_image_handle) \
    X(heif_image_handle_release) X(heif_image_handle_get_width) X(heif_image_handle_get_height) \
    X(heif_image_handle_has_alpha_channel) X(heif_image_handle_is_premultiplied_alpha) \
    X(heif_image_handle_get_luma_bits_per_pixel) X(heif_image_handle_get_number_of_metadata_blocks) \
    X(heif_image_handle_get_list_of_metadata_block_IDs) X(heif_image_handle_get_metadata_type) \
    X(heif_image_handle_get_metadata_size) X(heif_image_handle_get_metadata) \
    X(heif_image_handle_get_color_profile_type) X(heif_image_handle_get_raw_color_profile_size) \
    X(heif_image_handle_get_raw_color_profile) X(heif_decoding_options_alloc) X(heif_decoding_options_free) \
    X(heif_decode_image) X(heif_image_release) X(heif_image_get_plane_readonly) X(heif_image_get_width) \
    X(heif_image_get_height)

struct trapper_heif { TRAPPER_HEIF_FUNCTIONS(TRAPPER_FIELD) };

static inline const char *_Nullable trapper_heif_load(void *_Nonnull library, struct trapper_heif *_Nonnull api) {
    TRAPPER_HEIF_FUNCTIONS(TRAPPER_LOAD)
    return NULL;
}
