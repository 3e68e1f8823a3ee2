// The sheet's perspective undone (sheet_vision.h, ptcv_warp_sheet): OpenCV's warpPerspective onto a
// target the size of the page, so that only the page's pixels are computed. Leptonica's projective
// transform, which find_page used before, computes an image the size of the whole photo and then
// crops it: a 12-megapixel photo cost 12 megapixels of interpolation whatever the sheet's size.
#include "sheet_vision.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <cstdio>
#include <exception>
#include <string>

int ptcv_warp_sheet(const unsigned char *source, int source_width, int source_height, int source_stride,
                    int channels, const double corners[8], unsigned char *target, int target_width,
                    int target_height, int target_stride, char *error, size_t error_size) {
    auto fail = [&](const char *reason) {
        if (error && error_size) std::snprintf(error, error_size, "%s", reason);
        return -1;
    };
    if (!source || !target || !corners) return fail("no pixels given");
    if (channels < 1 || channels > 4) return fail("1 to 4 channels a pixel");
    if (source_width < 1 || source_height < 1 || target_width < 1 || target_height < 1 ||
        source_stride < source_width * channels || target_stride < target_width * channels)
        return fail("an image size or row length that does not hold its pixels");
    try {
        const int type = CV_8UC(channels);
        // The Mats wrap the caller's buffers: nothing is copied in or out.
        const cv::Mat from(source_height, source_width, type, const_cast<unsigned char *>(source),
                           static_cast<size_t>(source_stride));
        cv::Mat to(target_height, target_width, type, target, static_cast<size_t>(target_stride));
        const cv::Point2f quad[4] = {{float(corners[0]), float(corners[1])}, {float(corners[2]), float(corners[3])},
                                     {float(corners[4]), float(corners[5])}, {float(corners[6]), float(corners[7])}};
        // Corner 0 lands on the target's pixel (0, 0), and the far corners a pixel beyond its last row
        // and column, as leptonica's projective transform placed them before.
        const cv::Point2f page[4] = {{0, 0}, {float(target_width), 0}, {float(target_width), float(target_height)},
                                     {0, float(target_height)}};
        const cv::Mat transform = cv::getPerspectiveTransform(quad, page);
        cv::warpPerspective(from, to, transform, to.size(), cv::INTER_LINEAR, cv::BORDER_REPLICATE);
        // warpPerspective writes into `to` in place when it has the right size and type, as here;
        // a reallocation would leave the caller's buffer untouched.
        if (to.data != target) return fail("OpenCV wrote the page elsewhere");
        return 0;
    } catch (const std::exception &e) {
        std::string line = e.what();
        for (char &c : line)
            if (c == '\n' || c == '\r') c = ' ';
        return fail(line.c_str());
    } catch (...) {
        return fail("OpenCV failed without saying why");
    }
}
