#include <tesseract/capi.h>
#include "../CLinux/lazy.h"

// What OCREngine calls: libtesseract.so.5 is opened when the first engine starts (or --version asks).
#define TRAPPER_TESSERACT_FUNCTIONS(X) \
    X(TessVersion) X(TessBaseAPICreate) X(TessBaseAPIInit3) X(TessBaseAPISetVariable) X(TessBaseAPIEnd) \
    X(TessBaseAPIDelete) X(TessBaseAPISetImage2) X(TessBaseAPISetSourceResolution) X(TessBaseAPIRecognize) \
    X(TessBaseAPIGetIterator) X(TessBaseAPIClear) X(TessResultIteratorGetUTF8Text) X(TessDeleteText) \
    X(TessResultIteratorGetPageIteratorConst) X(TessPageIteratorBoundingBox) X(TessResultIteratorConfidence) \
    X(TessResultIteratorNext) X(TessResultIteratorDelete)

struct trapper_tesseract { TRAPPER_TESSERACT_FUNCTIONS(TRAPPER_FIELD) };

static inline const char *_Nullable trapper_tesseract_load(void *_Nonnull library,
                                                           struct trapper_tesseract *_Nonnull api) {
    TRAPPER_TESSERACT_FUNCTIONS(TRAPPER_LOAD)
    return NULL;
}
