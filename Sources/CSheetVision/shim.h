#include "../SheetVision/include/sheet_vision.h"
#include "../CLinux/lazy.h"

// What the sheet finder calls in libPDFTrapperVision.so (Sources/SheetVision, this package's own
// OpenCV half), opened when the first photo's sheet is looked for: OpenCV's libraries stay unloaded
// in every other command.
#define TRAPPER_VISION_FUNCTIONS(X) X(ptcv_find_sheet) X(ptcv_warp_sheet) X(ptcv_opencv_version) X(ptcv_interface)

struct trapper_vision { TRAPPER_VISION_FUNCTIONS(TRAPPER_FIELD) };

static inline const char *_Nullable trapper_vision_load(void *_Nonnull library, struct trapper_vision *_Nonnull api) {
    TRAPPER_VISION_FUNCTIONS(TRAPPER_LOAD)
    return NULL;
}
