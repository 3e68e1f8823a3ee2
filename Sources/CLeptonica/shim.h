#include <leptonica/allheaders.h>
#include "../CLinux/lazy.h"

// What the Imaging adapters call: liblept.so.5 is opened when a page is first processed, decoded
// from a TIFF, encoded from a scan or read by OCR.
#define TRAPPER_LEPTONICA_FUNCTIONS(X) \
    X(getLeptonicaVersion) X(lept_free) X(setMsgSeverity) \
    X(pixCreate) X(pixDestroy) X(pixGetWidth) X(pixGetHeight) X(pixGetDepth) X(pixGetSpp) X(pixGetWpl) \
    X(pixGetData) X(pixGetColormap) X(pixcmapGetCount) X(pixcmapGetColor) X(pixSetResolution) \
    X(pixEndianByteSwap) X(pixReadMem) X(pixReadMemTiff) X(pixWriteMemTiff) X(pixWriteMemJpeg) \
    X(pixWriteMemPng) X(pixConvertTo8) X(pixScale) X(pixThresholdToBinary) X(pixSelectBySize) \
    X(pixRotate) X(pixRotateOrth) X(pixFlipLR) X(pixFindSkewSweepAndSearch) X(pixOrientDetect) \
    X(makeOrientDecision) X(pixColorFraction) X(pixCountPixels) X(pixClipRectangle) X(boxCreate) X(boxDestroy) \
    X(pixBackgroundNormMorph) X(pixGammaTRC) X(pixConvertTo32) X(pixSetSpp)

struct trapper_leptonica { TRAPPER_LEPTONICA_FUNCTIONS(TRAPPER_FIELD) };

static inline const char *_Nullable trapper_leptonica_load(void *_Nonnull library,
                                                           struct trapper_leptonica *_Nonnull api) {
    TRAPPER_LEPTONICA_FUNCTIONS(TRAPPER_LOAD)
    return NULL;
}
