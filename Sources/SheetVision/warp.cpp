// The sheet's perspective undone (sheet_vision.h, ptcv_warp_sheet): OpenCV's warpPerspective onto a
// target the size of the page, so that only the page's pixels are computed. Leptonica's projective
// transform, which find_page used before, computes an image the size of the whole photo and then
// crops it: a 12-megapixel photo cost 12 megapixels of interpolation whatever the sheet's size.
// A sheet whose sides bow or curl (an outline) is warped in two steps per target pixel: a Coons patch
// in the perspective-undone page (each side's curve laid straight along the target's edge, the
// interior between them blended), then the perspective; computed in strips of rows (on OpenCV's
// threads), so that the maps OpenCV's remap reads stay small.
#include "sheet_vision.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <utility>
#include <vector>

namespace {

/// A curve's offset from a straight edge as a function of the position along it, sampled at every
/// whole position 0 ... count - 1: linear between the points given (position, offset), each end's
/// offset carried on beyond it.
std::vector<float> offsets(std::vector<std::pair<double, double>> points, int count) {
    std::sort(points.begin(), points.end());
    std::vector<float> out(size_t(std::max(count, 1)));
    size_t k = 0;
    for (int at = 0; at < count; at++) {
        while (k + 1 < points.size() && points[k + 1].first < at) k++;
        const auto &[x0, y0] = points[k];
        if (k + 1 >= points.size() || at <= x0) {
            out[size_t(at)] = float(at <= x0 ? points.front().second : points.back().second);
            continue;
        }
        const auto &[x1, y1] = points[k + 1];
        out[size_t(at)] = float(y0 + (y1 - y0) * (at - x0) / std::max(1e-9, x1 - x0));
    }
    return out;
}

/// `from` warped onto `to` between the four curves of `outline` (sheet_vision.h), corners `quad`:
/// each target pixel (x, y) is first moved by the Coons patch of the four sides' offsets from the
/// target's edges (in the perspective-undone page), then taken through the perspective to the photo.
bool warpOutlined(const cv::Mat &from, cv::Mat &to, const cv::Point2f quad[4], const cv::Point2f page[4], const double *outline) {
    const int width = to.cols, height = to.rows;
    const cv::Mat toPage = cv::getPerspectiveTransform(quad, page), toPhoto = cv::getPerspectiveTransform(page, quad);
    std::vector<cv::Point2f> curve(4 * PTCV_SIDE_POINTS), onPage;
    for (size_t i = 0; i < curve.size(); i++) curve[i] = cv::Point2f(float(outline[2 * i]), float(outline[2 * i + 1]));
    cv::perspectiveTransform(curve, onPage, toPage);
    for (const cv::Point2f &p : onPage)
        if (!std::isfinite(p.x) || !std::isfinite(p.y)) return false;
    // per side, the curve's offset from the target's edge along it: top and bottom as a function of
    // x, the right and left sides of y
    std::vector<std::pair<double, double>> top, right, bottom, left;
    for (int j = 0; j < PTCV_SIDE_POINTS; j++) {
        const cv::Point2f t = onPage[size_t(j)], r = onPage[size_t(PTCV_SIDE_POINTS + j)],
                          b = onPage[size_t(2 * PTCV_SIDE_POINTS + j)], l = onPage[size_t(3 * PTCV_SIDE_POINTS + j)];
        top.emplace_back(t.x, t.y);
        right.emplace_back(r.y, r.x - width);
        bottom.emplace_back(b.x, b.y - height);
        left.emplace_back(l.y, l.x);
    }
    const std::vector<float> dyTop = offsets(top, width), dyBottom = offsets(bottom, width), dxLeft = offsets(left, height),
                             dxRight = offsets(right, height);
    const double *m = toPhoto.ptr<double>();
    constexpr int STRIP = 64;  // rows at a time: two float maps of 64 rows, not of the whole page
    // the strips side by side on OpenCV's threads, as warpPerspective's rows are
    cv::parallel_for_(cv::Range(0, (height + STRIP - 1) / STRIP), [&](const cv::Range &strips) {
        cv::Mat mapX(STRIP, width, CV_32F), mapY(STRIP, width, CV_32F);
        for (int strip = strips.start; strip < strips.end; strip++) {
            const int first = strip * STRIP, rows = std::min(STRIP, height - first);
            for (int r = 0; r < rows; r++) {
                const int y = first + r;
                const float v = float(y) / float(height);
                float *xs = mapX.ptr<float>(r), *ys = mapY.ptr<float>(r);
                for (int x = 0; x < width; x++) {
                    const float u = float(x) / float(width);
                    const double px = x + (1 - u) * dxLeft[size_t(y)] + u * dxRight[size_t(y)];
                    const double py = y + (1 - v) * dyTop[size_t(x)] + v * dyBottom[size_t(x)];
                    const double w = m[6] * px + m[7] * py + m[8];
                    xs[x] = float((m[0] * px + m[1] * py + m[2]) / w);
                    ys[x] = float((m[3] * px + m[4] * py + m[5]) / w);
                }
            }
            cv::Mat band = to.rowRange(first, first + rows);
            cv::remap(from, band, mapX.rowRange(0, rows), mapY.rowRange(0, rows), cv::INTER_LINEAR, cv::BORDER_REPLICATE);
        }
    });
    return true;
}

}  // namespace

int ptcv_warp_sheet(const unsigned char *source, int source_width, int source_height, int source_stride,
                    int channels, const double corners[8], const double *outline, unsigned char *target,
                    int target_width, int target_height, int target_stride, char *error, size_t error_size) {
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
        if (outline) {
            if (!warpOutlined(from, to, quad, page, outline)) return fail("an outline whose points are not all numbers in the page");
        } else {
            const cv::Mat transform = cv::getPerspectiveTransform(quad, page);
            cv::warpPerspective(from, to, transform, to.size(), cv::INTER_LINEAR, cv::BORDER_REPLICATE);
        }
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
