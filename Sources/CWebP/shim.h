#include <webp/decode.h>
#include <webp/demux.h>
#include "../CLinux/lazy.h"

// What the WebP reader calls, opened when the first WebP is read: libwebp.so.7 decodes,
// libwebpdemux.so.2 finds the EXIF and ICC chunks (orientation, density, colour profile).
// WebPGetFeatures and WebPDemux are inline functions of the headers over these.
#define TRAPPER_WEBP_FUNCTIONS(X) \
    X(WebPGetDecoderVersion) X(WebPGetFeaturesInternal) X(WebPDecodeRGBAInto) X(WebPDecodeRGBInto)

#define TRAPPER_WEBPDEMUX_FUNCTIONS(X) \
    X(WebPDemuxInternal) X(WebPDemuxDelete) X(WebPDemuxGetChunk) X(WebPDemuxReleaseChunkIterator)

struct trapper_webp { TRAPPER_WEBP_FUNCTIONS(TRAPPER_FIELD) };
struct trapper_webpdemux { TRAPPER_WEBPDEMUX_FUNCTIONS(TRAPPER_FIELD) };

static inline const char *_Nullable trapper_webp_load(void *_Nonnull library, struct trapper_webp *_Nonnull api) {
    TRAPPER_WEBP_FUNCTIONS(TRAPPER_LOAD)
    return NULL;
}

static inline const char *_Nullable trapper_webpdemux_load(void *_Nonnull library,
                                                           struct trapper_webpdemux *_Nonnull api) {
    TRAPPER_WEBPDEMUX_FUNCTIONS(TRAPPER_LOAD)
    return NULL;
}
