// libFuzzer target for find_page's OpenCV half (Sources/SheetVision), which runs inside the daemon on
// every photo: a crash there would take the daemon down with it. Built by scripts/fuzz.sh with
// clang++ -fsanitize=fuzzer,address straight from the library's sources (it is C++, outside the
// Swift fuzz package). The bytes become a picture three ways, chosen by the first byte:
//
//   0  raw pixels of any size from 1 x 1 (the bytes repeated), RGB or leptonica's 32-bit words;
//   1  a drawn scene: a background, then filled quadrilaterals and lines with corners anywhere,
//      in or out of the frame, which the finder takes for sheets, printed boxes and edges;
//   2  the same scene, then the perspective warp (ptcv_warp_sheet) with corners and a target size
//      from the bytes, NaN, infinities and huge values included, and half the time an outline (the
//      finder's own, or points from the bytes).
//
// The plausibility callback says yes or no from the bytes, so the passed-over path runs too. Every
// result is checked: indexes within the list, a taken sheet's corners and outline finite.
#include "sheet_vision.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

struct Bytes {
    const uint8_t *data;
    size_t size, at = 0;
    uint8_t next() { return size == 0 ? 0 : data[at++ % size]; }
    int number(int limit) { return int((next() | next() << 8) % limit); }
    double any() {
        double value;
        uint8_t raw[sizeof value];
        for (auto &b : raw) b = next();
        std::memcpy(&value, raw, sizeof value);
        return value;
    }
};

int plausible(const double corners[8], int width, int height, void *context) {
    // yes or no by the corners and the fuzzer's byte, so both answers come
    const auto salt = *static_cast<const uint8_t *>(context);
    return (int(corners[0] + corners[5]) + width + height + salt) % 3 != 0;
}

cv::Mat scene(Bytes &in, int width, int height) {
    cv::Mat image(height, width, CV_8UC3, cv::Scalar(in.next(), in.next(), in.next()));
    const int shapes = 1 + in.next() % 6;
    for (int s = 0; s < shapes; s++) {
        std::vector<cv::Point> quad;
        for (int i = 0; i < 4; i++) quad.emplace_back(in.number(3 * width) - width, in.number(3 * height) - height);
        const cv::Scalar colour(in.next(), in.next(), in.next());
        if (in.next() % 4 == 0)
            cv::line(image, quad[0], quad[1], colour, 1 + in.next() % 5);
        else
            cv::fillConvexPoly(image, quad, colour);
    }
    return image;
}

void check(bool holds) {
    if (!holds) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 8) return 0;
    Bytes in{data, size};
    const int mode = in.next() % 3;
    const uint8_t salt = in.next();
    const int width = 1 + in.number(mode == 0 ? 300 : 400), height = 1 + in.number(mode == 0 ? 300 : 400);
    const bool words = in.next() & 1;

    cv::Mat rgb;
    if (mode == 0) {
        rgb.create(height, width, CV_8UC3);
        for (int y = 0; y < height; y++)
            for (int x = 0; x < 3 * width; x++) rgb.at<uint8_t>(y, x) = in.next();
    } else {
        rgb = scene(in, width, height);
    }
    cv::Mat pixels = rgb;
    if (words) cv::cvtColor(rgb, pixels, cv::COLOR_RGB2RGBA);  // four bytes a pixel, as leptonica's words are

    ptcv_result result;
    char error[256];
    const int status = ptcv_find_sheet(pixels.data, width, height, int(pixels.step), words ? PTCV_LEPTONICA_32 : PTCV_RGB,
                                       plausible, const_cast<uint8_t *>(&salt), &result, error, sizeof error);
    if (status == 0) {
        check(result.count >= 0 && result.count <= PTCV_MAX_CANDIDATES);
        check(result.chosen >= -1 && result.chosen < result.count);
        check(result.passed_over >= -1 && result.passed_over < result.count);
        check(result.held_back >= -1 && result.held_back < result.count);
        check(result.framing >= -1 && result.framing < result.count);
        // a framing candidate only around one held back (which may also be held back alone, as part of
        // a larger sheet not found); one held back only when none is chosen
        check((result.framing < 0 || result.held_back >= 0) && (result.held_back < 0 || result.chosen < 0));
        if (result.chosen >= 0)
            for (double c : result.cut) check(std::isfinite(c));
        check(result.outlined == 0 || result.chosen >= 0);
        if (result.outlined)
            for (const auto &side : result.outline)
                for (double c : side) check(std::isfinite(c));
    } else {
        check(std::strlen(error) > 0);
    }

    if (mode == 2) {
        double corners[8];
        for (double &c : corners) c = in.next() % 4 == 0 ? in.any() : double(in.number(3 * std::max(width, height))) - std::max(width, height);
        const int targetWidth = in.number(600) - 50, targetHeight = in.number(600) - 50;  // some zero or negative
        const int channels = in.next() % 6;  // 0 and 5 are refused
        // half the time an outline too: the finder's own when it gave one, or points from the bytes
        double outline[4][2 * PTCV_SIDE_POINTS];
        const int curves = in.next() % 4;
        for (auto &side : outline)
            for (double &c : side) c = in.next() % 8 == 0 ? in.any() : double(in.number(3 * std::max(width, height))) - std::max(width, height);
        if (curves == 1 && status == 0 && result.outlined) std::memcpy(outline, result.outline, sizeof outline);
        cv::Mat target(std::max(1, targetHeight), std::max(1, targetWidth), CV_8UC4);
        const cv::Mat source = words ? pixels : rgb;
        const int sourceChannels = words ? 4 : 3;
        ptcv_warp_sheet(source.data, width, height, int(source.step), std::min(channels, sourceChannels), corners,
                        curves >= 2 ? nullptr : &outline[0][0], target.data, targetWidth, targetHeight, int(target.step), error, sizeof error);
    }
    return 0;
}
