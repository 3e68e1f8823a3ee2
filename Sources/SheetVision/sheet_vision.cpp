// The sheet finder's OpenCV half (issue 42), ported from the research prototype
// bench/sheet_prototype.py, which stays the reference: the same steps in the same order, the same
// constants, and where numpy computed in 32-bit floats this does too (the thresholds see the same
// numbers), so that both find the same candidates and take the same one. Since the port, these
// things here are not in the prototype: Lab is computed here (labOf) rather than by OpenCV's 8-bit
// conversion, whose first use costs a process 120-200 ms (the two differ by a step of 255 in some
// pixels); nothing is taken when the best candidate may be printed on a larger sheet
// (framedByMore); a side is moved out over a band of sheet printed along it (extend), the band's
// outer edge stepping as the sheet's other sides do or, a dark header on a lighter table, the other
// way, or else the nearest edge either way, a red header on a red checked cloth (overBand; sought
// from nearer where the side steps the other way), the widened sheet taken when nearly convincing
// (a band along the frame) and nearly as well supported as the one chosen, or, with a thin margin
// of paper beyond the band, however well the one chosen scored (marginBeyondBand); a
// candidate whose proportions are no paper's gives way to a larger one around it (choose, asking
// the caller's geometry); a side counts a step below STEP where the colours either side of it are
// quiet (QUIET, ABOVE_NOISE: white paper on a white table steps by 5-10, wood grain by as much);
// the strongest 60 merged lines make quadrilaterals, not 30 (a page's text lines outnumber its
// faint sides); one side without an edge counts by its crease where the other three are edges and
// the sides meeting it turn there (or meet the frame just past it), one of them a clear edge up to
// it (foldShare: a notepad's or book's binding, a card's shadow on a white table); a convincing
// candidate framing the best one is taken instead of nothing (choose); a side's points where a pen
// or a thumb lies across it (occluded: unlike the paper and the table either side, the side showing
// before and after it) count neither for it nor against it, nor do a pen's steps, far larger than
// the side's own, count in how consistently the side steps one way; the print's outline swept
// out to the sheet's faint edges is a candidate too (inkCandidates: a receipt on a white table),
// the print run together across wider gaps as well (a letter's heading, body and boxes); a side of
// the one taken that is no real edge is moved out to a better edge beyond it (outToEdge: a
// receipt's faint foot below its last line of print); the sides taken are moved out to enclose the
// edges they were fitted to (refine's envelope), so that a torn, wavy or bowed side is not cut
// through; and a side that bows or curls is followed as a curve (bends, outlineOf: a sheet lifted
// at its corners, a book's page curving into its binding), its corners where the curves meet, the
// edge traced by its lightness or, for a coloured band along it, by its chroma (edgeTrace); and the
// one taken is joined with a convincing one beside it in line, the two split by a band across the
// sheet, or with one whose only weak side is along it where the whole is convincing, the two split
// by a crease (join); a larger convincing one carrying the best on across one side, its sides
// running on past a crease, holds it whatever its score (carriedOn); and a side whose edge runs on
// past both its corners with the same step in lightness alone, a shadow's edge crossing table and
// sheet alike, is no side (crossesPhoto); a side along which a book's page block shows (the lit
// edges of the pages under the top one; opposite the binding, a plain band in the page's shade) is
// moved in to the top page's edge (topPage, pageBlock, blockBand); and a corner where a side curls
// into a book's binding, its last drop running down along it, is at the drop's foot, where the
// facing page begins (curlFeet), or, where the facing page is beside the crossing, where the page
// begins inside the binding (foldFeet); a weak side bowing out of the frame between its corners (a
// book's page sagging below it) is judged along the curve it follows (outOfFrame), traced up to
// the frame and on past it as the side itself (pastTheFrame), and a binding's crease is sought a
// few pixels either side of a side fitted to its flank (judge); and nothing is taken where the one
// chosen, joined and moved out, is still part of a larger sheet: far darker along one side than
// beyond it, as a printed stripe is than paper, or with a dark band along one side and paper again
// beyond it, and an edge running on past that side's corners (partOfLarger: a white card's stripe,
// or a letter's part below a dark bar across it, the sheet's own outline too faint on a white
// table); and a blank page chosen gives way to a printed one beside it across its fold
// (printedBeside: a notepad's blank facing page, lit more evenly than the page written on).
// The photo comes whole (leptonica's pixels) and is reduced here as the prototype's decoder reduced
// it (workingImage); decoding, EXIF, proportions and snapping are the Swift side's.
//
// 1. Photo: the working image smoothed, in Lab, grey and its gradients; a quarter-size Lab copy and
//    texture for comparing regions; where print is.
// 2. Candidates, as quadrilaterals in working pixels: Canny edges at three scales, LSD lines paired
//    into quadrilaterals, the outline of the bright, colourless region, and the print's outline
//    swept out to the first edge beyond each of its sides.
// 3. Each judged by the colour step along its four sides (one of them may be a fold instead); the
//    best REFINED refitted to the edges.
// 4. The best convincing one chosen (or a larger one holding it, or a convincing one framing it;
//    none when it may be printed on a larger sheet; when it is a blank page, a printed one beside
//    it across its fold), refined, joined with a convincing one in line
//    beside it across a band (or its other part beyond a crease), its weak sides moved out to a
//    better edge beyond, moved out over any band of sheet along a side (nothing taken when it
//    is still part of a larger sheet), each side moved out to the edge's outermost stretch,
//    moved in to the top page where a book's page block shows along it, and widened by MARGIN.
// 5. Its sides traced inward for a bow or curl: where one strays from its chord, the cut's outline
//    follows the curves (the result's `outline`, which ptcv_warp_sheet follows in warp.cpp), its
//    corners where they cross or at the foot of a curl into a binding.
//
// Thread-safe: every call works on its own Photo; nothing here is global and mutable. The line
// segments are sought beside the edges and the region (OpenCV's thread pool, two cores here): they
// take as long as the other two together.
#include "sheet_vision.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <malloc.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <mutex>
#include <new>
#include <numeric>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

constexpr double MIN_AREA = 0.05;  // a sheet covers at least this share of the photo
constexpr double STEP = 10.0;      // colour difference across a side (Lab, OpenCV's 8-bit scale) that always counts as an edge
constexpr double CHROMA = 0.5;     // what a unit of Lab's a or b counts for in an edge, against one of grey (colourGradient)
constexpr double QUIET = 5.0;      // the least step that counts, where the colours either side hardly vary along the side
constexpr double ABOVE_NOISE = 4;  // ... and how many times that variation the step must be
constexpr float EDGE = 12.0f;      // the least gradient (Sobel 3x3 on 0-255: Photo::gx, gy) across a side where it is an edge
constexpr int NEAR = 4, FAR = 10;  // the strips each side of an edge, in working pixels from it
constexpr double REACH = 0.012;    // how far (share of the diagonal) a side may move when refitted to the edge
constexpr size_t REFINED = 8;      // how many of the best candidates are refined
constexpr double ACCEPT = 0.7;     // the least score taken as a sheet
constexpr double HOLD = 0.15;      // how much weaker the evidence of a larger candidate holding the best one may be
constexpr double FRAMED = 0.6;     // a side with this much support is drawn by a real edge (a candidate framing the one chosen)
constexpr double BEYOND = 0.12;    // how far outside a side (share of the diagonal) a band of sheet along it is sought
constexpr double CONTINUED = 0.5;  // the share of a band's end along which a neighbouring side's edge must run on
constexpr int SHIFT = 6;           // how far either side of a line (working pixels) an edge running on along it is sought
constexpr double SHADE = 0.6;       // a shadow's edge: the darker side at least this share of the lighter's lightness, the same colour
constexpr double MARGIN = 0.003;   // the cut is widened by this share of the diagonal: a sliver of table over a sliver of sheet
constexpr size_t LINES_KEPT = 60;  // the strongest merged lines that quadrilaterals are made of
constexpr size_t LINE_QUADS = 24;  // the most quadrilaterals taken from lines
constexpr size_t RUN = 5;          // edge points (2 px apart) in a row that make a stretch of edge, not a speck
constexpr double SWEEP = 0.15;     // how far (share of the diagonal) a side of the print is swept out to the sheet's edge
constexpr float NOISE = 4.0f;      // ... where the gradient across it stands this many times above its median along the way
constexpr float BAND_DROP = 40;    // ... past a band of print darker than the paper by this much (grey levels) that the paper follows
constexpr double INK = 12;         // how much darker than its surroundings (grey levels) print is
constexpr double RUNS_ON = 0.7;    // a side's edge carried on past a fold runs on straight when this much of it shows
constexpr double BOW = 0.005;       // a side is followed as a curve where its edge strays this far (share of the diagonal) from its chord
constexpr double BOW_REACH = 0.07; // ... sought this far (share of the diagonal) inside the straight side
constexpr double ROUNDED = 0.05;   // ... its ends (this share of it at each) left out: rounded or dog-eared corners
constexpr size_t CONTINUOUS = 8;   // ... where the edge runs on unbroken for this many points 2 px apart
constexpr double COLOUR_STEP = 20; // ... or where its chroma (a, b of Lab from grey) falls outward this much
constexpr double BLOCK = 0.06;     // how far inside a side (share of the diagonal) a page block's fore-edge is sought
constexpr int BLOCK_LINES = 3;     // ... its lit page edges, at least this many
constexpr double TURN = 0.5;       // ... turning from the straight side at most this steeply (rise over run)
constexpr double STRIDE = 0.03;    // the steps (share of the diagonal) a side's edge is followed on in (followed)
constexpr double CURL = 0.2;       // a side curling into a corner: its last stretch turning in at least this steeply
constexpr int DEEP = 3 * FAR;      // how deep a band inside and outside a side is compared for print on paper (part of a larger sheet)
constexpr double AGAIN = 0.9;      // ... or paper again beyond a dark band outside it: at least this share of its own paper's lightness
constexpr double OUT_OF_FRAME = 0.04;  // a weak side bowing out of the frame, followed as a curve this far (share of the diagonal) off it
constexpr double ON_CHORD = 0.25;      // ... on its chord (within 3 px) or past the frame along at least this share of it
constexpr double PAST_FRAME = 0.05;    // ... past the frame along at least this share of it

constexpr double OCCLUDER = 20;    // how unlike both the paper and the table (Lab) a pen or a thumb over a side is
constexpr double HIDDEN = 0.6;     // ... the most of a side it may hide (a thumb and its shadow over a card's short side)
constexpr double OUTLIER = 4;      // ... its steps across the side, this many times the side's own median step
constexpr double BLANK = 0.01;     // a page with less of its middle in print (Photo::ink) than this is blank
constexpr double PRINTED = 0.05;   // ... and one with this much or more is printed
constexpr double PI = CV_PI;
double radians(double degrees) { return degrees * PI / 180; }

// --- geometry ----------------------------------------------------------------------------------------

using Point = cv::Point2d;
using Quad = std::array<Point, 4>;

/// a x + b y = c, with (a, b) a unit normal.
struct Line {
    double a, b, c;
};

Point centreOf(const Quad &q) {
    return Point((((q[0].x + q[1].x) + q[2].x) + q[3].x) / 4, (((q[0].y + q[1].y) + q[2].y) + q[3].y) / 4);
}

double dot(Point u, Point v) { return u.x * v.x + u.y * v.y; }

/// Clockwise (y down) from the corner nearest the top left.
Quad order(const Quad &q) {
    const Point c = centreOf(q);
    std::array<int, 4> index = {0, 1, 2, 3};
    std::array<double, 4> angle;
    for (int i = 0; i < 4; i++) angle[i] = std::atan2(q[i].y - c.y, q[i].x - c.x);
    std::stable_sort(index.begin(), index.end(), [&](int i, int j) { return angle[i] < angle[j]; });
    int first = 0;
    for (int i = 1; i < 4; i++)
        if (q[index[i]].x + q[index[i]].y < q[index[first]].x + q[index[first]].y) first = i;
    Quad out;
    for (int i = 0; i < 4; i++) out[i] = q[index[(first + i) % 4]];
    return out;
}

/// The distance of `p` from the line `l`.
double distanceFrom(const Line &l, Point p) { return std::abs(l.a * p.x + l.b * p.y - l.c) / std::max(1e-9, std::hypot(l.a, l.b)); }

/// Where two lines meet; none when they are parallel.
std::optional<Point> intersect(const Line &l1, const Line &l2) {
    const double det = l1.a * l2.b - l2.a * l1.b;
    if (std::abs(det) < 1e-9) return std::nullopt;
    return Point((l1.c * l2.b - l2.c * l1.b) / det, (l1.a * l2.c - l2.a * l1.c) / det);
}

Line lineThrough(Point p, Point q) {
    const Point d = q - p;
    double length = std::hypot(d.x, d.y);
    if (length == 0) length = 1;
    const double a = -d.y / length, b = d.x / length;
    return {a, b, a * p.x + b * p.y};
}

/// Whether `p` and `r` lie within `tolerance` of the lines of the two sides of `q` flanking side `s`:
/// `p` on the one ending at corner s, `r` on the one starting at corner s + 1 (each carried on).
bool onFlanks(const Quad &q, int s, Point p, Point r, double tolerance) {
    return distanceFrom(lineThrough(q[(s + 3) % 4], q[s]), p) <= tolerance &&
           distanceFrom(lineThrough(q[(s + 2) % 4], q[(s + 1) % 4]), r) <= tolerance;
}

/// The corners where consecutive lines meet (corner i on lines i - 1 and i), or none.
std::optional<Quad> cornersOf(const std::array<Line, 4> &lines) {
    Quad out;
    for (int i = 0; i < 4; i++) {
        const auto corner = intersect(lines[(i + 3) % 4], lines[i]);
        if (!corner) return std::nullopt;
        out[i] = *corner;
    }
    return out;
}

/// The unit normal of the side from `a` to `b`, pointing away from `centre`.
Point outwardNormal(Point a, Point b, Point centre) {
    const double length = std::max(1e-9, std::hypot(b.x - a.x, b.y - a.y));
    Point n(-(b.y - a.y) / length, (b.x - a.x) / length);
    return dot(n, (a + b) / 2 - centre) < 0 ? -n : n;
}

/// The unit normal of side `side` of `q`, pointing away from its centre.
Point outwardNormal(const Quad &q, int side) { return outwardNormal(q[side], q[(side + 1) % 4], centreOf(q)); }

/// `q` with side `side` moved out (away from the centre; in where negative) by `by` pixels, in
/// parallel, its corners where the neighbouring sides meet it; none where they do not.
std::optional<Quad> movedOut(const Quad &q, int side, double by) {
    const Point a = q[side], b = q[(side + 1) % 4], n = outwardNormal(q, side);
    std::array<Line, 4> lines;
    for (int k = 0; k < 4; k++) lines[k] = lineThrough(q[k], q[(k + 1) % 4]);
    lines[side] = lineThrough(a + n * by, b + n * by);
    const auto moved = cornersOf(lines);
    if (!moved) return std::nullopt;
    return order(*moved);
}

bool convex(const Quad &q) {
    int positive = 0, negative = 0;
    for (int i = 0; i < 4; i++) {
        const Point a = q[i], b = q[(i + 1) % 4], c = q[(i + 2) % 4];
        const double s = (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x);
        positive += s > 0;
        negative += s < 0;
    }
    return positive == 4 || negative == 4;
}

/// As the prototype measured it: OpenCV's area of the corners in 32-bit floats.
double area(const Quad &q) {
    std::vector<cv::Point2f> points;
    for (const Point &p : q) points.emplace_back(float(p.x), float(p.y));
    return std::abs(cv::contourArea(points));
}

/// Shape tests every candidate must pass: convex, big enough, no corner far outside the photo,
/// no side too short, no angle a sheet in perspective would not show.
bool plausible(const Quad &q, int w, int h) {
    const double diagonal = std::hypot(w, h);
    if (!convex(q) || area(q) < MIN_AREA * w * h) return false;
    const double margin = 0.02 * diagonal;
    for (const Point &p : q)
        if (p.x < -margin || p.x > w - 1 + margin || p.y < -margin || p.y > h - 1 + margin) return false;
    for (int i = 0; i < 4; i++) {
        const Point d = q[i] - q[(i + 1) % 4];
        if (std::hypot(d.x, d.y) < 0.05 * diagonal) return false;
    }
    for (int i = 0; i < 4; i++) {
        const Point u = q[(i + 3) % 4] - q[i], v = q[(i + 1) % 4] - q[i];
        double lengths = std::hypot(u.x, u.y) * std::hypot(v.x, v.y);
        if (lengths == 0) lengths = 1;
        const double angle = std::acos(std::max(-1.0, std::min(1.0, dot(u, v) / lengths))) * 180 / PI;
        if (angle < 35 || angle > 145) return false;
    }
    return true;
}

/// Every corner of each lies within `tolerance` of the other's.
bool same(const Quad &a, const Quad &b, double tolerance) {
    double worst = 0;
    for (int i = 0; i < 4; i++) worst = std::max(worst, std::hypot(a[i].x - b[i].x, a[i].y - b[i].y));
    return worst < tolerance;
}

// --- small numerics as numpy does them ---------------------------------------------------------------

/// np.median of 32-bit values: the middle one, or the mean of the middle two.
float median(std::vector<float> values) {
    const size_t n = values.size(), half = n / 2;
    std::nth_element(values.begin(), values.begin() + half, values.end());
    const float upper = values[half];
    if (n % 2) return upper;
    const float lower = *std::max_element(values.begin(), values.begin() + half);
    return (lower + upper) / 2;
}

/// OpenCV's default border for 3x3 filters (BORDER_REFLECT_101): the row or column next to the
/// edge, mirrored.
int reflected(int i, int n) { return i < 0 ? 1 : i >= n ? n - 2 : i; }

/// The columns left and right of each of a `w`-wide image's, as reflected() takes them.
std::pair<std::vector<int>, std::vector<int>> columnsBeside(int w) {
    std::pair<std::vector<int>, std::vector<int>> out{std::vector<int>(static_cast<size_t>(w)), std::vector<int>(static_cast<size_t>(w))};
    for (int x = 0; x < w; x++) {
        out.first[size_t(x)] = reflected(x - 1, w);
        out.second[size_t(x)] = reflected(x + 1, w);
    }
    return out;
}

/// Sobel 3x3 of an 8-bit image across x and y at column `x` of row `g1`, `g0` and `g2` the rows above
/// and below, `a` and `b` the columns left and right: whole numbers, as cv::Sobel's to the bit.
std::pair<int, int> sobelAt(const uchar *g0, const uchar *g1, const uchar *g2, int a, int x, int b) {
    return {(g0[b] - g0[a]) + 2 * (g1[b] - g1[a]) + (g2[b] - g2[a]), (g2[a] + 2 * g2[x] + g2[b]) - (g0[a] + 2 * g0[x] + g0[b])};
}

/// numpy's percentile (linear, `share` of the way) of Canny's own L1 gradient of `grey`, |Sobel x| +
/// |Sobel y|: whole numbers up to 2,040, counted rather than sorted as floats, which took three
/// float images of the photo and a copy of one (the same value to the bit).
double gradientPercentile(const cv::Mat &grey, double share) {
    const int w = grey.cols, h = grey.rows;
    const auto beside = columnsBeside(w);
    const std::vector<int> &left = beside.first, &right = beside.second;
    std::vector<size_t> counts(2 * 4 * 255 + 1);
    for (int y = 0; y < h; y++) {
        const uchar *g0 = grey.ptr<uchar>(reflected(y - 1, h)), *g1 = grey.ptr<uchar>(y), *g2 = grey.ptr<uchar>(reflected(y + 1, h));
        for (int x = 0; x < w; x++) {
            const auto [sx, sy] = sobelAt(g0, g1, g2, left[size_t(x)], x, right[size_t(x)]);
            counts[size_t(std::abs(sx) + std::abs(sy))]++;
        }
    }
    const size_t n = size_t(w) * size_t(h);
    const double rank = share * double(n - 1);
    const size_t below = size_t(std::floor(rank));
    const double t = rank - double(below);
    // the values that sorting would put at `below` and just after it
    size_t before = 0, value = 0;
    while (before + counts[value] <= below) before += counts[value++];
    const double a = double(value);
    if (below + 1 >= n) return a;
    if (before + counts[value] <= below + 1)
        do value++;
        while (counts[value] == 0);
    const double b = double(value);
    // numpy's lerp, which measures from the nearer end
    return t >= 0.5 ? b - (b - a) * (1 - t) : a + (b - a) * t;
}

/// Each channel divided, as numpy divides 32-bit floats (cv::Vec's own division multiplies by the
/// reciprocal, which rounds differently).
cv::Vec3f divided(cv::Vec3f v, float by) { return cv::Vec3f(v[0] / by, v[1] / by, v[2] / by); }

/// np.linspace(start, stop, count).
std::vector<double> linspace(double start, double stop, int count) {
    std::vector<double> out(count);
    const double step = (stop - start) / (count - 1);
    for (int i = 0; i < count; i++) out[i] = start + i * step;
    out[count - 1] = stop;
    return out;
}

// --- the photo ---------------------------------------------------------------------------------------

/// The tables labOf works from, built once per process (in well under a millisecond) and never
/// changed after.
struct LabTables {
    // Lab's f(t) on [0, 1], interpolated between CUBE_STEPS + 1 values: the error is far below an
    // 8-bit step even where the cube root bends most
    static constexpr int CUBE_STEPS = 8192;
    std::array<float, CUBE_STEPS + 2> cube;
    // each 8-bit sRGB channel's share of X / Xn, Y and Z / Zn (D65), in linear light
    std::array<std::array<float, 256>, 3> x, y, z;

    LabTables() {
        constexpr double KNEE = 216.0 / 24389;  // (6/29)^3: below it f is linear
        for (int i = 0; i <= CUBE_STEPS + 1; i++) {
            const double t = double(i) / CUBE_STEPS;
            cube[i] = float(t > KNEE ? std::cbrt(t) : t * 24389 / 3132 + 16.0 / 116);
        }
        constexpr double XN = 0.950456, ZN = 1.088754;
        constexpr double m[3][3] = {{0.412453 / XN, 0.357580 / XN, 0.180423 / XN},
                                    {0.212671, 0.715160, 0.072169},
                                    {0.019334 / ZN, 0.119193 / ZN, 0.950227 / ZN}};
        for (int i = 0; i < 256; i++) {
            const double c = i / 255.0, linear = c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
            for (int channel = 0; channel < 3; channel++) {
                x[channel][i] = float(m[0][channel] * linear);
                y[channel][i] = float(m[1][channel] * linear);
                z[channel][i] = float(m[2][channel] * linear);
            }
        }
    }

    float f(float t) const {
        const float at = std::clamp(t, 0.0f, 1.0f) * CUBE_STEPS;
        const int i = int(at);
        return cube[i] + (cube[i + 1] - cube[i]) * (at - float(i));
    }
};

/// CIE Lab (D65) of 8-bit sRGB on OpenCV's 8-bit scale (L * 255 / 100, a + 128, b + 128), rounded.
/// OpenCV's own 8-bit conversion builds a large table in emulated floating point the first time a
/// process uses it (about 120-200 ms, paid once per photo from the command line); this computes the
/// same quantities from 256-entry tables of each channel's share of X, Y and Z and a table of the
/// cube root, in a few milliseconds. OpenCV's values come from interpolating a coarse table, so about
/// one value in ten differs from these by one step; that is far below STEP.
cv::Mat labOf(const cv::Mat &rgb) {
    static const LabTables tables;  // initialised once, thread-safely; read-only after
    cv::Mat out(rgb.size(), CV_8UC3);
    // rows shared among OpenCV's threads, as its own cvtColor does
    cv::parallel_for_(cv::Range(0, rgb.rows), [&](const cv::Range &rows) {
        for (int row = rows.start; row < rows.end; row++) {
            const uchar *in = rgb.ptr<uchar>(row);
            uchar *o = out.ptr<uchar>(row);
            for (int col = 0; col < rgb.cols; col++, in += 3, o += 3) {
                const uchar r = in[0], g = in[1], b = in[2];
                const float fx = tables.f(tables.x[0][r] + tables.x[1][g] + tables.x[2][b]);
                const float fy = tables.f(tables.y[0][r] + tables.y[1][g] + tables.y[2][b]);
                const float fz = tables.f(tables.z[0][r] + tables.z[1][g] + tables.z[2][b]);
                o[0] = cv::saturate_cast<uchar>((116 * fy - 16) * 255 / 100);
                o[1] = cv::saturate_cast<uchar>(500 * (fx - fy) + 128);
                o[2] = cv::saturate_cast<uchar>(200 * (fy - fz) + 128);
            }
        }
    });
    return out;
}

/// The gradient (`gx`, `gy`, Sobel 3x3) where an edge is sought: of `grey`; and where grey shows
/// none (less than EDGE), of the a or the b of `lab` (CV_32FC3, OpenCV's 8-bit scale) weighted by
/// CHROMA, where that is stronger. Two colours can be equally light: a red header (200, 40, 30) is as
/// grey as a brown table beside it, its outer edge no grey edge at all, and the sheet was cut along
/// the header's inner edge, the header lost (34 of 240 drawn headed sheets were cut into, most of
/// them so). Only where grey shows no edge: a lightness edge as it was is not traded for its colour's
/// noise. Weighted by half: at full weight, a white page's edge on brown wood counted a pixel or two
/// further off its line, in the chroma's tail, and an open notepad's top, carried on past its fold
/// along the facing page's top (collinear within 11 px), ran on there (0.73 of it, 0.70 the least),
/// and the fold was no side. In one pass over the image: twice as fast as OpenCV's Sobel on each
/// channel with whole-image masks, and without their 5 MB of temporary images.
void colourGradient(const cv::Mat &grey, const cv::Mat &lab, cv::Mat &gx, cv::Mat &gy) {
    const int w = grey.cols, h = grey.rows;
    gx.create(h, w, CV_32F);
    gy.create(h, w, CV_32F);
    const auto beside = columnsBeside(w);
    const std::vector<int> &left = beside.first, &right = beside.second;
    // Grey and Lab's a and b (OpenCV's 8-bit scale) hold whole numbers, so these sums are exact, and
    // equal to the bit to what cv::Sobel makes of them in 32-bit floats
    cv::parallel_for_(cv::Range(0, h), [&](const cv::Range &rows) {
        for (int y = rows.start; y < rows.end; y++) {
            const uchar *g0 = grey.ptr<uchar>(reflected(y - 1, h)), *g1 = grey.ptr<uchar>(y), *g2 = grey.ptr<uchar>(reflected(y + 1, h));
            const cv::Vec3f *l0 = lab.ptr<cv::Vec3f>(reflected(y - 1, h)), *l1 = lab.ptr<cv::Vec3f>(y),
                            *l2 = lab.ptr<cv::Vec3f>(reflected(y + 1, h));
            float *ox = gx.ptr<float>(y), *oy = gy.ptr<float>(y);
            for (int x = 0; x < w; x++) {
                const int a = left[size_t(x)], b = right[size_t(x)];
                const auto [sx, sy] = sobelAt(g0, g1, g2, a, x, b);
                float fx = float(sx), fy = float(sy), magnitude = fx * fx + fy * fy;
                auto sobel = [&](int c, float &cx, float &cy) {
                    cx = (l0[b][c] - l0[a][c]) + 2 * (l1[b][c] - l1[a][c]) + (l2[b][c] - l2[a][c]);
                    cy = (l2[a][c] + 2 * l2[x][c] + l2[b][c]) - (l0[a][c] + 2 * l0[x][c] + l0[b][c]);
                };
                if (magnitude < EDGE * EDGE) {
                    for (int c = 1; c < 3; c++) {
                        float cx, cy;
                        sobel(c, cx, cy);
                        cx *= float(CHROMA);
                        cy *= float(CHROMA);
                        const float m = cx * cx + cy * cy;
                        if (m > magnitude) {
                            fx = cx;
                            fy = cy;
                            magnitude = m;
                        }
                    }
                }
                ox[x] = fx;
                oy[x] = fy;
            }
        }
    });
}

/// The working image and what every candidate's evidence is read from.
struct Photo {
    int w, h;
    double diagonal;
    cv::Mat lab;           // CV_32FC3, of the 3x3-smoothed image
    cv::Mat grey;          // CV_8U, of the 3x3-smoothed image
    cv::Mat gx, gy;        // CV_32F, Sobel 3x3 of grey, or of Lab's a or b where grey shows no edge (colourGradient)
    cv::Mat smallLab;      // lab at a quarter
    cv::Mat smallTexture;  // how much the grey level moves pixel to pixel (wood grain, cloth, print), at a quarter
    cv::Mat ink;           // CV_8U, 255 where grey is INK darker than the mean around it (print)

    explicit Photo(const cv::Mat &rgb) : w(rgb.cols), h(rgb.rows), diagonal(std::hypot(rgb.cols, rgb.rows)) {
        cv::Mat smooth;
        cv::GaussianBlur(rgb, smooth, cv::Size(3, 3), 0);
        labOf(smooth).convertTo(lab, CV_32F);
        cv::cvtColor(smooth, grey, cv::COLOR_RGB2GRAY);
        colourGradient(grey, lab, gx, gy);
        const cv::Size quarter(std::max(1, w / 4), std::max(1, h / 4));
        cv::resize(lab, smallLab, quarter, 0, 0, cv::INTER_AREA);
        cv::Mat laplacian;
        cv::Laplacian(grey, laplacian, CV_32F);
        cv::resize(cv::abs(laplacian), smallTexture, quarter, 0, 0, cv::INTER_AREA);
        const int block = std::max(15, std::min(w, h) / 20) | 1;
        cv::adaptiveThreshold(grey, ink, 255, cv::ADAPTIVE_THRESH_MEAN_C, cv::THRESH_BINARY_INV, block, INK);
    }

    /// Sobel 3x3 of `lab`'s lightness, across x and y (the polarity of a band's outer edge: outerEdge,
    /// blockBand), made the first time it is asked for: once the candidates are found, when what they
    /// took is free again (3.5 MB less at the finder's peak; two photos in three ask).
    const std::array<cv::Mat, 2> &lightnessGradient() const {
        std::call_once(lightnessMade, [this] {
            cv::Mat lightness;
            cv::extractChannel(lab, lightness, 0);
            cv::Sobel(lightness, lightnessSobel[0], CV_32F, 1, 0, 3);
            cv::Sobel(lightness, lightnessSobel[1], CV_32F, 0, 1, 3);
        });
        return lightnessSobel;
    }

  private:
    mutable std::once_flag lightnessMade;
    mutable std::array<cv::Mat, 2> lightnessSobel;
};

/// Bilinear samples of `image` at the points (mapX, mapY), as the prototype took them: cv::remap,
/// whose positions are quantised to 1/32 pixel, so plain bilinear sampling would differ slightly.
cv::Mat sample(const cv::Mat &image, const cv::Mat &mapX, const cv::Mat &mapY, int border) {
    cv::Mat out;
    cv::remap(image, out, mapX, mapY, cv::INTER_LINEAR, border, cv::Scalar());
    return out;
}

// --- evidence ----------------------------------------------------------------------------------------

struct SidePoints {
    std::vector<Point> points;
    Point normal;  // outward, unit
};

/// Points along the side p-q (its ends trimmed: corners are rounded, curled or covered) and the
/// outward unit normal.
SidePoints sideSamples(Point p, Point q, Point centre, double spacing = 4.0, double trim = 0.1) {
    const Point d = q - p;
    const double length = std::hypot(d.x, d.y);
    const int count = std::max(8, int(length * (1 - 2 * trim) / spacing));
    SidePoints out{{}, outwardNormal(p, q, centre)};
    for (double t : linspace(trim, 1 - trim, count)) out.points.push_back(p + t * d);
    return out;
}

/// Where to sample across a side: row r holds the points `first`, `first` + 1, ... `first` + `width` -
/// 1 pixels out along its outward normal (negative: in) from its point r, as 32-bit floats for remap.
void acrossSide(const SidePoints &side, int first, int width, cv::Mat &xs, cv::Mat &ys) {
    const int count = int(side.points.size());
    xs.create(count, width, CV_32F);
    ys.create(count, width, CV_32F);
    for (int r = 0; r < count; r++)
        for (int j = 0; j < width; j++) {
            xs.at<float>(r, j) = float(side.points[r].x + (first + j) * side.normal.x);
            ys.at<float>(r, j) = float(side.points[r].y + (first + j) * side.normal.y);
        }
}

/// `values` opened over `run` of them (the least in each window, then the most of those): a rise
/// narrower than that (a speck) is taken away, a wider one kept whole.
std::vector<double> opened(const std::vector<double> &values, size_t run) {
    const size_t count = values.size(), half = run / 2;
    auto window = [&](const std::vector<double> &v, size_t i, bool most) {
        const auto from = v.begin() + long(i >= half ? i - half : 0), to = v.begin() + long(std::min(count, i + half + 1));
        return most ? *std::max_element(from, to) : *std::min_element(from, to);
    };
    std::vector<double> eroded(count), out(count);
    for (size_t i = 0; i < count; i++) eroded[i] = window(values, i, false);
    for (size_t i = 0; i < count; i++) out[i] = window(eroded, i, true);
    return out;
}

/// The upper hull of `points` (in order of x): the polyline over them all that bends only downward.
std::vector<Point> upperHull(const std::vector<Point> &points) {
    std::vector<Point> hull;
    for (const Point &p : points) {
        while (hull.size() >= 2) {
            const Point a = hull[hull.size() - 2], b = hull.back();
            if ((b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x) < 0) break;  // b stays above the chord from a to p
            hull.pop_back();
        }
        hull.push_back(p);
    }
    return hull;
}

struct SideEvidence {
    double support;    // share of the side with a step across it, an edge along it and no printed line on it
    double step;       // median colour step across it
    double coherence;  // 1: always the same colour inside; a textured table gives about 0
};

/// The strips either side of an edge: STRIPS sample points at NEAR, NEAR + 2, ..., FAR pixels from it.
constexpr int STRIPS = (FAR - NEAR) / 2 + 1;

/// Row `row` of `xs` and `ys`: the points of the strip inside `p` (columns 0 to STRIPS - 1, against
/// the outward normal `n`) and of the strip outside it (the next STRIPS columns), as 32-bit floats
/// (the prototype handed remap those).
void setStrips(cv::Mat &xs, cv::Mat &ys, int row, const Point &p, const Point &n) {
    for (int j = 0; j < STRIPS; j++) {
        const double offset = NEAR + 2 * j;
        xs.at<float>(row, j) = float(p.x - offset * n.x);
        ys.at<float>(row, j) = float(p.y - offset * n.y);
        xs.at<float>(row, STRIPS + j) = float(p.x + offset * n.x);
        ys.at<float>(row, STRIPS + j) = float(p.y + offset * n.y);
    }
}

/// The colour step that counts as an edge along a side whose strips are rows `first` to `first + count
/// - 1` of `values` (evidence's layout): STEP, or less where the strips' colours are quiet along the
/// side (the median movement of each strip's mean colour from one point to the next, ABOVE_NOISE times
/// over), but never below QUIET. A white sheet on a white table steps by 5-10 with its colours either
/// side still; wood grain, cloth or print move by as much from point to point, and need STEP.
double stepNeeded(const cv::Mat &values, int first, int count) {
    constexpr int k = STRIPS;
    std::vector<float> moves;
    cv::Vec3f lastInside, lastOutside;
    for (int r = 0; r < count; r++) {
        const cv::Vec3f *v = values.ptr<cv::Vec3f>(first + r);
        cv::Vec3f inside(0, 0, 0), outside(0, 0, 0);
        for (int c = 0; c < k; c++) {
            inside += v[c];
            outside += v[k + c];
        }
        inside = divided(inside, float(k));
        outside = divided(outside, float(k));
        if (r > 0) {
            moves.push_back(float(cv::norm(inside - lastInside)));
            moves.push_back(float(cv::norm(outside - lastOutside)));
        }
        lastInside = inside;
        lastOutside = outside;
    }
    if (moves.empty()) return STEP;
    return std::clamp(ABOVE_NOISE * double(median(moves)), QUIET, STEP);
}

/// Which points of each side (evidence's rows, `counts` of them a side, in order) something lies
/// across, a pen or a thumb over the sheet's edge: the colours inside and outside the side both a
/// thing of their own, unlike the sheet's (the median inside all four sides) and the table's (the
/// median outside them) by OCCLUDER, and neither of those in shade (a shadow darkens what it falls
/// on, keeping its colour); for RUN points in a row or more, with the side's own edge showing
/// within RUN points before and after (a pen lies across the side; a band printed along it, or a
/// side running along some object, does not end so). Up to HIDDEN of a side; none of it where more
/// would be.
std::array<std::vector<bool>, 4> occluded(const cv::Mat &values, const std::array<int, 4> &counts) {
    constexpr int k = STRIPS;
    const int total = values.rows;
    std::vector<cv::Vec3f> inside(total), outside(total);
    std::array<std::array<std::vector<float>, 3>, 2> channels;
    for (int r = 0; r < total; r++) {
        const cv::Vec3f *v = values.ptr<cv::Vec3f>(r);
        cv::Vec3f in(0, 0, 0), out(0, 0, 0);
        for (int c = 0; c < k; c++) {
            in += v[c];
            out += v[k + c];
        }
        inside[r] = divided(in, float(k));
        outside[r] = divided(out, float(k));
        for (int c = 0; c < 3; c++) {
            channels[0][c].push_back(inside[r][c]);
            channels[1][c].push_back(outside[r][c]);
        }
    }
    std::array<std::vector<bool>, 4> hidden;
    if (total == 0) return hidden;
    const cv::Vec3f paper(median(channels[0][0]), median(channels[0][1]), median(channels[0][2]));
    const cv::Vec3f table(median(channels[1][0]), median(channels[1][1]), median(channels[1][2]));
    // a thing of its own: unlike either, nor either in shade (its colour, darker by no more than SHADE)
    auto thing = [&](const cv::Vec3f &c) {
        for (const cv::Vec3f &known : {paper, table}) {
            if (cv::norm(c - known) < OCCLUDER) return false;
            if (std::hypot(c[1] - known[1], c[2] - known[2]) < STEP && c[0] >= SHADE * known[0] && c[0] <= known[0]) return false;
        }
        return true;
    };
    auto across = [&](int r) { return thing(inside[r]) && thing(outside[r]); };
    // the sheet's side itself: neither colour a thing (paper or table, or either in shade)
    auto edgeAt = [&](int r) { return !thing(inside[r]) && !thing(outside[r]); };
    int first = 0;
    for (int i = 0; i < 4; i++) {
        const int count = counts[i];
        hidden[i].assign(count, false);
        auto edgeWithin = [&](int from, int to) {
            for (int m = std::max(0, from); m < std::min(count, to); m++)
                if (edgeAt(first + m)) return true;
            return false;
        };
        int share = 0;
        for (int r = 0; r < count;) {
            int end = r;
            while (end < count && across(first + end)) end++;
            // lying across the side, not along it: the side itself shows just before and just after
            if (end - r >= int(RUN) && edgeWithin(r - int(RUN), r) && edgeWithin(end, end + int(RUN))) {
                for (int m = r; m < end; m++) hidden[i][m] = true;
                share += end - r;
            }
            r = std::max(end, r + 1);
        }
        if (share > HIDDEN * count) hidden[i].assign(count, false);
        first += count;
    }
    return hidden;
}

/// Per side: the share of it with a colour step across it (inside against outside, STEP or more; where
/// the colour either side hardly moves along the side, ABOVE_NOISE times that movement, and at least
/// QUIET), the median step, and how consistently the step keeps one direction. Where something lies
/// across the side (occluded: a pen, a thumb), the points without a step are not seen either way:
/// the share is of the rest, and so is the direction, which also leaves out steps OUTLIER times the
/// median (a pen's body against the paper, every way round). Where the side runs along the frame,
/// inside the photo but with no table beyond it there (NEAR), it is not seen either way too: a
/// sheet touching the frame, or a header band along its top at the frame. A side seen along less
/// than half its length counts for no more than that half; where the side itself leaves the photo,
/// that stretch counts against it, as the sheet runs off the frame there.
std::array<SideEvidence, 4> evidence(const Photo &photo, const Quad &q) {
    const Point centre = centreOf(q);
    constexpr int k = STRIPS;
    constexpr int columns = 2 * k + 3;       // k inside, k outside, 3 on the side itself
    std::array<SidePoints, 4> sides;
    int total = 0;
    for (int i = 0; i < 4; i++) {
        sides[i] = sideSamples(q[i], q[(i + 1) % 4], centre);
        total += int(sides[i].points.size());
    }
    // Where to look, in 32-bit floats as the prototype handed them to remap.
    cv::Mat bothX(total, columns, CV_32F), bothY(total, columns, CV_32F);
    cv::Mat probeX(total, 5, CV_32F), probeY(total, 5, CV_32F);
    std::vector<cv::Point2f> normals;
    int row = 0;
    for (const SidePoints &side : sides) {
        const Point n = side.normal;
        for (const Point &p : side.points) {
            setStrips(bothX, bothY, row, p, n);
            for (int m = -1; m <= 1; m++) {
                bothX.at<float>(row, 2 * k + 1 + m) = float(p.x + m * n.x);
                bothY.at<float>(row, 2 * k + 1 + m) = float(p.y + m * n.y);
            }
            for (int c = -2; c <= 2; c++) {  // where the edge itself must be
                probeX.at<float>(row, c + 2) = float(p.x + c * n.x);
                probeY.at<float>(row, c + 2) = float(p.y + c * n.y);
            }
            normals.emplace_back(float(n.x), float(n.y));
            row++;
        }
    }
    const cv::Mat gx = sample(photo.gx, probeX, probeY, cv::BORDER_REPLICATE);
    const cv::Mat gy = sample(photo.gy, probeX, probeY, cv::BORDER_REPLICATE);
    const cv::Mat values = sample(photo.lab, bothX, bothY, cv::BORDER_REPLICATE);

    std::array<int, 4> counts;
    for (int i = 0; i < 4; i++) counts[i] = int(sides[i].points.size());
    const auto hiddenAt = occluded(values, counts);
    std::array<SideEvidence, 4> out;
    row = 0;
    for (int i = 0; i < 4; i++) {
        const int count = int(sides[i].points.size());
        int supported = 0;
        std::vector<cv::Vec3f> visibleDiffs;
        std::vector<float> visibleSteps;
        const double needed = stepNeeded(values, row, count);
        const std::vector<bool> &hidden = hiddenAt[i];
        int unseen = 0, atFrame = 0;
        for (int r = 0; r < count; r++, row++) {
            // an edge here: somewhere within 2 px of the side the gradient runs across it (within 30
            // degrees) and is strong; wood grain or a shadow crossing at an angle fails one or the other
            const cv::Point2f n = normals[row];
            bool aligned = false;
            for (int c = 0; c < 5; c++) {
                const float x = gx.at<float>(row, c), y = gy.at<float>(row, c);
                const float across = std::abs(x * n.x + y * n.y), along = std::abs(x * n.y - y * n.x);
                aligned = aligned || (across > 2 * along && across >= EDGE);
            }
            auto within = [&](int c) {
                const float x = bothX.at<float>(row, c), y = bothY.at<float>(row, c);
                return x >= 0 && x <= photo.w - 1 && y >= 0 && y <= photo.h - 1;
            };
            // near the frame only part of the outer strip is in the photo: its nearest sample will do
            bool visible = within(k);
            for (int c = 0; c < k; c++) visible = visible && within(c);
            for (int c = 2 * k; c < columns; c++) visible = visible && within(c);

            const cv::Vec3f *v = values.ptr<cv::Vec3f>(row);
            cv::Vec3f inside = v[0], outside(0, 0, 0);
            for (int c = 1; c < k; c++) inside += v[c];
            inside = divided(inside, float(k));
            float weight = 0;
            for (int c = k; c < 2 * k; c++) {
                const float w = within(c) ? 1.0f : 0.0f;
                outside += v[c] * w;
                weight += w;
            }
            outside = divided(outside, std::max(1.0f, weight));
            const cv::Vec3f diff = inside - outside;
            const float step = std::sqrt(diff[0] * diff[0] + diff[1] * diff[1] + diff[2] * diff[2]);
            // a printed or drawn line has paper on both sides and ink on it: on the side the colour
            // leaves the midway between inside and outside by more than the step itself
            const cv::Vec3f off = divided(v[2 * k] + v[2 * k + 1] + v[2 * k + 2], 3) - divided(inside + outside, 2);
            const float ridge = std::sqrt(off[0] * off[0] + off[1] * off[1] + off[2] * off[2]);

            const bool edge = visible && step >= needed && aligned && ridge < step;
            supported += edge;
            if (!visible && within(2 * k + 1)) {  // on the photo, along the frame: not seen, neither way
                atFrame++;
                continue;
            }
            if (!edge && hidden[r]) {  // something lies across the side here: not seen, neither way
                unseen++;
                continue;
            }
            if (visible) {
                visibleDiffs.push_back(diff);
                visibleSteps.push_back(step);
            }
        }
        const int seen = count - unseen - atFrame;
        out[i].support = seen == 0 ? 0 : double(supported) / seen * std::min(1.0, 2.0 * (count - atFrame) / count);
        out[i].coherence = out[i].step = 0;
        if (!visibleSteps.empty()) {
            out[i].step = median(visibleSteps);
            // how consistently it steps one way, leaving out steps many times the side's own: a pen
            // or a thumb crossing it steps far more than the side, every way
            cv::Vec3f diffSum(0, 0, 0);
            double stepSum = 0;
            for (size_t p = 0; p < visibleSteps.size(); p++) {
                if (out[i].step > 0 && visibleSteps[p] > OUTLIER * out[i].step) continue;
                diffSum += visibleDiffs[p];
                stepSum += visibleSteps[p];
            }
            out[i].coherence = stepSum == 0 ? 0 : cv::norm(diffSum) / stepSum;
        }
    }
    return out;
}

struct Candidate {
    Quad quad;
    Quad raw;  // the corners as found, before refining: how duplicates are recognised
    std::string source;
    std::array<double, 4> support;
    std::array<double, 4> step;
    double score;
    double area;  // share of the photo
    int fold = -1;  // the side that is a book's fold, not an edge (its support is the crease's)
    bool crossed = false;  // a side with an edge is a shadow's edge crossing the photo (its support 0)
    std::array<bool, 4> curved{};  // a side judged as a curve bowing out of the frame (outOfFrame)
};

// --- a side bowing out of the frame --------------------------------------------------------------------

cv::Mat smallMask(const Photo &photo, const Quad &q);
float medianLightness(const Photo &photo, const cv::Mat &mask);

/// Side `i` of `q` followed as a curve, per point 2 px apart from corner i to the next: what the
/// curve passes there (an edge, the frame: the curve runs past it, or neither) and its offset
/// (outward, px). The curve is the path within OUT_OF_FRAME of the diagonal either side of the
/// chord, moving sideways at most 2 px from one point to the next, that gains most: 8 for an edge,
/// 2 for a point past the frame no more than FAR beyond the chord (the frame close by: a sheet
/// sagging past it between corners near it, not a strip of table between the side and the frame),
/// less 1 for each pixel moved sideways (and an eighth of its offset at the start). An edge is a peak of the gradient across the side, falling outward by EDGE where
/// `falls` is 1 (the paper lighter than its surroundings; rising where -1), with the lightness NEAR
/// to FAR beyond it STEP below that before it, or the frame beyond it. A book's page whose bottom
/// sags below the frame between its corners shows its edge along the rest of the side, off the
/// chord, and then the frame.
struct CurvedSide {
    enum Kind { NOTHING, EDGE_SEEN, PAST };
    std::vector<Kind> kind;
    std::vector<int> offset;
};
CurvedSide curvedSide(const Photo &photo, const Quad &q, int i, float falls) {
    const SidePoints side = sideSamples(q[i], q[(i + 1) % 4], centreOf(q), 2.0, 0.0);
    const int reach = std::max(4, int(OUT_OF_FRAME * photo.diagonal));
    const int width = 2 * reach + 1, count = int(side.points.size());
    cv::Mat xs, ys;
    acrossSide(side, -reach, width, xs, ys);
    const cv::Mat gx = sample(photo.gx, xs, ys, cv::BORDER_REPLICATE), gy = sample(photo.gy, xs, ys, cv::BORDER_REPLICATE);
    const cv::Mat labs = sample(photo.lab, xs, ys, cv::BORDER_REPLICATE);
    const Point n = side.normal;
    auto onPhoto = [&](int r, int j) {
        const float x = xs.at<float>(r, j), y = ys.at<float>(r, j);
        return x >= 0 && y >= 0 && x <= photo.w - 1 && y <= photo.h - 1;
    };
    using Row = std::vector<CurvedSide::Kind>;
    std::vector<Row> kind(static_cast<size_t>(count), Row(static_cast<size_t>(width), CurvedSide::NOTHING));
    std::vector<float> response(static_cast<size_t>(width));
    for (int r = 0; r < count; r++) {
        for (int j = 0; j < width; j++)
            response[size_t(j)] = -falls * (gx.at<float>(r, j) * float(n.x) + gy.at<float>(r, j) * float(n.y));
        for (int j = 0; j < width; j++) {
            if (!onPhoto(r, j)) {
                if (j - reach <= FAR) kind[size_t(r)][size_t(j)] = CurvedSide::PAST;
                continue;
            }
            const float v = response[size_t(j)];
            if (j == 0 || j == width - 1 || v < EDGE || v < response[size_t(j - 1)] || v < response[size_t(j + 1)]) continue;
            std::vector<float> before, beyond;
            for (int o = std::max(0, j - FAR); o <= j - NEAR; o++) before.push_back(labs.at<cv::Vec3f>(r, o)[0]);
            for (int o = j + NEAR; o <= std::min(width - 1, j + FAR); o++)
                if (onPhoto(r, o)) beyond.push_back(labs.at<cv::Vec3f>(r, o)[0]);
            if (before.empty()) continue;
            if (beyond.empty() || falls * (median(before) - median(beyond)) >= float(STEP))
                kind[size_t(r)][size_t(j)] = CurvedSide::EDGE_SEEN;
        }
    }
    auto gain = [](CurvedSide::Kind k) { return k == CurvedSide::EDGE_SEEN ? 8 : k == CurvedSide::PAST ? 2 : 0; };
    std::vector<std::vector<int>> best(static_cast<size_t>(count), std::vector<int>(static_cast<size_t>(width))), from = best;
    for (int j = 0; j < width; j++) best[0][size_t(j)] = gain(kind[0][size_t(j)]) - std::abs(j - reach) / 8;
    for (int r = 1; r < count; r++)
        for (int j = 0; j < width; j++) {
            int most = std::numeric_limits<int>::min(), at = j;
            for (int k = std::max(0, j - 2); k <= std::min(width - 1, j + 2); k++)
                if (best[size_t(r - 1)][size_t(k)] - std::abs(k - j) > most) {
                    most = best[size_t(r - 1)][size_t(k)] - std::abs(k - j);
                    at = k;
                }
            best[size_t(r)][size_t(j)] = most + gain(kind[size_t(r)][size_t(j)]);
            from[size_t(r)][size_t(j)] = at;
        }
    CurvedSide out{std::vector<CurvedSide::Kind>(static_cast<size_t>(count)), std::vector<int>(static_cast<size_t>(count))};
    const auto &last = best[size_t(count - 1)];
    int j = int(std::max_element(last.begin(), last.end()) - last.begin());
    for (int r = count - 1; r >= 0; r--) {
        out.kind[size_t(r)] = kind[size_t(r)][size_t(j)];
        out.offset[size_t(r)] = j - reach;
        if (r > 0) j = from[size_t(r)][size_t(j)];
    }
    return out;
}

/// The share of the curve's points from `from` to `to` (shares of the side) that pass an edge,
/// those past the frame counting neither way, and a side mostly past the frame less: as evidence()
/// counts a side along the frame.
double curvedShare(const CurvedSide &c, double from, double to) {
    const int count = int(c.kind.size());
    int edges = 0, past = 0, all = 0;
    for (int r = int(from * (count - 1)); r <= int(to * (count - 1)); r++, all++) {
        edges += c.kind[size_t(r)] == CurvedSide::EDGE_SEEN;
        past += c.kind[size_t(r)] == CurvedSide::PAST;
    }
    const int seen = all - past;
    return seen <= 0 ? 0 : double(edges) / seen * std::min(1.0, 2.0 * seen / all);
}

/// `c` with what it passes for fewer than RUN points in a row taken for nothing: a curve along the
/// frame picking up specks of wood grain between stretches past it passes no sheet's edge.
CurvedSide inRuns(CurvedSide c) {
    const size_t count = c.kind.size();
    for (size_t r = 0; r < count;) {
        size_t end = r;
        while (end < count && c.kind[end] == c.kind[r]) end++;
        if (end - r < RUN)
            for (size_t k = r; k < end; k++) c.kind[k] = CurvedSide::NOTHING;
        r = end;
    }
    return c;
}

/// Side `i` of `q` as a curve bowing out of the frame between its corners (curvedSide, inRuns),
/// where it is one: its support (curvedShare, its ends trimmed as evidence() trims them). Both its
/// corners lie in the photo, and so do the curve's first and last fortieth (a sheet running off the
/// frame at a corner is no sheet to take: the photo lacks a corner); the curve runs past the frame
/// along PAST_FRAME of it or more, and lies on the chord or past the frame along ON_CHORD of its
/// middle (an edge further in, parallel to the side, is another candidate's).
std::optional<double> outOfFrame(const Photo &photo, const Quad &q, int i, float falls) {
    auto inPhoto = [&](Point p) { return p.x >= 0 && p.y >= 0 && p.x <= photo.w - 1 && p.y <= photo.h - 1; };
    if (!inPhoto(q[i]) || !inPhoto(q[(i + 1) % 4])) return std::nullopt;
    const CurvedSide c = inRuns(curvedSide(photo, q, i, falls));
    const size_t count = c.kind.size(), end = count / 40;
    auto pastAt = [&](size_t r) { return c.kind[r] == CurvedSide::PAST; };
    size_t past = 0, onChord = 0, middle = 0;
    for (size_t r = 0; r < count; r++) {
        past += pastAt(r);
        if ((r < end || r >= count - end) && pastAt(r)) return std::nullopt;
    }
    for (int r = int(0.1 * double(count - 1)); r <= int(0.9 * double(count - 1)); r++, middle++)
        onChord += pastAt(size_t(r)) || (c.kind[size_t(r)] == CurvedSide::EDGE_SEEN && std::abs(c.offset[size_t(r)]) <= 3);
    if (double(past) < PAST_FRAME * double(count) || double(onChord) < ON_CHORD * double(std::max<size_t>(1, middle))) return std::nullopt;
    return curvedShare(c, 0.1, 0.9);
}

double stretchSupport(const Photo &photo, Point a, Point b, Point centre, bool quiet = false);
std::pair<double, Point> shiftedSupport(const Photo &photo, Point a, Point b, Point centre);

/// The share of side `side` of `q` along which a crease runs: a line darker than the paper either
/// side of it by QUIET or more, within 2 px of the side, with paper like the sheet's beyond it (the
/// median colour of four points FAR to 4 FAR out within STEP of the strip just inside). A book's or
/// notepad's page meets the next at its binding, paper against paper: no step, but the fold shows
/// as a dark valley. A line of print near a sheet's end has the table soon beyond it.
double creaseShare(const Photo &photo, const Quad &q, int side) {
    const SidePoints s = sideSamples(q[side], q[(side + 1) % 4], centreOf(q), 4.0);
    const int count = int(s.points.size());
    constexpr int k = STRIPS, reaches = 4, valley = 2 * k, far = valley + 5, columns = far + reaches;
    cv::Mat xs(count, columns, CV_32F), ys(count, columns, CV_32F);
    for (int r = 0; r < count; r++) {
        const Point p = s.points[r], n = s.normal;
        setStrips(xs, ys, r, p, n);
        for (int c = -2; c <= 2; c++) {
            xs.at<float>(r, valley + c + 2) = float(p.x + c * n.x);
            ys.at<float>(r, valley + c + 2) = float(p.y + c * n.y);
        }
        for (int j = 1; j <= reaches; j++) {
            xs.at<float>(r, far + j - 1) = float(p.x + j * FAR * n.x);
            ys.at<float>(r, far + j - 1) = float(p.y + j * FAR * n.y);
        }
    }
    const cv::Mat values = sample(photo.lab, xs, ys, cv::BORDER_REPLICATE);
    int creased = 0;
    for (int r = 0; r < count; r++) {
        const cv::Vec3f *v = values.ptr<cv::Vec3f>(r);
        cv::Vec3f inside(0, 0, 0), beyond;
        float outside = 0, darkest = std::numeric_limits<float>::infinity();
        for (int c = 0; c < k; c++) {
            inside += v[c] / float(k);
            outside += v[k + c][0] / k;
        }
        for (int c = valley; c < far; c++) darkest = std::min(darkest, v[c][0]);
        for (int channel = 0; channel < 3; channel++) {
            std::vector<float> along;
            for (int j = 0; j < reaches; j++) along.push_back(v[far + j][channel]);
            beyond[channel] = median(along);
        }
        creased += darkest <= std::min(inside[0], outside) - QUIET && cv::norm(beyond - inside) < STEP;
    }
    return double(creased) / count;
}

/// How far from `from` along the unit direction `d` the photo goes on, up to `length`.
double withinPhoto(const Photo &photo, Point from, Point d, double length) {
    if (d.x < 0) length = std::min(length, from.x / -d.x);
    if (d.x > 0) length = std::min(length, (photo.w - 1 - from.x) / d.x);
    if (d.y < 0) length = std::min(length, from.y / -d.y);
    if (d.y > 0) length = std::min(length, (photo.h - 1 - from.y) / d.y);
    return length;
}

/// Side `side` of `q` as a book's fold, or the thin shadow a card or sheet on a white table casts
/// along its edge: the crease's share of it, or 0. The other three sides are drawn by real edges, a
/// crease runs along this one, neither side meeting it runs on straight beyond it (the facing page's
/// edges turn at the binding; or the frame comes first), and at least one of them runs up to it as
/// a clear edge (STEP). A crease or printed rule across a sheet has the sheet's own edges running on
/// straight past it, and is no fold; where both are too faint up to it to tell (white on white),
/// nothing is taken for one. One is enough: the edge that is clear up to the crease would be as
/// clear past it, were the sheet to go on (a card's rounded corner on a white table leaves the other
/// faint). A neighbour judged as a curve bowing out of the frame (`curved`; `falls` as curvedSide
/// takes it) is clear up to the crease where its curve passes an edge along RUNS_ON of its last
/// tenth: a book's page sagging below the frame rises to its binding, off the straight side. A side
/// `moved` onto a crease beside it (judge) runs on where the edge is seen up to SHIFT pixels either
/// side of the line carried on (shiftedSupport): a rule printed across a sheet whose sides bow,
/// their chords carried on past the rule missing the edges by a few pixels, is no fold.
double foldShare(const Photo &photo, const Quad &q, int side, const std::array<double, 4> &support, const std::array<bool, 4> &curved = {},
                 float falls = 1, bool moved = false) {
    for (int k = 1; k < 4; k++)
        if (support[(side + k) % 4] < FRAMED) return 0;
    const double share = creaseShare(photo, q, side);
    if (share < FRAMED) return 0;
    const Point centre = centreOf(q);
    int clearUpTo = 0;
    // the neighbour ending at corner `side`, and the one starting at corner `side + 1`, carried on
    for (auto [from, to] : {std::pair{q[(side + 3) % 4], q[side]}, std::pair{q[(side + 2) % 4], q[(side + 1) % 4]}}) {
        // a tenth of the side on, or up to the frame, against a tenth of the side itself. With the
        // frame closer than 2 FAR past the corner (a page filling the frame), whether the side runs
        // on is not seen; nor is more than that sliver of the sheet lost if it does
        const double tenth = 0.1 * std::hypot(to.x - from.x, to.y - from.y);
        if (tenth < 2 * FAR) return 0;  // too short a side to tell
        const Point d = (to - from) * (1.0 / (10 * tenth));
        const double length = withinPhoto(photo, to, d, tenth);
        const Point end = to + d * length;
        if (length >= 2 * FAR && (moved ? shiftedSupport(photo, to, end, centre).first : stretchSupport(photo, to, end, centre)) >= RUNS_ON)
            return 0;
        const int neighbour = from == q[(side + 3) % 4] ? (side + 3) % 4 : (side + 1) % 4;
        const bool upToCurved = curved[size_t(neighbour)] && [&] {
            const CurvedSide c = curvedSide(photo, q, neighbour, falls);
            return (neighbour == (side + 1) % 4 ? curvedShare(c, 0, 0.1) : curvedShare(c, 0.9, 1)) >= RUNS_ON;
        }();
        clearUpTo += upToCurved || stretchSupport(photo, to - d * tenth, to, centre) >= RUNS_ON;
    }
    return clearUpTo > 0 ? share : 0;
}

/// The median colours of the strips NEAR..FAR inside and outside (away from `centre`) the stretch
/// from `a` to `b`; none where the stretch is off the photo.
std::optional<std::pair<cv::Vec3f, cv::Vec3f>> stretchColours(const Photo &photo, Point a, Point b, Point centre) {
    const Point d = b - a;
    const double length = std::hypot(d.x, d.y);
    if (length < 1) return std::nullopt;
    Point n(-d.y / length, d.x / length);
    if (dot(n, (a + b) / 2 - centre) < 0) n = -n;
    const int count = std::max(2, int(length / 2) + 1);
    constexpr int k = STRIPS;
    cv::Mat xs(count, 2 * k, CV_32F), ys(count, 2 * k, CV_32F);
    for (int r = 0; r < count; r++) setStrips(xs, ys, r, a + d * (double(r) / (count - 1)), n);
    const cv::Mat values = sample(photo.lab, xs, ys, cv::BORDER_REPLICATE);
    std::array<std::array<std::vector<float>, 3>, 2> channels;
    for (int r = 0; r < count; r++)
        for (int j = 0; j < 2 * k; j++) {
            const float x = xs.at<float>(r, j), y = ys.at<float>(r, j);
            if (x < 0 || y < 0 || x > photo.w - 1 || y > photo.h - 1) continue;
            for (int c = 0; c < 3; c++) channels[j / k][c].push_back(values.at<cv::Vec3f>(r, j)[c]);
        }
    if (channels[0][0].empty() || channels[1][0].empty()) return std::nullopt;
    auto colour = [&](int s) { return cv::Vec3f(median(channels[s][0]), median(channels[s][1]), median(channels[s][2])); };
    return std::pair{colour(0), colour(1)};
}

/// The share of the stretch from `a` to `b` where an edge runs (stretchSupport, quiet: white paper on
/// a white table), sought up to SHIFT pixels either side of it: a side fitted a little askew, or the
/// chord of a bowed edge, carried on past its corner. The best share, and the move that finds it.
std::pair<double, Point> shiftedSupport(const Photo &photo, Point a, Point b, Point centre) {
    const Point d = b - a;
    const double length = std::max(1e-9, std::hypot(d.x, d.y));
    const Point n(-d.y / length, d.x / length);
    double best = 0;
    Point shift(0, 0);
    for (int o = -SHIFT; o <= SHIFT; o++) {
        const double s = stretchSupport(photo, a + n * double(o), b + n * double(o), centre, true);
        if (s > best) {
            best = s;
            shift = n * double(o);
        }
    }
    return {best, shift};
}

/// The stretch (its two ends) along which a side's edge runs on straight past its corner `from`, in
/// the unit direction `dir`, from FAR past it up to `reach` or the frame, where the edge shows along
/// RUNS_ON of it (shiftedSupport). None where it does not, or where the frame comes within 2 FAR of
/// the corner.
std::optional<std::pair<Point, Point>> runsOn(const Photo &photo, Point from, Point dir, double reach, Point centre) {
    reach = withinPhoto(photo, from, dir, reach);
    if (reach < 2 * FAR) return std::nullopt;
    const Point start = from + dir * double(FAR), end = from + dir * reach;
    const auto [runs, shift] = shiftedSupport(photo, start, end, centre);
    if (runs < RUNS_ON) return std::nullopt;
    return std::pair{start + shift, end + shift};
}

/// Whether side `side` of `q` is the edge of a shadow crossing the photo rather than the sheet's: a
/// step in lightness alone (SHADE), and past both its corners (a fifth of the side on, up to the
/// frame) the same edge runs on straight with the same step across it (the colour outside less the
/// colour inside, within STEP), as a shadow's edge crosses a white table and a white sheet alike. A
/// sheet's own side ends at its corners: beyond them lies table either side, no edge; or a table's
/// edge, its step from another colour than the paper's; or a cloth's pattern, the same.
bool crossesPhoto(const Photo &photo, const Quad &q, int side) {
    const Point p = q[side], e = q[(side + 1) % 4], centre = centreOf(q);
    const double length = std::hypot(e.x - p.x, e.y - p.y);
    if (length < 2 * FAR) return false;
    const auto along = stretchColours(photo, p, e, centre);
    if (!along) return false;
    // a shadow darkens what it falls on, keeping its colour: lightness alone differs across its edge,
    // and not by much (a table's edge onto a dark cloth is no shadow, and no sheet hides beyond it)
    const cv::Vec3f inside = along->first, outside = along->second;
    const float darker = std::min(inside[0], outside[0]), lighter = std::max(inside[0], outside[0]);
    if (darker < SHADE * lighter || std::hypot(inside[1] - outside[1], inside[2] - outside[2]) >= STEP) return false;
    const Point d = (e - p) * (1.0 / length);
    for (auto [from, dir] : {std::pair{e, d}, std::pair{p, -d}}) {
        const auto runs = runsOn(photo, from, dir, 0.2 * length, centre);
        if (!runs) return false;
        const auto beyond = stretchColours(photo, runs->first, runs->second, centre);
        if (!beyond || cv::norm((beyond->second - beyond->first) - (along->second - along->first)) >= STEP) return false;
    }
    return true;
}

/// A candidate with its evidence and a score in 0-1; none when its shape rules it out.
std::optional<Candidate> judge(const Photo &photo, const Quad &found, const std::string &source) {
    const Quad q = order(found);
    if (!plausible(q, photo.w, photo.h)) return std::nullopt;
    const auto sides = evidence(photo, q);
    Candidate out{q, q, source, {}, {}, 0, area(q) / (double(photo.w) * photo.h)};
    double sum = 0, least = 1;
    for (int i = 0; i < 4; i++) {
        out.support[i] = sides[i].support * std::min(1.0, sides[i].coherence / 0.7);
        // an edge along a third of it or more that is a shadow's crossing the photo is none of the sheet's
        if (out.support[i] >= 0.3 && crossesPhoto(photo, q, i)) {
            out.support[i] = 0;
            out.crossed = true;
        }
        out.step[i] = sides[i].step;
        sum += out.support[i];
        least = std::min(least, out.support[i]);
    }
    // a weak side may bow out of the frame between its corners, followed as a curve (where the frame
    // comes within FAR of it: a curve counts no further past it); the paper's polarity against what
    // lies around it measured as bends() measures it
    std::optional<float> falls;
    for (int i = 0; i < 4; i++) {
        if (out.support[i] >= FRAMED) continue;
        const Point n = outwardNormal(q, i) * double(FAR);  // (nearest the frame at one of its ends)
        auto offPhoto = [&](Point p) { return p.x < 0 || p.y < 0 || p.x > photo.w - 1 || p.y > photo.h - 1; };
        if (!offPhoto(q[i] + n) && !offPhoto(q[(i + 1) % 4] + n)) continue;
        if (!falls) {
            const cv::Mat inside = smallMask(photo, q);
            cv::Mat around;
            cv::dilate(inside, around, cv::Mat::ones(9, 9, CV_8U));
            cv::subtract(around, inside, around);
            if (cv::countNonZero(around) < 20) break;
            falls = medianLightness(photo, inside) > medianLightness(photo, around) ? 1.0f : -1.0f;
        }
        const auto curved = outOfFrame(photo, q, i, *falls);
        if (curved && *curved > out.support[i]) {
            sum += *curved - out.support[i];
            out.support[i] = *curved;
            out.curved[size_t(i)] = true;
        }
    }
    least = *std::min_element(out.support.begin(), out.support.end());
    // one side with no edge may be a book's fold: its crease sought up to 4 px either side of it too
    // (a side fitted to the edge at one flank of the crease, the facing page lighter than this one),
    // the side moved onto it where it is found there; not along the frame, where the paper sought
    // beyond the crease (creaseShare, up to 4 FAR out) is the frame's last pixels repeated (a side
    // along the frame moved out past it took their JPEG seam for a crease)
    const int weakest = int(std::min_element(out.support.begin(), out.support.end()) - out.support.begin());
    if (out.support[weakest] < FRAMED) {
        const Point beyond = (q[weakest] + q[(weakest + 1) % 4]) / 2 + outwardNormal(q, weakest) * double(4 * FAR);
        const bool alongFrame = beyond.x < 0 || beyond.y < 0 || beyond.x > photo.w - 1 || beyond.y > photo.h - 1;
        // (moved only where a crease runs along part of it already: the side lies on its flank)
        bool othersFramed = true;
        for (int k = 1; k < 4; k++) othersFramed = othersFramed && out.support[(weakest + k) % 4] >= FRAMED;
        const bool creaseBeside = othersFramed && !alongFrame && creaseShare(photo, q, weakest) >= 0.3;
        double fold = 0;
        for (int shift : {0, -1, 1, -2, 2, -3, 3, -4, 4}) {
            if (shift != 0 && !creaseBeside) break;
            const auto moved = shift == 0 ? std::optional<Quad>(q) : movedOut(q, weakest, shift);
            if (!moved) continue;
            const double share = foldShare(photo, *moved, weakest, out.support, out.curved, falls.value_or(1.0f), shift != 0);
            if (share > fold + 0.05) {
                fold = share;
                out.quad = *moved;
            }
        }
        if (fold > 0) {
            sum += fold - out.support[weakest];
            out.support[weakest] = fold;
            out.fold = weakest;
            least = *std::min_element(out.support.begin(), out.support.end());
        }
    }
    out.score = 0.5 * (sum / 4) + 0.5 * least;
    return out;
}

// --- candidates --------------------------------------------------------------------------------------

/// A side moved out to enclose the edge points it was fitted to (below, with refine; sweptOut too).
Line enclosing(Line line, const std::vector<cv::Point2f> &points, Point centre, std::array<Point, 2> ends, int reach);

struct Found {
    std::string source;
    Quad quad;
};

/// The quadrilateral around a convex polygon that adds the least area: repeatedly drop the side
/// whose two neighbours, extended until they meet, add the smallest triangle. Its corners are where
/// straight sides meet, as for a sheet with rounded or dog-eared corners.
std::optional<Quad> hullToQuad(const std::vector<cv::Point> &contour) {
    std::vector<cv::Point2f> points(contour.begin(), contour.end()), hull, simpler;
    cv::convexHull(points, hull);
    if (hull.size() < 4) return std::nullopt;
    cv::approxPolyDP(hull, simpler, 0.005 * cv::arcLength(hull, true), true);
    std::vector<Point> polygon(simpler.begin(), simpler.end());
    if (polygon.size() < 4) return std::nullopt;
    while (polygon.size() > 4) {
        const size_t n = polygon.size();
        double best = std::numeric_limits<double>::infinity();
        std::optional<size_t> bestSide;
        Point bestPoint;
        for (size_t i = 0; i < n; i++) {
            // side i runs from polygon[i] to polygon[i + 1]; its neighbours are sides i - 1 and i + 1
            const Point a = polygon[(i + n - 1) % n], b = polygon[i], c = polygon[(i + 1) % n], d = polygon[(i + 2) % n];
            const auto point = intersect(lineThrough(a, b), lineThrough(c, d));
            if (!point) continue;
            // the new corner must lie beyond side i, on the far side from the polygon
            if (dot(*point - b, b - a) < 0 || dot(*point - c, c - d) < 0) continue;
            const double added = 0.5 * std::abs((c.x - b.x) * (point->y - b.y) - (c.y - b.y) * (point->x - b.x));
            if (added < best) {
                best = added;
                bestSide = i;
                bestPoint = *point;
            }
        }
        if (!bestSide) return std::nullopt;
        polygon[*bestSide] = bestPoint;
        polygon.erase(polygon.begin() + long((*bestSide + 1) % n));
    }
    return Quad{polygon[0], polygon[1], polygon[2], polygon[3]};
}

/// Canny with thresholds from the image's own gradients: the strongest tenth of them are edges,
/// half that continues one.
cv::Mat autoCanny(const cv::Mat &grey) {
    cv::Mat edges;
    const double high = std::max(20.0, gradientPercentile(grey, 0.9));
    cv::Canny(grey, edges, high / 2, high);
    return edges;
}

cv::Mat reduced(const Photo &photo, int level) {
    if (level == 1) return photo.grey;
    cv::Mat out;
    cv::resize(photo.grey, out, cv::Size(photo.w / level, photo.h / level), 0, 0, cv::INTER_AREA);
    return out;
}

/// Quadrilaterals around the closed outlines Canny finds at full, half and quarter size.
std::vector<Found> edgeCandidates(const Photo &photo) {
    std::vector<Found> out;
    for (int level : {1, 2, 4}) {
        const cv::Mat grey = reduced(photo, level);
        cv::Mat blurred, edges;
        cv::GaussianBlur(grey, blurred, cv::Size(5, 5), 0);
        cv::morphologyEx(autoCanny(blurred), edges, cv::MORPH_CLOSE, cv::Mat::ones(3, 3, CV_8U));
        std::vector<std::vector<cv::Point>> contours;
        cv::findContours(edges, contours, cv::RETR_LIST, cv::CHAIN_APPROX_SIMPLE);
        const double minimum = MIN_AREA * grey.rows * grey.cols;
        for (const auto &contour : contours) {
            if (contour.size() < 8) continue;
            if (cv::boundingRect(contour).area() < minimum) continue;
            if (const auto quad = hullToQuad(contour)) {
                Quad scaled;  // back to working pixels, centre to centre
                for (int i = 0; i < 4; i++) scaled[i] = (*quad)[i] * level + Point(1, 1) * ((level - 1) / 2.0);
                out.push_back({"edges/" + std::to_string(level), scaled});
            }
        }
    }
    return out;
}

/// A long straight line made of LSD segments: its direction and the stretches along it they cover.
struct MergedLine {
    Line line;
    Point direction;  // unit, along the line
    double strength;  // total length of its segments
    std::vector<std::pair<double, double>> spans;  // covered stretches, as positions along `direction`
};

/// LSD segments (at least 2 % of the diagonal) merged into lines, strongest first.
std::vector<MergedLine> mergedLines(const Photo &photo) {
    std::vector<cv::Vec4f> found;
    cv::createLineSegmentDetector(cv::LSD_REFINE_STD)->detect(photo.grey, found);
    std::vector<cv::Vec4f> segments;
    std::vector<float> lengths;
    const float shortest = float(0.02 * photo.diagonal);
    for (const cv::Vec4f &s : found) {
        const float length = std::hypot(s[2] - s[0], s[3] - s[1]);
        if (length >= shortest) {
            segments.push_back(s);
            lengths.push_back(length);
        }
    }
    std::vector<size_t> longest(segments.size());
    for (size_t i = 0; i < longest.size(); i++) longest[i] = i;
    // longest first; among equals, LSD's order (numpy's sort left that open)
    std::stable_sort(longest.begin(), longest.end(), [&](size_t i, size_t j) { return lengths[i] > lengths[j]; });

    struct Gathered {
        Line line;  // of the first (longest) segment
        std::vector<cv::Vec4f> members;
        float strength;
    };
    std::vector<Gathered> gathered;
    const double nearby = 0.006 * photo.diagonal;
    for (size_t i : longest) {
        const cv::Vec4f s = segments[i];
        const double theta = std::atan2(double(s[2] - s[0]), double(-(s[3] - s[1])));  // direction of the normal
        const double a = std::cos(theta), b = std::sin(theta);
        bool merged = false;
        for (Gathered &line : gathered) {
            const Line &l = line.line;
            // same line: nearly the same direction, both ends close to it
            if (std::abs(l.a * b - l.b * a) < std::sin(radians(2)) && std::abs(l.a * s[0] + l.b * s[1] - l.c) < nearby &&
                std::abs(l.a * s[2] + l.b * s[3] - l.c) < nearby) {
                line.members.push_back(s);
                line.strength += lengths[i];
                merged = true;
                break;
            }
        }
        if (!merged) gathered.push_back({{a, b, a * s[0] + b * s[1]}, {s}, lengths[i]});
    }

    std::vector<MergedLine> out;
    for (const Gathered &g : gathered) {
        if (g.members.size() == 1) {
            const cv::Vec4f s = g.members[0];
            const float dx = s[2] - s[0], dy = s[3] - s[1];
            const double length = std::hypot(double(dx), double(dy));
            const Point direction(dx / length, dy / length);
            const double s0 = direction.x * s[0] + direction.y * s[1], s1 = direction.x * s[2] + direction.y * s[3];
            out.push_back({lineThrough(Point(s[0], s[1]), Point(s[2], s[3])), direction, g.strength,
                           {{std::min(s0, s1), std::max(s0, s1)}}});
            continue;
        }
        std::vector<cv::Point2f> ends;
        for (const cv::Vec4f &s : g.members) ends.emplace_back(s[0], s[1]);
        for (const cv::Vec4f &s : g.members) ends.emplace_back(s[2], s[3]);
        cv::Vec4f fit;
        cv::fitLine(ends, fit, cv::DIST_L2, 0, 0.01, 0.01);
        const float vx = fit[0], vy = fit[1], x0 = fit[2], y0 = fit[3];
        const float c = -vy * x0 + vx * y0;  // 32-bit, as numpy computed it
        std::vector<std::pair<double, double>> spans;
        for (const cv::Vec4f &s : g.members) {
            const float s0 = vx * s[0] + vy * s[1], s1 = vx * s[2] + vy * s[3];
            spans.emplace_back(std::min(s0, s1), std::max(s0, s1));
        }
        std::sort(spans.begin(), spans.end());
        std::vector<std::pair<double, double>> united;
        for (const auto &[s0, s1] : spans) {
            if (!united.empty() && s0 <= united.back().second + 0.01 * photo.diagonal)
                united.back().second = std::max(united.back().second, s1);
            else
                united.emplace_back(s0, s1);
        }
        out.push_back({{-vy, vx, c}, Point(vx, vy), g.strength, united});
    }
    std::stable_sort(out.begin(), out.end(), [](const MergedLine &l, const MergedLine &m) { return l.strength > m.strength; });
    return out;
}

/// Quadrilaterals from the strongest merged lines, two nearly-parallel pairs crossing each other,
/// ranked by how much of each of the four sides line segments cover.
std::vector<Found> lineCandidates(const Photo &photo) {
    std::vector<MergedLine> lines = mergedLines(photo);
    if (lines.size() > LINES_KEPT) lines.resize(LINES_KEPT);
    const size_t count = lines.size();
    if (count < 4) return {};
    const double diagonal = photo.diagonal;
    // coverage of each line on a grid along it: cumulative sums make any stretch's share cheap
    const double cell = 0.005 * diagonal;
    const int bins = int(2 * diagonal / cell) + 2;
    std::vector<std::vector<double>> cumulative(count, std::vector<double>(bins + 1, 0));
    for (size_t n = 0; n < count; n++) {
        std::vector<char> covered(bins, 0);
        for (const auto &[a, b] : lines[n].spans) {
            const int i0 = int((a + diagonal) / cell), i1 = int((b + diagonal) / cell);
            for (int i = std::max(0, i0); i < std::min(bins, i1 + 1); i++) covered[i] = 1;
        }
        for (int i = 0; i < bins; i++) cumulative[n][i + 1] = cumulative[n][i] + covered[i];
    }
    auto sine = [&](size_t i, size_t j) {
        return std::abs(lines[i].line.a * lines[j].line.b - lines[j].line.a * lines[i].line.b);
    };
    const double sin30 = std::sin(radians(30));
    std::vector<std::pair<size_t, size_t>> pairs;  // near-parallel
    for (size_t i = 0; i < count; i++)
        for (size_t j = i + 1; j < count; j++)
            if (sine(i, j) < sin30) pairs.emplace_back(i, j);
    if (pairs.size() < 2) return {};

    // Where lines p and q meet; parallel ones somewhere far off, which the shape tests then refuse.
    auto meet = [&](size_t p, size_t q) {
        const Line &l = lines[p].line, &m = lines[q].line;
        double det = l.a * m.b - m.a * l.b;
        if (std::abs(det) < 1e-9) det = 1e-9;
        return Point((l.c * m.b - m.c * l.b) / det, (l.a * m.c - m.a * l.c) / det);
    };
    // Share of the stretch of `line` between p and q that segments cover.
    auto cover = [&](size_t line, Point p, Point q) {
        const double s0 = dot(lines[line].direction, p), s1 = dot(lines[line].direction, q);
        const int lo = std::clamp(int((std::min(s0, s1) + diagonal) / cell), 0, bins);
        const int hi = std::clamp(int((std::max(s0, s1) + diagonal) / cell), 0, bins);
        return (cumulative[line][hi] - cumulative[line][lo]) / std::max(1, hi - lo);
    };
    struct Ranked {
        Quad corners;
        double rank;
    };
    std::vector<Ranked> ranked;
    const double margin = 0.02 * diagonal;
    for (size_t x = 0; x < pairs.size(); x++) {
        for (size_t y = x + 1; y < pairs.size(); y++) {
            const auto [a, b] = pairs[x];  // a, b opposite; c, d opposite
            const auto [c, d] = pairs[y];
            if (a == c || a == d || b == c || b == d || !(sine(a, c) > sin30)) continue;
            // corners in order around the quadrilateral: sides a, c, b, d
            const Quad corners = {meet(d, a), meet(a, c), meet(c, b), meet(b, d)};
            const std::array<size_t, 4> sides = {a, c, b, d};
            int positive = 0, negative = 0;
            double twiceArea = 0;
            bool inside = true;
            for (int k = 0; k < 4; k++) {
                const Point edge = corners[(k + 1) % 4] - corners[k], next = corners[(k + 2) % 4] - corners[(k + 1) % 4];
                const double cross = edge.x * next.y - edge.y * next.x;
                positive += cross > 0;
                negative += cross < 0;
                twiceArea += corners[k].x * corners[(k + 1) % 4].y - corners[(k + 1) % 4].x * corners[k].y;
                const Point p = corners[k];
                inside = inside && p.x > -margin && p.x < photo.w + margin && p.y > -margin && p.y < photo.h + margin;
            }
            if (!(positive == 4 || negative == 4) || !inside || 0.5 * std::abs(twiceArea) < MIN_AREA * photo.w * photo.h)
                continue;
            std::array<double, 4> covers;
            for (int k = 0; k < 4; k++) covers[k] = cover(sides[k], corners[k], corners[(k + 1) % 4]);
            const double least = *std::min_element(covers.begin(), covers.end());
            ranked.push_back({corners, least + (((covers[0] + covers[1]) + covers[2]) + covers[3]) / 4});
        }
    }
    // The best ranked first; among equals, the order they were made in (numpy's sort left that open).
    std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked &r, const Ranked &s) { return r.rank > s.rank; });
    std::vector<Found> out;
    for (size_t t = 0; t < ranked.size() && t < 3 * LINE_QUADS && out.size() < LINE_QUADS; t++) {
        const Quad q = order(ranked[t].corners);
        if (plausible(q, photo.w, photo.h)) out.push_back({"lines", q});
    }
    return out;
}

/// Each side of `seed` moved out to the first edge beyond it: per point along the side, the nearest
/// offset (from 3 px out, past the print's own edges, to the frame or SWEEP of the diagonal) where
/// the gradient (Photo::gx, gy) runs across the side and stands out from the row's own (NOISE times
/// its median, at least EDGE / 2), past any dark band of print with the paper beyond it; a line
/// fitted to those points and moved out to enclose them (enclosing, up to REACH, as refine's
/// envelope: a torn end rising to its corner beyond the line stays whole). None when a side finds an edge along less
/// than a third of it. A faint edge (white paper on a white table) is found from inside, before any
/// stronger one further out; what is taken is then judged like every other candidate.
std::optional<Quad> sweptOut(const Photo &photo, const Quad &seed) {
    const Point centre = centreOf(seed);
    cv::Mat grey;
    photo.grey.convertTo(grey, CV_32F);
    const int reach = int(SWEEP * photo.diagonal), start = 3;
    const int width = reach - start + 1;
    std::array<Line, 4> lines;
    for (int i = 0; i < 4; i++) {
        const SidePoints side = sideSamples(seed[i], seed[(i + 1) % 4], centre, 2.0, 0.05);
        const Point n = side.normal;
        const int count = int(side.points.size());
        cv::Mat probeX, probeY;
        acrossSide(side, start, width, probeX, probeY);
        const cv::Mat gx = sample(photo.gx, probeX, probeY, cv::BORDER_CONSTANT);
        const cv::Mat gy = sample(photo.gy, probeX, probeY, cv::BORDER_CONSTANT);
        const cv::Mat levels = sample(grey, probeX, probeY, cv::BORDER_REPLICATE);
        std::vector<cv::Point2f> found;
        std::vector<float> across(width);
        for (int r = 0; r < count; r++) {
            int last = width;  // the frame ends the row
            for (int j = 0; j < width; j++) {
                const float x = probeX.at<float>(r, j), y = probeY.at<float>(r, j);
                if (x < 0 || y < 0 || x > photo.w - 1 || y > photo.h - 1) {
                    last = j;
                    break;
                }
                const float u = gx.at<float>(r, j), v = gy.at<float>(r, j);
                const float a = std::abs(u * float(n.x) + v * float(n.y)), along = std::abs(u * float(n.y) - v * float(n.x));
                across[j] = a > 2 * along ? a : 0;
            }
            if (last < 3) continue;
            const float needed = std::max(float(EDGE) / 2, NOISE * median(std::vector<float>(across.begin(), across.begin() + last)));
            const float *level = levels.ptr<float>(r), paper = level[0];
            for (int j = 1; j + 1 < last; j++) {
                if (!(across[j] >= needed && across[j] >= across[j - 1] && across[j] >= across[j + 1])) continue;
                // a dark band printed along the sheet's end (a header bar): far darker than the paper,
                // then the paper's own level again further out. Sweep on past it
                const int darkest = int(std::min_element(level + j, level + last) - level);
                const float drop = paper - level[darkest];
                int back = -1;
                for (int m = darkest; drop >= BAND_DROP && m < last && back < 0; m++)
                    if (level[m] >= paper - drop / 4) back = m;
                if (back >= 0) {  // on from where the band's outer flank ends
                    for (j = back; j + 1 < last && across[j + 1] >= needed;) j++;
                    continue;
                }
                found.emplace_back(probeX.at<float>(r, j), probeY.at<float>(r, j));
                break;
            }
        }
        if (found.size() * 3 < size_t(count) || found.size() < 6) return std::nullopt;
        cv::Vec4f fit;
        cv::fitLine(found, fit, cv::DIST_HUBER, 0, 0.01, 0.01);
        const Line fitted = lineThrough(Point(fit[2], fit[3]), Point(fit[2] + fit[0], fit[3] + fit[1]));
        lines[i] = enclosing(fitted, found, centre, {Point(found.front().x, found.front().y), Point(found.back().x, found.back().y)},
                             int(REACH * photo.diagonal));
    }
    return cornersOf(lines);
}

/// The print's own outline swept out to the sheet's edges: the largest block of ink (darker than
/// its surroundings, text lines run together), its least rectangle, each side moved out to the first
/// edge beyond. Where the sheet's sides are too faint for Canny to close or LSD to draw (a white
/// receipt on a white table), the print still shows where the sheet is. The ink is run together
/// twice: across the gaps between lines of text, and across three times that, the gaps between a
/// letter's heading, logo, body and a box beside it (the body alone can lie further from a side
/// than SWEEP; on a textured table the wider block runs into the grain, and nothing is swept).
std::vector<Found> inkCandidates(const Photo &photo) {
    const cv::Mat &ink = photo.ink;
    std::vector<Found> out;
    for (int spread : {1, 3}) {
        const int gap = spread * std::max(5, std::min(photo.w, photo.h) / 50);
        cv::Mat joined, labels, stats, centroids;
        cv::dilate(ink, joined, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(gap, gap)));
        const int count = cv::connectedComponentsWithStats(joined, labels, stats, centroids, 8, CV_32S);
        int largest = 0, most = 0;
        for (int label = 1; label < count; label++)
            if (stats.at<int>(label, cv::CC_STAT_AREA) > most) {
                most = stats.at<int>(label, cv::CC_STAT_AREA);
                largest = label;
            }
        if (largest == 0) continue;
        std::vector<cv::Point> points;
        for (int y = 0; y < ink.rows; y++)
            for (int x = 0; x < ink.cols; x++)
                if (ink.at<uchar>(y, x) && labels.at<int>(y, x) == largest) points.emplace_back(x, y);
        if (points.size() < 50) continue;
        cv::Point2f box[4];
        cv::minAreaRect(points).points(box);
        const auto swept = sweptOut(photo, order(Quad{box[0], box[1], box[2], box[3]}));
        if (swept && plausible(order(*swept), photo.w, photo.h)) out.push_back({spread == 1 ? "ink" : "ink/wide", order(*swept)});
    }
    return out;
}

/// The outline of the bright, colourless region: paper is lighter and greyer than most tables.
std::vector<Found> regionCandidates(const Photo &photo) {
    const cv::Mat &small = photo.smallLab;  // the Lab image at a quarter
    cv::Mat bright(small.size(), CV_32F), paper(small.size(), CV_32F);
    for (int y = 0; y < small.rows; y++) {
        for (int x = 0; x < small.cols; x++) {
            const cv::Vec3f v = small.at<cv::Vec3f>(y, x);
            const float chroma = std::hypot(v[1] - 128.0f, v[2] - 128.0f);
            bright.at<float>(y, x) = v[0];
            paper.at<float>(y, x) = v[0] - 2.0f * chroma;
        }
    }
    std::vector<Found> out;
    for (const auto &[name, channel] : {std::pair<std::string, cv::Mat>{"bright", bright}, {"paper", paper}}) {
        cv::Mat stretched, levels(channel.size(), CV_8U), mask;
        cv::normalize(channel, stretched, 0, 255, cv::NORM_MINMAX);
        // truncated, not rounded, as numpy's astype(uint8) does
        for (int y = 0; y < channel.rows; y++)
            for (int x = 0; x < channel.cols; x++) levels.at<uchar>(y, x) = uchar(stretched.at<float>(y, x));
        cv::threshold(levels, mask, 0, 255, cv::THRESH_BINARY + cv::THRESH_OTSU);
        cv::morphologyEx(mask, mask, cv::MORPH_OPEN, cv::Mat::ones(5, 5, CV_8U));
        std::vector<std::vector<cv::Point>> contours;
        cv::findContours(mask, contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE);
        std::vector<double> areas;
        for (const auto &contour : contours) areas.push_back(cv::contourArea(contour));
        std::vector<size_t> largest(contours.size());
        for (size_t i = 0; i < largest.size(); i++) largest[i] = i;
        std::stable_sort(largest.begin(), largest.end(), [&](size_t i, size_t j) { return areas[i] > areas[j]; });
        for (size_t rank = 0; rank < largest.size() && rank < 3; rank++) {
            const size_t i = largest[rank];
            if (areas[i] < MIN_AREA * small.rows * small.cols) break;
            if (const auto quad = hullToQuad(contours[i])) {
                Quad scaled;  // back to working pixels, centre to centre
                for (int c = 0; c < 4; c++) scaled[c] = (*quad)[c] * 4 + Point(1.5, 1.5);
                out.push_back({"region/" + name, scaled});
            }
        }
    }
    return out;
}

// --- refinement --------------------------------------------------------------------------------------

/// `line` moved out (away from `centre`) to enclose `points` (in order along it) with the least table
/// added: the edge's outline first opened by RUN points (a speck narrower than that is no edge), then
/// the edge of its upper hull that adds the least area, which follows a torn end rising to its
/// corner; parallel when that line would come inside `line` at either of `ends`. Never further out
/// than `reach` at either end.
Line enclosing(Line line, const std::vector<cv::Point2f> &points, Point centre, std::array<Point, 2> ends, int reach) {
    const double outward = line.a * centre.x + line.b * centre.y < line.c ? 1.0 : -1.0;
    const Point normal(outward * line.a, outward * line.b), along(-normal.y, normal.x);
    const size_t count = points.size();
    std::vector<double> t(count), d(count);
    for (size_t i = 0; i < count; i++) {
        t[i] = dot(Point(points[i].x, points[i].y), along);
        d[i] = outward * (line.a * points[i].x + line.b * points[i].y - line.c);
    }
    const std::vector<double> specksAway = opened(d, RUN);
    // the upper hull of (t, opened), t rising (points come in order, either way along)
    std::vector<size_t> byT(count);
    for (size_t i = 0; i < count; i++) byT[i] = i;
    std::sort(byT.begin(), byT.end(), [&](size_t i, size_t j) { return t[i] < t[j]; });
    std::vector<Point> edge;
    for (size_t i : byT) edge.emplace_back(t[i], specksAway[i]);
    const std::vector<Point> hull = upperHull(edge);
    const double tStart = dot(ends[0], along), tEnd = dot(ends[1], along);
    double bestCost = std::numeric_limits<double>::infinity(), atStart = 0, atEnd = 0;
    for (size_t h = 0; h + 1 < hull.size(); h++) {
        const Point p = hull[h], q = hull[h + 1];
        if (q.x - p.x < 1e-6) continue;
        const double slope = (q.y - p.y) / (q.x - p.x);
        auto on = [&](double at) { return p.y + slope * (at - p.x); };
        double cost = 0;
        for (size_t i = 0; i < count; i++) cost += on(t[i]) - specksAway[i];
        if (on(tStart) < 0 || on(tEnd) < 0 || cost >= bestCost) continue;
        bestCost = cost;
        atStart = on(tStart);
        atEnd = on(tEnd);
    }
    if (!std::isfinite(bestCost)) atStart = atEnd = std::max(0.0, *std::max_element(specksAway.begin(), specksAway.end()));
    atStart = std::min(atStart, double(reach));
    atEnd = std::min(atEnd, double(reach));
    // the fitted line's points opposite the two ends, moved out by those amounts
    auto foot = [&](Point p) { return p - normal * (dot(p, normal) - outward * line.c); };
    return lineThrough(foot(ends[0]) + normal * atStart, foot(ends[1]) + normal * atEnd);
}

/// The edge refine found along `side` (row r at `best[r]` of the window -reach..reach across it, of
/// strength `strength[r]`) followed on out of the window toward the side's ends. A torn top rises to
/// its corners over its last tenths, beyond the window, and a cut enclosing only what the window saw
/// cut off its tips. Where the edge, still inside the window 15 % of the side from an end, runs to
/// the window's outer edge closer to that end, it is followed row by row out to the end, up to 2
/// reach further, as long as an edge of the side's polarity (`sign`) goes on within 2 px in or 3 px
/// out of the row before, above `threshold` and no more than 4 times the side's typical strength.
/// An edge out of the window before the last stretch is another edge diverging (a cloth's beyond a
/// card's corner), as is one far stronger than the side's own. The rows moved out are changed in
/// place; the farthest any is moved from the side is returned (at least reach): how far the side
/// may be moved out to enclose them.
int followedOut(const Photo &photo, const SidePoints &side, float sign, int reach, float threshold, std::vector<int> &best,
                std::vector<float> &strength) {
    const int count = int(side.points.size()), width = 2 * reach + 1, columns = width + 2 * reach;
    const float typical = median(strength);
    cv::Mat xs, ys;
    acrossSide(side, -reach, columns, xs, ys);
    const cv::Mat gx = sample(photo.gx, xs, ys, cv::BORDER_CONSTANT), gy = sample(photo.gy, xs, ys, cv::BORDER_CONSTANT);
    const float nx = float(side.normal.x), ny = float(side.normal.y);
    auto response = [&](int r, int j) { return sign * (gx.at<float>(r, j) * nx + gy.at<float>(r, j) * ny); };
    auto edge = [&](float s) { return s > threshold && s <= 4 * typical; };
    int farthest = reach;
    for (int dir : {-1, 1}) {
        const int to = dir > 0 ? count : -1;
        int r = dir > 0 ? int(0.85 * count) : int(0.15 * count);
        if (best[r] >= width - 2) continue;
        while (r != to && !(best[r] >= width - 2 && edge(strength[r]))) r += dir;
        if (r == to) continue;
        for (int at = best[r], next; (r += dir) != to; at = next) {
            next = -1;
            float most = threshold;
            for (int j = std::max(0, at - 2); j <= std::min(columns - 1, at + 3); j++)
                if (response(r, j) > most && edge(response(r, j))) {
                    most = response(r, j);
                    next = j;
                }
            if (next < 0) break;
            if (next <= best[r]) continue;
            best[r] = next;
            strength[r] = most;
            farthest = std::max(farthest, next - reach);
        }
    }
    return farthest;
}

/// Each side refitted to the strongest edge across it nearby (of the side's own polarity), by a
/// robust line fit; the corners are where the fitted sides meet, so that rounded or covered corners
/// sit where the straight edges meet, as the marks do.
/// With `envelope` (the sheet taken, not the candidates judged), each fitted side is then moved out
/// to enclose the edge points it was fitted to, sought up to the corners and followed out past the
/// window toward them (a torn top rising to them: followedOut): a fit through a torn, wavy or bowed
/// edge runs through the sheet, and the cut along it would lose the parts beyond it, the worst
/// failure; a little table instead is the better error.
Quad refine(const Photo &photo, const Quad &q, bool envelope = false) {
    const Point centre = centreOf(q);
    const int reach = std::max(4, int(REACH * photo.diagonal));
    const int width = 2 * reach + 1;  // offsets -reach..reach across the side
    // a mild preference for staying close, so that a text line further in does not win
    std::vector<float> closeness(width);
    for (int j = 0; j < width; j++) closeness[j] = 1.0f - 0.3f * float(std::abs(j - reach)) / float(reach);
    std::array<Line, 4> lines;
    for (int i = 0; i < 4; i++) {
        const SidePoints side = sideSamples(q[i], q[(i + 1) % 4], centre, 2.0, envelope ? 0.01 : 0.12);
        const Point n = side.normal;
        const int count = int(side.points.size());
        cv::Mat probeX, probeY;
        acrossSide(side, -reach, width, probeX, probeY);
        const cv::Mat gx = sample(photo.gx, probeX, probeY, cv::BORDER_CONSTANT);
        const cv::Mat gy = sample(photo.gy, probeX, probeY, cv::BORDER_CONSTANT);
        cv::Mat across(count, width, CV_32F);  // positive: brighter outside
        const float nx = float(n.x), ny = float(n.y);
        double brighterOutside = 0, darkerOutside = 0;
        for (int r = 0; r < count; r++) {
            float most = -std::numeric_limits<float>::infinity(), least = std::numeric_limits<float>::infinity();
            for (int j = 0; j < width; j++) {
                const float value = gx.at<float>(r, j) * nx + gy.at<float>(r, j) * ny;
                across.at<float>(r, j) = value;
                most = std::max(most, value);
                least = std::min(least, value);
            }
            brighterOutside += most;
            darkerOutside += -least;
        }
        // the side's polarity: which sign the strongest responses take along most of it
        const float sign = brighterOutside >= darkerOutside ? 1.0f : -1.0f;
        std::vector<int> best(count);
        std::vector<float> strength(count);
        for (int r = 0; r < count; r++) {
            best[r] = 0;
            strength[r] = -std::numeric_limits<float>::infinity();
            for (int j = 0; j < width; j++) {
                const float value = across.at<float>(r, j) * sign * closeness[j];
                if (value > strength[r]) {
                    strength[r] = value;
                    best[r] = j;
                }
            }
        }
        const float threshold = float(std::max(8.0, 0.5 * double(median(strength))));
        const int clamp = envelope ? followedOut(photo, side, sign, reach, threshold, best, strength) : reach;
        std::vector<cv::Point2f> found;
        for (int r = 0; r < count; r++)
            if (strength[r] > threshold) {
                const double offset = best[r] - reach;
                found.emplace_back(float(side.points[r].x + offset * n.x), float(side.points[r].y + offset * n.y));
            }
        if (found.size() < 6) {
            lines[i] = lineThrough(q[i], q[(i + 1) % 4]);
            continue;
        }
        cv::Vec4f fit;
        cv::fitLine(found, fit, cv::DIST_HUBER, 0, 0.01, 0.01);
        lines[i] = lineThrough(Point(fit[2], fit[3]), Point(fit[2] + fit[0], fit[3] + fit[1]));
        if (envelope) lines[i] = enclosing(lines[i], found, centre, {q[i], q[(i + 1) % 4]}, clamp);
    }
    return cornersOf(lines).value_or(q);
}

// --- the finder --------------------------------------------------------------------------------------

/// Every candidate judged (duplicates of one already judged skipped), best first, the leaders refined.
/// As the prototype's: the refined leaders keep the place their unrefined selves had.
std::vector<Candidate> candidates(const Photo &photo) {
    // the line segments take as long as the other two ways together: on two cores, side by side
    std::vector<Found> raw, lines, region;
    cv::parallel_for_(cv::Range(0, 2), [&](const cv::Range &range) {
        for (int part = range.start; part < range.end; part++) {
            if (part == 0) lines = lineCandidates(photo);
            else {
                raw = edgeCandidates(photo);
                region = regionCandidates(photo);
                const auto ink = inkCandidates(photo);
                region.insert(region.end(), ink.begin(), ink.end());
            }
        }
    });
    for (const auto &found : {lines, region}) raw.insert(raw.end(), found.begin(), found.end());
    // each judged once (not one within 1 % of the diagonal of one before it that judge() takes: a
    // plausible quadrilateral), on both cores: judging and refining take up to a third of the finding
    std::vector<const Found *> distinct;
    std::vector<Quad> quads;
    for (const Found &f : raw) {
        const Quad quad = order(f.quad);
        if (!plausible(quad, photo.w, photo.h)) continue;
        const bool seen = std::any_of(quads.begin(), quads.end(), [&](const Quad &q) { return same(quad, q, 0.01 * photo.diagonal); });
        if (seen) continue;
        distinct.push_back(&f);
        quads.push_back(quad);
    }
    std::vector<std::optional<Candidate>> each(quads.size());
    cv::parallel_for_(cv::Range(0, int(quads.size())), [&](const cv::Range &range) {
        for (size_t i = size_t(range.start); i < size_t(range.end); i++) each[i] = judge(photo, quads[i], distinct[i]->source);
    });
    std::vector<Candidate> judged;
    for (size_t i = 0; i < each.size(); i++)
        if (each[i]) {
            judged.push_back(*each[i]);
            judged.back().raw = quads[i];
        }
    std::stable_sort(judged.begin(), judged.end(), [](const Candidate &a, const Candidate &b) { return a.score > b.score; });
    // refine the leaders: their corners then sit where the edges really are
    cv::parallel_for_(cv::Range(0, int(std::min(judged.size(), REFINED))), [&](const cv::Range &range) {
        for (size_t i = size_t(range.start); i < size_t(range.end); i++) {
            const auto refined = judge(photo, refine(photo, judged[i].quad), judged[i].source + "+refined");
            // a refined side found to cross the photo (a shadow's edge) tells on the candidate too
            if (refined && (refined->score >= judged[i].score - 0.02 || refined->crossed)) {
                const Quad quad = judged[i].raw;
                judged[i] = *refined;
                judged[i].raw = quad;
            }
        }
    });
    return judged;
}

/// Every corner of `inner` lies inside the convex `outer`, or outside it by no more than `slack`.
bool contains(const Quad &outer, const Quad &inner, double slack) {
    const Point centre = centreOf(outer);
    for (int i = 0; i < 4; i++) {
        const Point p = outer[i], d = outer[(i + 1) % 4] - p;
        double length = std::hypot(d.x, d.y);
        if (length == 0) length = 1;
        Point n(-d.y / length, d.x / length);
        if (dot(n, centre - p) < 0) n = -n;
        for (const Point &corner : inner)
            if (dot(corner - p, n) < -slack) return false;
    }
    return true;
}

/// Whether the ring between `inner` and a larger `outer` holding it looks unlike what lies just
/// outside `outer` (colour and texture): then it is more sheet, and `outer` the sheet's edge; wood or
/// cloth like the table around it would make `outer` a quadrilateral of table.
bool ringIsSheet(const Photo &photo, const Quad &outer, const Quad &inner) {
    const cv::Mat &small = photo.smallLab;
    const double f = double(small.cols) / photo.w;
    auto filled = [&](const Quad &q) {
        cv::Mat mask = cv::Mat::zeros(small.size(), CV_8U);
        std::vector<cv::Point> corners;  // rounded half to even, as np.round does
        for (const Point &p : q) corners.emplace_back(int(std::nearbyint(p.x * f)), int(std::nearbyint(p.y * f)));
        cv::fillConvexPoly(mask, corners, cv::Scalar(255));
        return mask;
    };
    auto dilated = [](const cv::Mat &mask, int size) {
        cv::Mat out;
        cv::dilate(mask, out, cv::Mat::ones(size, size, CV_8U));
        return out;
    };
    const cv::Mat big = filled(outer);
    cv::Mat ring, around;
    cv::subtract(big, dilated(filled(inner), 3), ring);
    const int width = std::max(3, int(0.03 * std::max(small.rows, small.cols)));
    cv::subtract(dilated(big, width), dilated(big, 3), around);
    if (cv::countNonZero(ring) < 20 || cv::countNonZero(around) < 20) return true;
    // per region: the median of each Lab channel and the mean texture
    std::array<std::array<double, 4>, 2> features;
    const std::array<const cv::Mat *, 2> masks = {&ring, &around};
    for (int m = 0; m < 2; m++) {
        std::array<std::vector<float>, 3> channels;
        double texture = 0;
        for (int y = 0; y < small.rows; y++)
            for (int x = 0; x < small.cols; x++)
                if (masks[m]->at<uchar>(y, x)) {
                    const cv::Vec3f v = small.at<cv::Vec3f>(y, x);
                    for (int c = 0; c < 3; c++) channels[c].push_back(v[c]);
                    texture += photo.smallTexture.at<float>(y, x);
                }
        for (int c = 0; c < 3; c++) features[m][c] = median(channels[c]);
        features[m][3] = texture / double(channels[0].size());
    }
    double distance = 0;
    for (int c = 0; c < 4; c++) distance += (features[0][c] - features[1][c]) * (features[0][c] - features[1][c]);
    return std::sqrt(distance) >= STEP;
}

/// The lightness (L of Lab) of each pixel of the quarter-size image within `mask`.
std::vector<float> lightnesses(const Photo &photo, const cv::Mat &mask) {
    std::vector<float> values;
    for (int y = 0; y < mask.rows; y++)
        for (int x = 0; x < mask.cols; x++)
            if (mask.at<uchar>(y, x)) values.push_back(photo.smallLab.at<cv::Vec3f>(y, x)[0]);
    return values;
}

/// The median lightness (L of Lab) of the quarter-size image within `mask`.
float medianLightness(const Photo &photo, const cv::Mat &mask) {
    const std::vector<float> values = lightnesses(photo, mask);
    return values.empty() ? 0.0f : median(values);
}

/// The median Lab colour (each channel's median) of the quarter-size image within `mask`.
cv::Vec3f medianColour(const Photo &photo, const cv::Mat &mask) {
    std::array<std::vector<float>, 3> channels;
    for (int y = 0; y < mask.rows; y++)
        for (int x = 0; x < mask.cols; x++)
            if (mask.at<uchar>(y, x))
                for (int c = 0; c < 3; c++) channels[c].push_back(photo.smallLab.at<cv::Vec3f>(y, x)[c]);
    if (channels[0].empty()) return cv::Vec3f(0, 128, 128);
    return cv::Vec3f(median(channels[0]), median(channels[1]), median(channels[2]));
}

/// How far a Lab colour (OpenCV's 8-bit scale) lies from grey.
float chromaOf(cv::Vec3f v) { return std::hypot(v[1] - 128.0f, v[2] - 128.0f); }

/// `q` filled, on the quarter-size image.
cv::Mat smallMask(const Photo &photo, const Quad &q) {
    const double f = double(photo.smallLab.cols) / photo.w;
    cv::Mat mask = cv::Mat::zeros(photo.smallLab.size(), CV_8U);
    std::vector<cv::Point> corners;
    for (const Point &p : q) corners.emplace_back(int(std::nearbyint(p.x * f)), int(std::nearbyint(p.y * f)));
    cv::fillConvexPoly(mask, corners, cv::Scalar(255));
    return mask;
}

/// Whether the ring between `outer` and the `inner` it holds could be the paper `inner` is printed
/// on: ink only darkens paper, so the paper around a printed box, picture or stripe is at least as
/// light as the box itself. A hand, an arm or a dark object under a sheet is darker than the sheet.
bool ringIsPaperAround(const Photo &photo, const Quad &outer, const Quad &inner) {
    const cv::Mat innerMask = smallMask(photo, inner);
    cv::Mat ring;
    cv::subtract(smallMask(photo, outer), innerMask, ring);
    if (cv::countNonZero(ring) < 20 || cv::countNonZero(innerMask) < 20) return false;
    return medianLightness(photo, ring) >= medianLightness(photo, innerMask);
}

/// The lightness of the lightest paper in `q`: its lightest tenth (a stripe alone holds none, and is
/// that dark); none where `q` covers no pixel of the quarter-size copy.
std::optional<float> lightestPaper(const Photo &photo, const Quad &q) {
    std::vector<float> within = lightnesses(photo, smallMask(photo, q));
    if (within.empty()) return std::nullopt;
    std::nth_element(within.begin(), within.begin() + long(0.9 * double(within.size() - 1)), within.end());
    return within[size_t(0.9 * double(within.size() - 1))];
}

/// Whether a dark band lies right outside side `i` of `q` with paper beyond it: the median lightness
/// along the side (its middle, as evidence samples it), from NEAR outside it outward, is below SHADE
/// of `paper` first, and then at least AGAIN of it, as light as the paper itself, for RUN steps of
/// 2 px in a row, within BEYOND of the diagonal. A dark table or cloth beyond a sheet does not turn
/// light again so soon, nor a book's dark cover beside its page, with a lighter table beyond it; a
/// band printed across the sheet does, its paper going on beyond it. `reached`: how far out (px)
/// the paper beyond is reached.
bool paperBeyondBand(const Photo &photo, const Quad &q, int i, float paper, int *reached = nullptr) {
    const SidePoints side = sideSamples(q[i], q[(i + 1) % 4], centreOf(q));
    const int reach = int(BEYOND * photo.diagonal);
    size_t dark = 0, light = 0;
    for (int offset = NEAR; offset <= reach; offset += 2) {
        std::vector<float> values;
        for (const Point &p : side.points) {
            const Point at = p + side.normal * double(offset);
            const int x = int(std::lround(at.x)), y = int(std::lround(at.y));
            if (x >= 0 && y >= 0 && x < photo.w && y < photo.h) values.push_back(photo.lab.at<cv::Vec3f>(y, x)[0]);
        }
        if (values.size() < side.points.size() / 2) return false;  // mostly off the photo
        const float lightness = median(values);
        if (dark == 0 && lightness >= SHADE * paper) return false;  // no band right outside the side
        if (lightness < AGAIN * paper) {
            dark++;
            light = 0;
        } else if (++light == RUN) {
            if (reached) *reached = offset;
            return true;
        }
    }
    return false;
}

/// Whether side `i` of `q` has more of a sheet beyond it, as partOfLarger's first two cases ask (a
/// stripe or coloured band inside it and paper outside, or a dark band outside with paper beyond);
/// `paper` is the lightest of `q`. `beyondBand`: for a band outside, how far out the paper beyond
/// it is reached (paperBeyondBand's `reached`); left alone otherwise.
bool paperBeyondSide(const Photo &photo, const Quad &q, int i, float paper, int *beyondBand = nullptr) {
    const Point a = q[i], b = q[(i + 1) % 4];
    const SidePoints side = sideSamples(a, b, centreOf(q));
    const Point across = side.normal * double(DEEP);
    const cv::Vec3f inside = medianColour(photo, smallMask(photo, {a, b, b - across, a - across}));
    const cv::Vec3f outside = medianColour(photo, smallMask(photo, {a, b, b + across, a + across}));
    const bool coloured = chromaOf(inside) - chromaOf(outside) >= COLOUR_STEP && inside[0] <= outside[0];
    const bool stripe = (inside[0] <= SHADE * outside[0] || coloured) && outside[0] >= SHADE * paper;
    return stripe || paperBeyondBand(photo, q, i, paper, beyondBand);
}

/// Whether `q` is part of a larger sheet whose own outline is not among the candidates. Along one of
/// its sides, either
/// - what lies inside is darker than SHADE of what lies outside, as a printed stripe or bar is than
///   paper, more than a shadow darkens it, or more coloured (its chroma higher by COLOUR_STEP) and
///   no lighter, as an orange header is than the page it is printed on (the median colour of a band
///   DEEP wide either side, so that a side cut a few pixels off the stripe's edge still has the
///   stripe inside), and what lies outside is paper: at least SHADE of the lightest tenth in `q`
///   (more of its own paper, maybe in shade; for a stripe alone, any paper);
/// - or a dark band lies right outside it with paper beyond the band (paperBeyondBand), as beyond a
///   printed bar across a sheet whose part on this side of the bar `q` is;
/// and an edge runs on straight past that side's corners along either side beside it (runsOn, as far
/// as BEYOND of the diagonal; across a band outside, only as far as the paper beyond it and FAR on:
/// a letter's foot below a bar near it ends, and the white table begins, sooner than BEYOND, and
/// the part above the bar was taken, the foot cut off).
/// So a dark stripe across a white card on a white table, the card's edges running on past the
/// stripe's ends; a coloured header along a white page's top on a white table, the page too faint
/// to be found, its sides running on below the header; the card above the stripe with the stripe,
/// cut along its lower edge; or a letter below a dark bar across it, its faint sides running on
/// past the bar. A receipt at a table's edge has that edge running on past its corners, but is
/// paper, lighter than SHADE of the table beside it for all its print, and the dark cloth beyond
/// the edge goes on; a sheet with a dark bar along its top on a checked cloth, whose squares' edges
/// run on past its corners, has cloth beyond the bar, darker than its paper; a page beside a facing
/// page is no darker than what lies beyond.
bool partOfLarger(const Photo &photo, const Quad &q) {
    const Point centre = centreOf(q);
    const auto paper = lightestPaper(photo, q);
    if (!paper) return false;
    for (int i = 0; i < 4; i++) {
        int band = 0;
        if (!paperBeyondSide(photo, q, i, *paper, &band)) continue;
        const double reach = band > 0 ? std::min(BEYOND * photo.diagonal, double(band + FAR)) : BEYOND * photo.diagonal;
        // the sides meeting it at a and at b, carried on past them
        const Point a = q[i], b = q[(i + 1) % 4];
        const Point before = a - q[(i + 3) % 4], after = b - q[(i + 2) % 4];
        const double lengthBefore = std::hypot(before.x, before.y), lengthAfter = std::hypot(after.x, after.y);
        if (lengthBefore < 1 || lengthAfter < 1) continue;
        if (runsOn(photo, a, before * (1 / lengthBefore), reach, centre) || runsOn(photo, b, after * (1 / lengthAfter), reach, centre))
            return true;
    }
    return false;
}

/// The larger candidate (its index in `found`) that makes `chosen` possibly something printed on a
/// sheet rather than the sheet, or -1: it holds `chosen`, is drawn by real edges on at least three of
/// its sides (the fourth may be off the photo, or white paper on a white table), and the ring between
/// the two is not like what lies around the larger one and could be the paper the smaller one is
/// printed on. Taking `chosen`
/// would then cut into that sheet, the worst failure; the larger one is not convincing enough to be
/// taken either (else the holding rule took it), so nothing is.
int framedByMore(const std::vector<Candidate> &found, const Photo &photo, int chosen) {
    const Candidate &inner = found[chosen];
    for (size_t i = 0; i < found.size(); i++) {
        const Candidate &outer = found[i];
        if (outer.area <= 1.15 * inner.area) continue;
        const int framed = int(std::count_if(outer.support.begin(), outer.support.end(), [](double s) { return s >= FRAMED; }));
        if (framed >= 3 && contains(outer.quad, inner.quad, 0.01 * photo.diagonal) &&
            ringIsSheet(photo, outer.quad, inner.quad) && ringIsPaperAround(photo, outer.quad, inner.quad))
            return int(i);
    }
    return -1;
}

/// Whether `outer` is `inner` carried on across one of its sides: two corners shared, the other two
/// of `inner` on the sides of `outer` flanking that one, whose edges run on along the stretch past
/// them (a crease or a fold across a sheet on a white table, the sheet's sides running on past it).
bool carriedOn(const Photo &photo, const Quad &inner, const Quad &outer) {
    const double tolerance = 0.01 * photo.diagonal;
    auto near = [&](Point p, Point q) { return std::hypot(p.x - q.x, p.y - q.y) <= tolerance; };
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 4; k++) {
            // inner's side i + 2 is outer's side k + 2; inner's side i lies across outer
            if (!near(inner[(i + 2) % 4], outer[(k + 2) % 4]) || !near(inner[(i + 3) % 4], outer[(k + 3) % 4])) continue;
            if (!onFlanks(outer, k, inner[i], inner[(i + 1) % 4], tolerance)) continue;
            if (near(inner[i], outer[k]) || near(inner[(i + 1) % 4], outer[(k + 1) % 4])) continue;  // the same side
            const Point centre = centreOf(outer);
            if (stretchSupport(photo, inner[i], outer[k], centre, true) >= RUNS_ON &&
                stretchSupport(photo, inner[(i + 1) % 4], outer[(k + 1) % 4], centre, true) >= RUNS_ON)
                return true;
        }
    return false;
}

/// Whether a quadrilateral (working pixels) has the proportions of some paper: the caller's judgement.
using Plausible = std::function<bool(const Quad &)>;

/// The best-supported convincing candidate (its index in `found`); then, as long as a larger
/// convincing one holds it with evidence nearly as good and the ring between them is not like the
/// table around the larger one (a sheet holds printed boxes, pictures and stripes; a quadrilateral of
/// wood grain around a sheet holds more wood), or carries it on across one side (carriedOn: the
/// white sheet past a crease, whose ring is like a white table), the largest of those instead. When that one's
/// proportions are no paper's and a convincing larger one around it has a paper's, that one
/// (`passedOver`: the one given up). When a larger candidate frames the one taken (framedByMore) and
/// is convincing itself (a card whose stripe or barcode makes a stronger quadrilateral than the
/// card), the larger one. -1: none convincing, or the one that would be taken may be printed on a
/// larger sheet that is not convincing (`heldBack`, and `framing` the larger one).
int choose(const std::vector<Candidate> &found, const Photo &photo, const Plausible &plausible, int &passedOver, int &heldBack,
           int &framing) {
    passedOver = heldBack = framing = -1;
    int best = -1;
    for (size_t i = 0; i < found.size(); i++)
        if (found[i].score >= ACCEPT && (best < 0 || found[i].score > found[best].score)) best = int(i);
    if (best < 0) return -1;
    const double floor = found[best].score - HOLD;
    while (true) {
        int larger = -1;
        for (size_t i = 0; i < found.size(); i++) {
            const Candidate &j = found[i];
            if (j.score >= ACCEPT && j.area > 1.15 * found[best].area && contains(j.quad, found[best].quad, 0.01 * photo.diagonal) &&
                ((j.score >= floor && ringIsSheet(photo, j.quad, found[best].quad)) || carriedOn(photo, found[best].quad, j.quad)) &&
                (larger < 0 || j.area > found[larger].area))
                larger = int(i);
        }
        if (larger < 0) break;
        best = larger;
    }
    // proportions no paper has (half a notepad cut across is nearly square), where a convincing larger
    // candidate around it has a paper's: the edges say the sheet is that one. Only a larger one: one
    // inside it would cut into the sheet if the shape was right after all
    if (!plausible(found[best].quad)) {
        int around = -1;
        for (size_t i = 0; i < found.size(); i++) {
            const Candidate &j = found[i];
            if (j.score >= ACCEPT && j.area > 1.15 * found[best].area && contains(j.quad, found[best].quad, 0.01 * photo.diagonal) &&
                (around < 0 || j.score > found[around].score) && plausible(j.quad))
                around = int(i);
        }
        if (around >= 0) {
            passedOver = best;
            best = around;
        }
    }
    framing = framedByMore(found, photo, best);
    // a framing candidate convincing in its own right is the sheet (the one it frames is printed on
    // it), unless it is framed in turn
    while (framing >= 0 && found[framing].score >= ACCEPT) {
        best = framing;
        framing = framedByMore(found, photo, best);
    }
    if (framing < 0) return best;
    heldBack = best;
    return -1;
}

/// The share of the middle of `q` (shrunk to 0.8 about its centre: away from a fold's shadow, or
/// table along a side fitted a little loose) that is print.
double inkShare(const Photo &photo, const Quad &q) {
    const Point centre = centreOf(q);
    std::vector<cv::Point> corners;
    for (const Point &p : q) {
        const Point middle = centre + (p - centre) * 0.8;
        corners.emplace_back(int(std::lround(middle.x)), int(std::lround(middle.y)));
    }
    cv::Mat mask = cv::Mat::zeros(photo.ink.size(), CV_8U), printed;
    cv::fillConvexPoly(mask, corners, cv::Scalar(255));
    const int all = cv::countNonZero(mask);
    if (all == 0) return 0;
    cv::bitwise_and(photo.ink, mask, printed);
    return double(cv::countNonZero(printed)) / all;
}

/// Where the one chosen is a blank page (less than BLANK of its middle in print) and a printed one
/// (PRINTED or more) lies beside it across one of its sides, that side its own fourth, its other
/// three real edges (FRAMED): the printed one (its index in `found`; the best scored of several),
/// else -1. An open notepad or book with a blank facing page: the blank page lies flatter and
/// evenly lit, its fold in the shadow of the page written on, and scores higher; the page written
/// on is what was photographed. Taking the blank page cut away the whole of it.
int printedBeside(const std::vector<Candidate> &found, const Photo &photo, int chosen) {
    const Quad &a = found[chosen].quad;
    if (inkShare(photo, a) >= BLANK) return -1;
    const double tolerance = 0.01 * photo.diagonal;
    auto near = [&](Point p, Point q) { return std::hypot(p.x - q.x, p.y - q.y) <= tolerance; };
    const Point centre = centreOf(a);
    int printed = -1;
    for (size_t j = 0; j < found.size(); j++) {
        const Candidate &b = found[j];
        if (printed >= 0 && b.score <= found[printed].score) continue;
        const Point other = centreOf(b.quad);
        bool beside = false;
        for (int i = 0; i < 4 && !beside; i++) {
            const Line side = lineThrough(a[i], a[(i + 1) % 4]);
            if ((side.a * other.x + side.b * other.y - side.c) * (side.a * centre.x + side.b * centre.y - side.c) >= 0) continue;
            for (int k = 0; k < 4 && !beside; k++) {
                // b's side k along a's side i: a[i] meets b[k + 1], a[i + 1] meets b[k]
                if (!near(a[i], b.quad[(k + 1) % 4]) || !near(a[(i + 1) % 4], b.quad[k])) continue;
                beside = true;
                for (int m = 0; m < 4; m++) beside = beside && (m == k || b.support[m] >= FRAMED);
            }
        }
        if (beside && inkShare(photo, b.quad) >= PRINTED) printed = int(j);
    }
    return printed;
}

// --- a band of sheet outside a side ------------------------------------------------------------------

/// The median Lab colour of the strip along side `side` of `q` between `from` and `to` pixels
/// outside it (negative: inside), sampled at full size; none when the strip is off the photo.
std::optional<cv::Vec3f> stripColour(const Photo &photo, const Quad &q, int side, double from, double to) {
    const SidePoints s = sideSamples(q[side], q[(side + 1) % 4], centreOf(q), 2.0, 0.12);
    const int depth = std::max(1, int((to - from) / 2) + 1);
    cv::Mat mapX(int(s.points.size()), depth, CV_32F), mapY(int(s.points.size()), depth, CV_32F);
    for (int r = 0; r < mapX.rows; r++)
        for (int j = 0; j < depth; j++) {
            const double offset = depth == 1 ? from : from + (to - from) * j / (depth - 1);
            mapX.at<float>(r, j) = float(s.points[r].x + offset * s.normal.x);
            mapY.at<float>(r, j) = float(s.points[r].y + offset * s.normal.y);
        }
    const cv::Mat values = sample(photo.lab, mapX, mapY, cv::BORDER_REPLICATE);
    std::array<std::vector<float>, 3> channels;
    for (int r = 0; r < values.rows; r++)
        for (int j = 0; j < depth; j++) {
            const float x = mapX.at<float>(r, j), y = mapY.at<float>(r, j);
            if (x < 0 || x > photo.w - 1 || y < 0 || y > photo.h - 1) continue;  // off the photo
            const cv::Vec3f v = values.at<cv::Vec3f>(r, j);
            for (int c = 0; c < 3; c++) channels[c].push_back(v[c]);
        }
    if (channels[0].empty()) return std::nullopt;
    return cv::Vec3f(median(channels[0]), median(channels[1]), median(channels[2]));
}

/// A straight edge outside side `side` of `q`, nearly parallel to it, between `first` px and BEYOND of
/// the diagonal out, across which the lightness (Photo::lightnessGradient) falls outward as it does
/// across the sheet's other sides (`darkerOutside`) or rises (the opposite); none when less than half
/// the side shows one. Lightness, not grey: the polarity is measured in it, and a coloured band may
/// be lighter than the table in one and darker in the other. Without a polarity (nullopt), the
/// nearest edge either way: a band on a two-tone cloth is lighter than one tone and darker than the
/// other, its outer edge stepping both ways along it, and the cloth's own pattern beyond it steps
/// more strongly than the band's edge either way.
std::optional<Line> outerEdge(const Photo &photo, const Quad &q, int side, std::optional<bool> darkerOutside, int first) {
    const SidePoints s = sideSamples(q[side], q[(side + 1) % 4], centreOf(q), 2.0, 0.12);
    const Point n = s.normal;
    const int last = std::max(first + 1, int(BEYOND * photo.diagonal));
    const int count = int(s.points.size()), width = last - first + 1;
    cv::Mat probeX, probeY;
    acrossSide(s, first, width, probeX, probeY);
    const auto &lightness = photo.lightnessGradient();
    const cv::Mat gx = sample(lightness[0], probeX, probeY, cv::BORDER_CONSTANT);
    const cv::Mat gy = sample(lightness[1], probeX, probeY, cv::BORDER_CONSTANT);
    const float sign = darkerOutside.value_or(false) ? -1.0f : 1.0f;  // the gradient along the outward normal, signed
    std::vector<cv::Point2f> found;
    for (int r = 0; r < count; r++) {
        float strongest = EDGE;
        int at = -1;
        for (int j = 0; j < width; j++) {
            const float x = gx.at<float>(r, j), y = gy.at<float>(r, j);
            float across = sign * (x * float(n.x) + y * float(n.y));
            const float along = std::abs(x * float(n.y) - y * float(n.x));
            if (!darkerOutside) {  // the nearest aligned edge either way
                across = std::abs(across);
                if (across > 2 * along && across >= EDGE) {
                    at = j;
                    break;
                }
                continue;
            }
            if (across > 2 * along && across > strongest) {  // the strongest aligned edge in reach, as refine() takes
                strongest = across;
                at = j;
            }
        }
        if (at >= 0) found.emplace_back(probeX.at<float>(r, at), probeY.at<float>(r, at));
    }
    if (found.size() < size_t(count) / 2 || found.size() < 6) return std::nullopt;
    cv::Vec4f fit;
    cv::fitLine(found, fit, cv::DIST_HUBER, 0, 0.01, 0.01);
    const Line line = lineThrough(Point(fit[2], fit[3]), Point(fit[2] + fit[0], fit[3] + fit[1]));
    // nearly parallel: both ends of the side within the searched band of it
    for (const Point &p : {q[side], q[(side + 1) % 4]}) {
        const double distance = std::abs(line.a * p.x + line.b * p.y - line.c);
        if (distance < first || distance > last) return std::nullopt;
    }
    return line;
}

double colourDistance(cv::Vec3f u, cv::Vec3f v) { return cv::norm(u - v); }

/// The share of the stretch from `a` to `b` (nothing trimmed) where the sheet's edge runs: the colour
/// steps by STEP or more (with `quiet`, by what stepNeeded asks where the strips' colours are quiet)
/// between the strips NEAR..FAR inside and outside (away from `centre`) and an edge (Photo::gx, gy)
/// runs along it, as evidence() asks of a side.
double stretchSupport(const Photo &photo, Point a, Point b, Point centre, bool quiet) {
    const Point d = b - a;
    const double length = std::hypot(d.x, d.y);
    if (length < 1) return 0;
    Point n(-d.y / length, d.x / length);
    if (dot(n, (a + b) / 2 - centre) < 0) n = -n;
    const int count = std::max(2, int(length / 2) + 1);
    constexpr int k = STRIPS;
    cv::Mat stripX(count, 2 * k, CV_32F), stripY(count, 2 * k, CV_32F), probeX(count, 5, CV_32F), probeY(count, 5, CV_32F);
    for (int r = 0; r < count; r++) {
        const Point p = a + d * (double(r) / (count - 1));
        setStrips(stripX, stripY, r, p, n);
        for (int c = -2; c <= 2; c++) {
            probeX.at<float>(r, c + 2) = float(p.x + c * n.x);
            probeY.at<float>(r, c + 2) = float(p.y + c * n.y);
        }
    }
    const cv::Mat values = sample(photo.lab, stripX, stripY, cv::BORDER_REPLICATE);
    const cv::Mat gx = sample(photo.gx, probeX, probeY, cv::BORDER_REPLICATE);
    const cv::Mat gy = sample(photo.gy, probeX, probeY, cv::BORDER_REPLICATE);
    const double needed = quiet ? stepNeeded(values, 0, count) : STEP;
    int supported = 0;
    for (int r = 0; r < count; r++) {
        cv::Vec3f inside(0, 0, 0), outside(0, 0, 0);
        for (int j = 0; j < k; j++) {
            inside += values.at<cv::Vec3f>(r, j);
            outside += values.at<cv::Vec3f>(r, k + j);
        }
        bool aligned = false;
        for (int c = 0; c < 5; c++) {
            const float x = gx.at<float>(r, c), y = gy.at<float>(r, c);
            const float across = std::abs(x * float(n.x) + y * float(n.y)), along = std::abs(x * float(n.y) - y * float(n.x));
            aligned = aligned || (across > 2 * along && across >= EDGE);
        }
        supported += aligned && cv::norm(inside - outside) / k >= needed;
    }
    return double(supported) / count;
}

/// `q` widened over a band of sheet along side `i`: out to a straight edge beyond it across which the
/// lightness falls outward (`darkerOutside`) or rises, where the strip between is sheet (its colour
/// unlike each of `table`, the colours outside the other sides) and a neighbouring side's edge runs
/// on across it; judged as `chosen`'s source with "+band". None where there is no such band. The
/// edge is sought from `from` px out: FAR, past the side's own edge, or nearer where that steps the
/// other way. Without a polarity, the nearest edge either way, the band far darker than `paper`
/// (the sheet's lightest) and both neighbouring sides running on across it.
std::optional<Candidate> overBand(const Photo &photo, const Candidate &chosen, const Quad &q, int i, const std::vector<cv::Vec3f> &table,
                                  std::optional<bool> darkerOutside, int from = FAR, std::optional<float> paper = std::nullopt) {
    const auto edge = outerEdge(photo, q, i, darkerOutside, from);
    if (!edge) return std::nullopt;
    std::array<Line, 4> lines;
    for (int k = 0; k < 4; k++) lines[k] = lineThrough(q[k], q[(k + 1) % 4]);
    const double width = std::abs(edge->a * (q[i].x + q[(i + 1) % 4].x) / 2 + edge->b * (q[i].y + q[(i + 1) % 4].y) / 2 - edge->c);
    const auto band = stripColour(photo, q, i, NEAR / 2.0, width - NEAR / 2.0);
    if (!band) return std::nullopt;
    const bool unlikeTable = std::all_of(table.begin(), table.end(), [&](cv::Vec3f t) { return colourDistance(*band, t) >= STEP; });
    // sought by the nearest edge, the band must be print: far darker than the sheet's `paper`, as a
    // stripe is (paper beyond the side is more of a sheet `q` is printed on, and the nearest edge
    // across it a line of its print)
    const bool print = darkerOutside || (paper && (*band)[0] <= SHADE * *paper);
#ifdef SHEET_DEBUG
    std::fprintf(stderr, "side %d: edge at %.1f px (%s outward), band %.0f %.0f %.0f, unlike table %d, print %d\n", i, width,
                 !darkerOutside ? "nearest" : *darkerOutside ? "falling" : "rising", (*band)[0], (*band)[1], (*band)[2], unlikeTable,
                 print);
#endif
    if (!unlikeTable || !print) return std::nullopt;
    lines[i] = *edge;
    const auto corners = cornersOf(lines);
    if (!corners) return std::nullopt;
    // a neighbouring side's edge runs on across the band, from the old corner to the new: an
    // object lying along the sheet, longer than it, has more of itself on both sides there. One
    // such end will do: the other may be lost in a curl, a fold or a rounded corner. By the step a
    // side needs where the colours are quiet (on a white table the sheet's sides step by 5-10),
    // and a few pixels either side of the line: a bowed side's chord, carried on, passes its edge
    // there by as much
    const Point middle = centreOf(*corners);
    const double before = shiftedSupport(photo, q[i], (*corners)[i], middle).first,
                 after = shiftedSupport(photo, q[(i + 1) % 4], (*corners)[(i + 1) % 4], middle).first;
#ifdef SHEET_DEBUG
    std::fprintf(stderr, "  continued %.2f %.2f\n", before, after);
#endif
    // (sought by the nearest edge, both ends: that edge may be anything's that lies along the side)
    if ((darkerOutside ? std::max(before, after) : std::min(before, after)) < CONTINUED) return std::nullopt;
    const auto wider = judge(photo, *corners, chosen.source + "+band");
#ifdef SHEET_DEBUG
    if (wider) std::fprintf(stderr, "  wider score %.2f\n", wider->score);
#endif
    return wider;
}

/// Whether `wider`, `q` widened over a band along side `i`, has the sheet's own paper just inside its
/// new side (2 to 4 px in, within STEP of the paper just inside one of `q`'s other sides): a header
/// printed across the sheet with a thin margin of paper beyond it. The evidence along that side sees
/// the band in its inner strip (NEAR to FAR in) and the margin as a light line on the side, and
/// gives it less support than the band's inner edge had; held to the score of the one chosen, the
/// header was cut off (a navy band on a page on dark wood). An exercise book's cover beside its
/// page (page08.jpg), which is no sheet, is the cover's colour up to its rim.
bool marginBeyondBand(const Photo &photo, const Quad &q, const Quad &wider, int i) {
    const auto margin = stripColour(photo, wider, i, -4, -2);
    if (!margin) return false;
    for (int k = 0; k < 4; k++) {
        if (k == i) continue;
        const auto paper = stripColour(photo, q, k, -FAR, -NEAR);
        if (paper && colourDistance(*margin, *paper) < STEP) return true;
    }
    return false;
}

/// `q` with each side that has a band of sheet outside it moved out to that band's outer edge. A
/// printed band, picture or header along a sheet's edge makes a strong straight edge a little inside
/// the sheet's real one, and taking it would cut that band off, the worst failure. The strip
/// between a side and a parallel edge further out is sheet when its colour is unlike the table
/// outside each of the other three sides, where the photo shows it (a strip too thin for
/// ringIsSheet's quarter-size masks); the widened candidate must then be nearly convincing itself
/// (ACCEPT - HOLD) and nearly as well supported as the one chosen. A strip of table between a
/// sheet and the next object is like the table along the other sides, and stays outside.
/// The band's outer edge is sought with the polarity the sheet's other sides show (paper lighter
/// than the table, or darker); and where none of that polarity makes a band nearly convincing
/// (ACCEPT - HOLD), with the band's own, where the strip just outside the side lies on the other
/// side of the table's lightness: a dark blue header on a page on a lighter wooden table rises
/// outward onto the wood. Where the sheet's polarity finds a band nearly convincing, something with
/// an edge of the sheet's kind lies there, and the other polarity is not sought: an exercise book's
/// dark cover beside its page (page08.jpg) has a lit rim at its outer edge, and taken for a band
/// the cut would run 2.7 % of the diagonal outside the page. Nor where paper lies again beyond the
/// band (paperBeyondBand): a bar printed across the sheet, `q` its part on one side of the bar.
/// Where neither polarity makes a convincing band, the nearest edge beyond, either way, is tried as
/// its outer edge, the band far darker than the paper (SHADE), as print is, and both neighbouring
/// sides running on across it: a red header on a red and dark red checked cloth steps both ways
/// along its outer edge, and the checks more strongly. (A grey strip along a page's side cropped
/// close, with-graphics.jpg's, one side running on across it, took the corner off by 3 %.)
Candidate extend(const Photo &photo, const Candidate &chosen) {
    Candidate best = chosen;
    for (int i = 0; i < 4; i++) {
        const Quad &q = best.quad;
        // the table outside the other sides, where the photo shows it, and the sheet's polarity there:
        // paper lighter than the table, or darker
        double fall = 0, tableLightness = 0;
        std::vector<cv::Vec3f> table;
        for (int k = 0; k < 4; k++) {
            if (k == i) continue;
            const auto outside = stripColour(photo, q, k, NEAR, FAR), inside = stripColour(photo, q, k, -FAR, -NEAR);
            if (!outside || !inside) continue;
            table.push_back(*outside);
            fall += (*inside)[0] - (*outside)[0];
            tableLightness += (*outside)[0];
        }
        if (table.empty()) continue;  // no table to tell a band from
        tableLightness /= double(table.size());
        // the side itself stepping the other way from the sheet's sides, by STEP or more (a dark band
        // inside it, lighter outside): the sheet's own edge, stepping as its other sides do, cannot be
        // taken for the side's, and may lie nearer beyond it than FAR, a thin margin of paper away (a
        // header band 3 % below a page's top on cloth: the page's edge 9 px beyond the band's)
        const auto justInside = stripColour(photo, q, i, -FAR, -NEAR), justOutside = stripColour(photo, q, i, NEAR, FAR);
        const bool reversed = justInside && justOutside && ((*justInside)[0] - (*justOutside)[0]) * fall < 0 &&
                              std::abs((*justInside)[0] - (*justOutside)[0]) >= STEP;
        // a dark band with paper again beyond it is a bar printed across the sheet, `q` its part on
        // one side of the bar (held back as such: partOfLarger), not a header along its edge
        const auto paper = lightestPaper(photo, q);
        std::optional<bool> barred;
        auto headerMayLieThere = [&] {
            if (!barred) barred = paper && paperBeyondBand(photo, q, i, *paper);
            return paper && !*barred;
        };
        auto wider = overBand(photo, chosen, q, i, table, fall > 0, reversed ? NEAR : FAR);
        if (!wider || wider->score < ACCEPT - HOLD) {
            if (justOutside && ((*justOutside)[0] > tableLightness) != (fall > 0) && headerMayLieThere())
                wider = overBand(photo, chosen, q, i, table, fall <= 0);
        }
        if ((!wider || wider->score < ACCEPT) && headerMayLieThere()) {
            // the nearest edge beyond, either way: a red header on a red and dark red checked cloth
            const auto nearest = overBand(photo, chosen, q, i, table, std::nullopt, reversed ? NEAR : FAR, paper);
            if (nearest && (!wider || nearest->score > wider->score)) wider = nearest;
        }
        // nearly convincing, and nearly as well supported as the one chosen (as for a larger candidate
        // holding it), or with the sheet's paper just inside its new side (marginBeyondBand). Nearly
        // will do: a band along the frame, its outer edge running partly along the frame and curling
        // away from its chord at one end, shows less of an edge than the band's inner one, and was
        // cut off whole (with-graphics.jpg cropped to 0.5 % around its page: 0.699, the page 0.85)
        if (wider && wider->score >= ACCEPT - HOLD &&
            (wider->score >= chosen.score - HOLD || marginBeyondBand(photo, q, wider->quad, i)))
            best = *wider;
    }
    return best;
}

// --- a sheet split in two by a band across it -----------------------------------------------------------

/// `chosen` joined with a convincing candidate lying beside it across one of its sides: the two meet
/// along that side (their near corners within BEYOND of each other: a band between them) and the
/// other's far corners lie on the lines of the two sides flanking it. A card's stripe, or a header
/// printed right across a sheet on a white table whose white margins do not show, splits the sheet
/// into two quadrilaterals, each convincing, and taking one cuts off the other. Judged whole, the
/// joined sides would not count their faint white-on-white steps (the band makes the colours along
/// them anything but quiet), so the parts' evidence stands for it: its score is the weaker part's.
/// Two sheets lying edge to edge in line are taken together: a looser cut, nothing lost.
/// The other part need not be convincing where only its side along `chosen` is no edge (its other
/// three FRAMED), and the whole, judged itself, is convincing: a card creased across, its fold a
/// dark line, each part's side along it no step of paper to table; the part below the crease was
/// taken and the part above it, with the card's header, cut off.
Candidate join(const Photo &photo, const std::vector<Candidate> &found, const Candidate &chosen) {
    Candidate best = chosen;
    const double tolerance = 0.01 * photo.diagonal;
    for (int joins = 0; joins < 3; joins++) {
        const Quad a = best.quad;
        const Point centre = centreOf(a);
        std::optional<Candidate> joined;
        for (const Candidate &other : found) {
            // not convincing itself: it may still be the sheet's other part, beyond a crease that its
            // side along `chosen` follows, its other three sides edges
            const bool convincing = other.score >= ACCEPT;
            const Quad b = other.quad;
            for (int i = 0; i < 4 && !joined; i++) {
                const Line side = lineThrough(a[i], a[(i + 1) % 4]);
                const double inward = side.a * centre.x + side.b * centre.y - side.c;
                const Point beside = centreOf(b);
                if ((side.a * beside.x + side.b * beside.y - side.c) * inward >= 0) continue;  // not across side i
                for (int k = 0; k < 4 && !joined; k++) {
                    // b's side k along a's side i: a[i] meets b[k + 1], a[i + 1] meets b[k]
                    const Point near0 = b[(k + 1) % 4], near1 = b[k], far0 = b[(k + 2) % 4], far1 = b[(k + 3) % 4];
                    const double gap = std::max(std::hypot(a[i].x - near0.x, a[i].y - near0.y), std::hypot(a[(i + 1) % 4].x - near1.x, a[(i + 1) % 4].y - near1.y));
                    if (gap > BEYOND * photo.diagonal) continue;
                    if (!onFlanks(a, i, far0, far1, tolerance)) continue;
                    if (!convincing) {
                        bool framed = true;
                        for (int m = 0; m < 4; m++) framed = framed && (m == k || other.support[m] >= FRAMED);
                        if (!framed) continue;
                    }
                    const Quad whole = order(Quad{a[(i + 2) % 4], a[(i + 3) % 4], far0, far1});
                    if (!convex(whole)) continue;
                    joined = judge(photo, whole, best.source + "+joined");
                    if (!joined) continue;
                    if (convincing) joined->score = std::min(best.score, other.score);
                    else if (joined->score >= ACCEPT) joined->score = std::min(best.score, joined->score);
                    else joined.reset();
                }
            }
            if (joined) break;
        }
        if (!joined) break;
        best = *joined;
    }
    return best;
}

/// `chosen` with each side that is no real edge (less than FRAMED supported) moved out to a better
/// edge beyond it, where there is one: its two ends each moved out by up to 3 FAR (every 3 px, then
/// every pixel around the best), the line with the most support between the flanking sides
/// (stretchSupport) judged, and taken when its score is higher by 0.03 and the side FRAMED. A
/// receipt's faint side on a white table, with a line of print or a printed box just inside it
/// running a little askew, gave the candidates their side along that print: support 0.56, the cut
/// 24 px short of the receipt's foot. Out only: a side moved in could cut into the sheet. Nor is a
/// side that is an edge moved: a page's bowed top, its chord moved out to touch the bow at one end,
/// took the corner out along a side leaning outward, 2.5 % of the diagonal off.
Candidate outToEdge(const Photo &photo, const Candidate &chosen) {
    Candidate best = chosen;
    for (int i = 0; i < 4; i++) {
        if (i == chosen.fold || chosen.support[i] >= FRAMED) continue;
        const Quad q = best.quad;
        const Point centre = centreOf(q), from = q[i], to = q[(i + 1) % 4];
        std::array<Line, 4> lines;
        for (int k = 0; k < 4; k++) lines[k] = lineThrough(q[k], q[(k + 1) % 4]);
        Point out(from.y - to.y, to.x - from.x);
        out *= 1.0 / std::max(1e-9, std::hypot(out.x, out.y));
        if (dot(out, (from + to) * 0.5 - centre) < 0) out = -out;
        double most = -1, fromOut = 0, toOut = 0;
        std::optional<Quad> widest;
        auto tryOut = [&](double a, double b) {
            std::array<Line, 4> moved = lines;
            moved[i] = lineThrough(from + out * a, to + out * b);
            const auto corners = cornersOf(moved);
            if (!corners) return;
            const double support = stretchSupport(photo, (*corners)[i], (*corners)[(i + 1) % 4], centre, true);
            if (support > most) {
                most = support;
                fromOut = a;
                toOut = b;
                widest = corners;
            }
        };
        for (int a = 0; a <= 3 * FAR; a += 3)
            for (int b = 0; b <= 3 * FAR; b += 3) tryOut(a, b);
        const double roughA = fromOut, roughB = toOut;
        for (int a = -2; a <= 2; a++)
            for (int b = -2; b <= 2; b++)
                if (roughA + a >= 0 && roughB + b >= 0) tryOut(roughA + a, roughB + b);
        if (!widest) continue;
        const auto moved = judge(photo, *widest, best.source + "+out");
        if (!moved) continue;
#ifdef SHEET_DEBUG
        std::fprintf(stderr, "side %d out by %.0f, %.0f: support %.2f along it, score %.2f (was %.2f)\n", i, fromOut, toOut, most,
                     moved->score, best.score);
#endif
        // judge orders the corners anew: side i of `widest` may be another of `moved`'s
        int side = i;
        for (int k = 0; k < 4; k++)
            if (std::hypot(moved->quad[k].x - (*widest)[i].x, moved->quad[k].y - (*widest)[i].y) < 1e-6) side = k;
        if (moved->score >= best.score + 0.03 && moved->support[side] >= FRAMED) best = *moved;
    }
    return best;
}

/// `chosen` moved out over any band of sheet along a side (extend), and each other side moved out to
/// enclose the edge it follows (refine's envelope); its evidence kept as judged. A side that follows
/// an edge along most of it (FRAMED) is never pulled in past that edge: the refit took another,
/// stronger one inside it, the print close to a receipt's faint white-on-white edge, and the cut
/// along it lost the margin (7 of 1120 drawn scenes).
Candidate enclose(const Photo &photo, const Candidate &chosen) {
    const Quad &fitted = chosen.quad;
    const Point centre = centreOf(fitted);
    const Quad enclosed = refine(photo, fitted, true);
    Candidate out = extend(photo, chosen);
    std::array<Line, 4> lines;
    for (int i = 0; i < 4; i++) {
        // a side extend moved keeps the band's edge
        const Line before = lineThrough(fitted[i], fitted[(i + 1) % 4]);
        auto off = [&](Point p) { return std::abs(before.a * p.x + before.b * p.y - before.c); };
        const bool moved = std::max(off(out.quad[i]), off(out.quad[(i + 1) % 4])) > 0.5;
        const Quad &q = moved ? out.quad : enclosed;
        lines[i] = lineThrough(q[i], q[(i + 1) % 4]);
        if (moved || chosen.support[i] < FRAMED) continue;
        // a side judged to follow an edge is not pulled in past it (its ends more than NEAR inside)
        const Line &refit = lines[i];
        const double outward = refit.a * centre.x + refit.b * centre.y - refit.c < 0 ? 1 : -1;
        auto outside = [&](Point p) { return outward * (refit.a * p.x + refit.b * p.y - refit.c) / std::hypot(refit.a, refit.b); };
        if (std::min(outside(fitted[i]), outside(fitted[(i + 1) % 4])) > NEAR) lines[i] = before;
    }
    if (const auto corners = cornersOf(lines))
        if (const auto taken = judge(photo, *corners, out.source)) out.quad = taken->quad;
    return out;
}

/// The line of the top page's edge where a book's page block shows inside side `side` of `q`: the
/// edges of the pages beneath the top one (its fore-edge, photographed from above the book), thin
/// lines lighter than the page (paper edges facing the light; print only darkens paper) running
/// along the side, the cut taken around them all. Per point along the side, the lightness across
/// it from BLOCK of the diagonal inside out to the side: where it first leaves the page's (the
/// lightest tenth of as wide a strip again inside) on its way up to a peak STEP above it, with at
/// least BLOCK_LINES such peaks from there out (each QUIET above the trough before it) and nothing
/// between them darker than the page by twice INK (print: a row of white boxes on a form has dark
/// lines between). A line fitted to those places, where they are seen along most of the side and
/// lie on it within 2 px; none when the side shows no page block.
std::optional<Line> pageBlock(const Photo &photo, const Quad &q, int side) {
    const SidePoints s = sideSamples(q[side], q[(side + 1) % 4], centreOf(q), 2.0, 0.1);
    const int in = int(BLOCK * photo.diagonal), paperFrom = 2 * in;
    cv::Mat xs, ys;
    acrossSide(s, -paperFrom, paperFrom + 1, xs, ys);
    const cv::Mat labs = sample(photo.lab, xs, ys, cv::BORDER_REPLICATE);
    std::vector<cv::Point2f> edge;
    const int count = int(s.points.size());
    for (int r = 0; r < count; r++) {
        std::vector<float> l(size_t(paperFrom + 1));
        for (int j = 0; j <= paperFrom; j++) l[size_t(j)] = labs.at<cv::Vec3f>(r, j)[0];
        // the page: the lightest tenth of as wide a strip again inside (print only darkens it; a
        // band printed along the side is no page)
        std::vector<float> inner(l.begin(), l.begin() + (paperFrom - in));
        std::sort(inner.begin(), inner.end());
        const float paper = inner[size_t(0.9 * double(inner.size() - 1))];
        // peaks across the strip, inside out: lighter than the page by STEP, standing out by QUIET
        int first = -1, last = -1, peaks = 0;
        float trough = l[size_t(paperFrom - in)];
        for (int j = paperFrom - in + 1; j < paperFrom; j++) {
            trough = std::min(trough, l[size_t(j)]);
            if (l[size_t(j)] >= l[size_t(j - 1)] && l[size_t(j)] > l[size_t(j + 1)] && l[size_t(j)] >= paper + STEP &&
                l[size_t(j)] - trough >= QUIET) {
                if (first < 0) {
                    // the page's edge: where the lightness leaves the page's, on the way up to this peak
                    first = j;
                    while (first > 0 && l[size_t(first - 1)] >= paper + STEP / 2) first--;
                }
                peaks++;
                last = j;
                trough = l[size_t(j)];
            }
        }
        // paper edges all the way: no print among them
        const bool unprinted = first >= 0 && *std::min_element(l.begin() + first, l.begin() + last + 1) >= paper - 2 * INK;
        if (first >= 0 && peaks >= BLOCK_LINES && unprinted) edge.emplace_back(float(r), float(first - paperFrom));
    }
#ifdef SHEET_DEBUG
    std::fprintf(stderr, "side %d page block seen at %zu of %d points\n", side, edge.size(), count);
#endif
    if (edge.size() < size_t(0.6 * count)) return std::nullopt;
    cv::Vec4f fit;
    cv::fitLine(edge, fit, cv::DIST_HUBER, 0, 0.01, 0.01);
    std::vector<float> residual;
    const double slope = fit[1] / (fit[0] == 0 ? 1e-6f : fit[0]);  // offset per point along the side
    for (const auto &e : edge) residual.push_back(std::abs(float(e.y - (fit[3] + slope * (e.x - fit[2])))));
#ifdef SHEET_DEBUG
    std::fprintf(stderr, "  fit: offset %.1f at %.0f, slope %.3f, median residual %.1f\n", fit[3], fit[2], slope, median(residual));
#endif
    if (median(residual) > 2) return std::nullopt;
    // the line through the fitted offsets at the side's first and last sample
    const Point a = s.points.front() + s.normal * (fit[3] + slope * (0 - fit[2]));
    const Point b = s.points.back() + s.normal * (fit[3] + slope * (count - 1 - fit[2]));
    return lineThrough(a, b);
}

/// The top page's fore-edge inside side `side` of `q`, where the page block beside it shows as a
/// plain band rather than as lit page edges (pageBlock): the pages beneath, in the shade of the top
/// one, darker than it and lighter than what lies beyond them. A straight edge NEAR to BLOCK of the
/// diagonal inside the side, nearly parallel to it, across which the lightness (Photo::lightnessGradient)
/// falls outward as it does across the side (the strongest along each point, seen along 60 % of
/// it), at least 2 NEAR in; the band between STEP darker than the page inside it and QUIET lighter
/// than the strip outside the side. Sought only opposite a book's binding (topPage): elsewhere a
/// band like it is a header printed along the sheet's edge (extend).
std::optional<Line> blockBand(const Photo &photo, const Quad &q, int side) {
    const SidePoints s = sideSamples(q[side], q[(side + 1) % 4], centreOf(q), 2.0, 0.1);
    const Point n = s.normal;
    const int in = int(BLOCK * photo.diagonal), count = int(s.points.size());
    if (in < 3 * NEAR) return std::nullopt;  // too small a photo to tell a band
    cv::Mat xs, ys;
    acrossSide(s, -in, in - NEAR + 1, xs, ys);
    const auto &lightness = photo.lightnessGradient();
    const cv::Mat gx = sample(lightness[0], xs, ys, cv::BORDER_REPLICATE), gy = sample(lightness[1], xs, ys, cv::BORDER_REPLICATE);
    std::vector<cv::Point2f> found;
    std::vector<float> depths;
    for (int r = 0; r < count; r++) {
        float strongest = EDGE;
        int at = -1;
        for (int j = 0; j < xs.cols; j++) {
            const float x = gx.at<float>(r, j), y = gy.at<float>(r, j);
            const float across = -(x * float(n.x) + y * float(n.y)), along = std::abs(x * float(n.y) - y * float(n.x));
            if (across > 2 * along && across > strongest) {
                strongest = across;
                at = j;
            }
        }
        if (at >= 0) {
            found.emplace_back(xs.at<float>(r, at), ys.at<float>(r, at));
            depths.push_back(float(in - at));
        }
    }
    if (found.size() < size_t(0.6 * count)) return std::nullopt;
    const float depth = median(depths);
    if (depth < 2 * NEAR) return std::nullopt;
    cv::Vec4f fit;
    cv::fitLine(found, fit, cv::DIST_HUBER, 0, 0.01, 0.01);
    const Line line = lineThrough(Point(fit[2], fit[3]), Point(fit[2] + fit[0], fit[3] + fit[1]));
    for (const Point &p : {q[side], q[(side + 1) % 4]}) {  // nearly parallel: both ends within the band searched
        const double distance = std::abs(line.a * p.x + line.b * p.y - line.c);
        if (distance < NEAR || distance > in) return std::nullopt;
    }
    const auto page = stripColour(photo, q, side, -depth - 3 * FAR, -depth - NEAR);
    const auto band = stripColour(photo, q, side, -depth + NEAR / 2.0, -NEAR / 2.0);
    const auto outside = stripColour(photo, q, side, NEAR, 3 * FAR);
    if (!page || !band || !outside) return std::nullopt;
    if ((*band)[0] > (*page)[0] - STEP || (*band)[0] < (*outside)[0] + QUIET) return std::nullopt;
    return line;
}

/// `chosen` with each side along which a page block shows moved in to the top page's edge
/// (pageBlock; opposite a book's binding, blockBand too), the rest of it as judged; `chosen` itself
/// when no side shows one, or the page would be no plausible quadrilateral.
Candidate topPage(const Photo &photo, const Candidate &chosen) {
    std::array<Line, 4> lines;
    bool moved = false;
    for (int i = 0; i < 4; i++) {
        lines[i] = lineThrough(chosen.quad[i], chosen.quad[(i + 1) % 4]);
        auto inner = pageBlock(photo, chosen.quad, i);
        if (!inner && chosen.fold >= 0 && i == (chosen.fold + 2) % 4) inner = blockBand(photo, chosen.quad, i);
        if (inner) {
            lines[i] = *inner;
            moved = true;
        }
    }
    if (!moved) return chosen;
    const auto corners = cornersOf(lines);
    if (!corners) return chosen;
    // the page block is the evidence for the side moved in (its step, a page against the lighter
    // edges of those beneath, is not one a sheet makes against a table): the rest is as judged
    if (!convex(*corners) || !plausible(*corners, photo.w, photo.h)) return chosen;
    Candidate out = chosen;
    out.quad = *corners;
    out.source += "+page";
    return out;
}

// --- curved sides ------------------------------------------------------------------------------------

/// Where the sheet's edge may run along side `i` of `q`, every 2 px along it: each offset, outermost
/// first (from BOW_REACH inside it to 2 px outside), where the lightness falls outward as from
/// `paper` to `table`, by an edge (EDGE) with the lightness NEAR to FAR outside it below that NEAR to
/// FAR inside it by STEP (not a line of print, with paper again beyond it), or where the chroma falls
/// outward so, by COLOUR_STEP (a red band along the page's top against a grey cloth as light as the
/// red); none where there is neither. `along`: each point's distance from corner i; `normal`: the
/// side's outward normal.
std::vector<std::vector<double>> edgeTrace(const Photo &photo, const Quad &q, int i, float paper, float table, std::vector<double> &along,
                              Point &normal) {
    const Point p = q[i], e = q[(i + 1) % 4];
    const double length = std::hypot(e.x - p.x, e.y - p.y);
    const SidePoints side = sideSamples(p, e, centreOf(q), 2.0, 0.0);
    normal = side.normal;
    const int in = std::max(4, int(BOW_REACH * photo.diagonal)), out = 2;
    const int width = in + out + 1, count = int(side.points.size());
    cv::Mat probeX, probeY;
    acrossSide(side, -in, width, probeX, probeY);
    const cv::Mat gx = sample(photo.gx, probeX, probeY, cv::BORDER_REPLICATE), gy = sample(photo.gy, probeX, probeY, cv::BORDER_REPLICATE);
    const cv::Mat labs = sample(photo.lab, probeX, probeY, cv::BORDER_REPLICATE);
    cv::Mat lightness;
    cv::extractChannel(labs, lightness, 0);
    const float falls = paper > table ? 1.0f : -1.0f;
    // each point's chroma (its distance from grey in a and b): a coloured band printed along the
    // sheet's edge, as light as a grey table, shows by its colour alone
    cv::Mat chroma(labs.size(), CV_32F);
    for (int r = 0; r < labs.rows; r++)
        for (int j = 0; j < labs.cols; j++) {
            const cv::Vec3f v = labs.at<cv::Vec3f>(r, j);
            chroma.at<float>(r, j) = std::hypot(v[1] - 128.0f, v[2] - 128.0f);
        }
    auto colourFalls = [&](int r, int j) {
        std::vector<float> before, beyond;
        for (int o = std::max(0, j - FAR); o <= j - NEAR; o++) before.push_back(chroma.at<float>(r, o));
        for (int o = j + NEAR; o <= std::min(width - 1, j + FAR); o++) beyond.push_back(chroma.at<float>(r, o));
        if (before.empty() || beyond.empty()) return false;
        return median(before) - median(beyond) >= float(COLOUR_STEP);
    };
    std::vector<float> colourResponse(width);
    auto stepsDown = [&](int r, int j) {
        std::vector<float> before, beyond;
        for (int o = std::max(0, j - FAR); o <= j - NEAR; o++) before.push_back(lightness.at<float>(r, o));
        for (int o = j + NEAR; o <= std::min(width - 1, j + FAR); o++) beyond.push_back(lightness.at<float>(r, o));
        if (before.size() < 3) return false;  // at the probe's inner end: too little before it to tell
        if (beyond.empty()) return true;       // at the probe's outer end: beyond the straight side
        return falls * (median(before) - median(beyond)) >= float(STEP);
    };
    std::vector<std::vector<double>> offsets{size_t(count)};
    along.assign(count, 0);
    std::vector<float> response(width);
    for (int r = 0; r < count; r++) {
        along[r] = length * r / std::max(1, count - 1);
        for (int j = 0; j < width; j++) {
            response[j] = -falls * (gx.at<float>(r, j) * float(normal.x) + gy.at<float>(r, j) * float(normal.y));
            colourResponse[j] = 4 * (chroma.at<float>(r, std::max(0, j - 1)) - chroma.at<float>(r, std::min(width - 1, j + 1)));
        }
        auto peak = [&](const std::vector<float> &v, int j) { return v[j] >= EDGE && v[j] >= v[j - 1] && v[j] >= v[j + 1]; };
        for (int j = width - 2; j >= 1; j--)
            if ((peak(response, j) && stepsDown(r, j)) || (peak(colourResponse, j) && colourFalls(r, j))) offsets[size_t(r)].push_back(j - in);
    }
    return offsets;
}

/// Per point, the offset of the outermost of `edges` (each point's, outermost first, as edgeTrace
/// gives them) that runs on: each edge is followed from point to point within a pixel and a half,
/// inner ones too, and one that runs on for CONTINUOUS points is an edge of the sheet (letters'
/// edges come and go). NaN, and `running` false, where none does. Specks of cloth or grain just
/// outside a page that curls away from the straight side into its binding hide the curl from a
/// trace of the outermost edge alone, but not from this.
std::vector<double> runningEdge(const std::vector<std::vector<double>> &edges, std::vector<bool> &running) {
    std::vector<std::vector<size_t>> chainOf(edges.size());
    std::vector<size_t> points, lastRow;
    for (size_t r = 0; r < edges.size(); r++)
        for (double e : edges[r]) {
            size_t joined = points.size();
            double nearest = 1.5;
            if (r > 0)
                for (size_t k = 0; k < edges[r - 1].size(); k++) {
                    const size_t chain = chainOf[r - 1][k];
                    if (lastRow[chain] == r - 1 && std::abs(e - edges[r - 1][k]) <= nearest) {
                        nearest = std::abs(e - edges[r - 1][k]);
                        joined = chain;
                    }
                }
            if (joined == points.size()) {
                points.push_back(0);
                lastRow.push_back(r);
            }
            points[joined]++;
            lastRow[joined] = r;
            chainOf[r].push_back(joined);
        }
    std::vector<double> offsets(edges.size(), std::numeric_limits<double>::quiet_NaN());
    running.assign(edges.size(), false);
    for (size_t r = 0; r < edges.size(); r++)
        for (size_t k = 0; k < edges[r].size(); k++)
            if (points[chainOf[r][k]] >= CONTINUOUS && (!running[r] || edges[r][k] > offsets[r])) {
                offsets[r] = edges[r][k];
                running[r] = true;
            }
    return offsets;
}

/// The polyline `hull` (points in order of x) at `x`; beyond its ends carried on straight along the
/// chord over its last `baseline` (its last segment alone may be a few pixels long).
double hullAt(const std::vector<Point> &hull, double x, double baseline) {
    auto within = [&](double at) {
        size_t k = 1;
        while (k + 1 < hull.size() && hull[k].x < at) k++;
        const Point a = hull[k - 1], b = hull[k];
        return a.y + (b.y - a.y) * (at - a.x) / std::max(1e-9, b.x - a.x);
    };
    const double first = hull.front().x, last = hull.back().x, span = std::max(1e-9, std::min(baseline, last - first));
    if (x < first) return hull.front().y + (within(first + span) - hull.front().y) * (x - first) / span;
    if (x > last) return hull.back().y + (hull.back().y - within(last - span)) * (x - last) / span;
    return within(x);
}

/// The sheet's sides where they bow or curl: per side of the straight quadrilateral `q`, the
/// polyline of (distance along the side from its first corner, offset outward) the sheet's edge
/// follows; a straight side's is the side itself.
struct Bends {
    Quad q;
    std::array<std::vector<Point>, 4> sides;
    std::array<Point, 4> along, normal;
    std::array<double, 4> length;
    // per corner i (where side i - 1 ends and side i begins), the foot of a curl into it: the side
    // the corner lies on and how far along it (curlFeet); none where the curved sides' crossing is it
    std::array<std::optional<std::pair<int, double>>, 4> foot;

    Point at(int i, double t) const { return q[i] + along[i] * t + normal[i] * hullAt(sides[i], t, 0.15 * length[i]); }
};

/// `hull`, a side's traced edge between the ends left out (ROUNDED), taking in the points of that
/// edge (`offsets` where `running`, at `along`) in those ends that lie outside it carried on, where
/// the edge runs on into them from the hull unbroken (no more than 2 px from one point to the next,
/// the first from the hull). A torn top, sagging between its corners, rises to sharp tips there; the
/// hull carried on along its last stretch passed below them, and the cut lost them, though the
/// enclosed straight side (which the trace reaches 2 px beyond) had taken them in. A rounded or
/// dog-eared corner falls inside the hull carried on and leaves it as it is; nor is another edge
/// further out (a header's, where a bowed side's own curves away from it) the side's running on.
std::vector<Point> withTips(const std::vector<Point> &hull, const std::vector<double> &offsets, const std::vector<bool> &running,
                            const std::vector<double> &along, double length) {
    std::vector<Point> points = hull;
    const int count = int(offsets.size());
    auto carried = [&](double at) { return hullAt(hull, at, 0.15 * length); };
    auto leftOut = [&](int r) { return along[r] < ROUNDED * length || along[r] > (1 - ROUNDED) * length; };
    for (int dir : {-1, 1}) {
        // from the hull at the last point before the end left out, on toward the end
        int r = dir < 0 ? 0 : count - 1;
        while (r >= 0 && r < count && leftOut(r)) r -= dir;
        if (r < 0 || r >= count) continue;
        double last = carried(along[r]);
        for (r += dir; r >= 0 && r < count && running[r] && std::abs(offsets[r] - last) <= 2; r += dir) {
            if (offsets[r] > carried(along[r]) + 1) points.emplace_back(along[r], offsets[r]);
            last = offsets[r];
        }
    }
    if (points.size() == hull.size()) return hull;
    std::sort(points.begin(), points.end(), [](Point a, Point b) { return a.x < b.x; });
    return upperHull(points);
}

/// Side `i` of `q`'s traced edge (`offsets` where `running`, every 2 px from corner i, as
/// runningEdge gives them) where it runs out to the frame and stops: the sheet runs on past the
/// frame there (a book's page sagging below it between its corners), and the side itself is taken
/// as its edge, up to the frame, until an edge is traced again. Out to the frame: within NEAR of the
/// side, the frame within FAR beyond it. Followed from either end.
void pastTheFrame(const Photo &photo, const Quad &q, int i, std::vector<double> &offsets, std::vector<bool> &running) {
    const SidePoints side = sideSamples(q[i], q[(i + 1) % 4], centreOf(q), 2.0, 0.0);
    const size_t count = std::min(offsets.size(), side.points.size());
    auto frameNear = [&](size_t r) {
        const Point out = side.points[r] + side.normal * double(FAR);
        return out.x < 0 || out.y < 0 || out.x > photo.w - 1 || out.y > photo.h - 1;
    };
    std::vector<bool> past(count, false);
    for (const bool forward : {true, false}) {
        bool out = false;
        for (size_t k = 0; k < count; k++) {
            const size_t r = forward ? k : count - 1 - k;
            if (running[r])
                out = frameNear(r) && offsets[r] >= -NEAR;
            else if (out && frameNear(r))
                past[r] = true;
            else
                out = false;
        }
    }
    for (size_t r = 0; r < count; r++)
        if (past[r]) {
            offsets[r] = 0;
            running[r] = true;
        }
}

/// Where the sheet's sides bow or curl (a sheet lifted off the table, a book's page curling into
/// its binding): each side's edges traced (edgeTrace), the outermost that runs on kept
/// (runningEdge), specks narrower than RUN points opened away, and its upper hull taken, so that no
/// part of the sheet lies outside it, without ends turning steeper than TURN (a hand, a shadow),
/// where the edge is seen along most of the side, at both ends, and the hull strays from its own
/// chord by BOW or more (a side moved in parallel is a band's or a shadow's edge, not the sheet
/// bowing), then carried out to the tips the edge runs on to in its ends (withTips); where the
/// edge runs out to the frame and stops, the side itself up to the frame (pastTheFrame). None when
/// no side bows. The paper's lightness and the table's are measured inside and around `measured`;
/// where the two do not differ by STEP (an open book: its facing page as light as the paper beside
/// the binding, dark wood beyond the other sides), each side is traced against the lightness just
/// outside it instead, and left straight where that is like the paper's. Where the strip just
/// inside a side lies on the other side of the table's lightness from the paper, by STEP or more,
/// that side is traced by the strip's own step out onto the table: a dark header on a page lighter
/// than the table, whose lower edge, traced by the paper's step, was followed and the header cut
/// off; or the shadow a curled edge casts, darker than the table, which the cut then takes in too:
/// a looser cut, nothing lost (page02.jpg, 1.4 % instead of 0.7 %).
std::optional<Bends> bends(const Photo &photo, const Quad &q, const Quad &measured) {
    const cv::Mat inside = smallMask(photo, measured);
    cv::Mat around;
    cv::dilate(inside, around, cv::Mat::ones(9, 9, CV_8U));
    cv::subtract(around, inside, around);
    if (cv::countNonZero(around) < 20) return std::nullopt;
    const float paper = medianLightness(photo, inside), aroundLightness = medianLightness(photo, around);
    // where the ring around is as light as the paper (a book's facing page beside its binding, a dark
    // table beyond its other sides), each side is traced against the lightness just outside it
    const bool perSide = std::abs(paper - aroundLightness) < STEP;
    Bends out;
    out.q = q;
    bool bowed = false;
    for (int i = 0; i < 4; i++) {
        const Point d = q[(i + 1) % 4] - q[i];
        out.length[i] = std::hypot(d.x, d.y);
        out.along[i] = d / std::max(1e-9, out.length[i]);
        out.sides[i] = {Point(0, 0), Point(out.length[i], 0)};
        std::vector<double> along;
        float table = aroundLightness;
        if (perSide) {
            const auto outside = stripColour(photo, q, i, NEAR, 3 * FAR);
            if (!outside || std::abs((*outside)[0] - paper) < STEP) continue;
            table = (*outside)[0];
        }
        // a strip along the side on the other side of the table's lightness from the paper (a dark
        // header on a page lighter than the table, or a shadow): its own outer edge is traced
        float sidePaper = paper;
        if (const auto strip = stripColour(photo, q, i, -FAR, -NEAR)) {
            const float inside = (*strip)[0];
            if ((inside - table) * (paper - table) < 0 && std::abs(inside - table) >= STEP) sidePaper = inside;
        }
        const std::vector<std::vector<double>> edges = edgeTrace(photo, q, i, sidePaper, table, along, out.normal[i]);
        std::vector<bool> running;
        std::vector<double> offsets = runningEdge(edges, running);
        pastTheFrame(photo, q, i, offsets, running);
        std::vector<double> seen, at;
        for (size_t r = 0; r < offsets.size(); r++)
            if (running[r] && along[r] >= ROUNDED * out.length[i] && along[r] <= (1 - ROUNDED) * out.length[i]) {
                seen.push_back(offsets[r]);
                at.push_back(along[r]);
            }
        const size_t n = seen.size();
#ifdef SHEET_DEBUG
        std::fprintf(stderr, "side %d traced: %zu of %zu running, from %.0f to %.0f of %.0f\n", i, n, offsets.size(), n ? at.front() : -1.0, n ? at.back() : -1.0, out.length[i]);
#endif
        if (n == 0 || n < 0.6 * (1 - 2 * ROUNDED) * double(offsets.size()) || at.front() > 0.2 * out.length[i] || at.back() < 0.8 * out.length[i])
            continue;
        const std::vector<double> specksAway = opened(seen, RUN);
        std::vector<Point> edge(n);
        for (size_t j = 0; j < n; j++) edge[j] = Point(at[j], specksAway[j]);
        std::vector<Point> hull = upperHull(edge);
        auto steep = [](Point a, Point b) { return std::abs(b.y - a.y) > TURN * std::abs(b.x - a.x); };
        while (hull.size() > 2 && steep(hull[0], hull[1])) hull.erase(hull.begin());
        while (hull.size() > 2 && steep(hull[hull.size() - 2], hull.back())) hull.pop_back();
        const Point a = hull.front(), b = hull.back();
        double stray = 0;
        for (const Point &h : hull) stray = std::max(stray, std::abs(h.y - (a.y + (b.y - a.y) * (h.x - a.x) / std::max(1e-9, b.x - a.x))));
#ifdef SHEET_DEBUG
        std::fprintf(stderr, "side %d bends: %zu of %zu points seen, strays %.1f from its chord (%.1f needed)\n", i, n, offsets.size(),
                     stray, BOW * photo.diagonal);
#endif
        if (stray < BOW * photo.diagonal) continue;
        out.sides[i] = withTips(hull, offsets, running, along, out.length[i]);
        bowed = true;
    }
    if (!bowed) return std::nullopt;
    return out;
}

/// The outline of `bends` with each side moved out by `margin`: its corners where the curved sides
/// meet (or at the foot of a curl, moved toward the crossing by `margin`), each side
/// PTCV_SIDE_POINTS points from its corner to the next. None when two sides do not
/// cross near the straight corner.
using Outline = std::array<std::array<Point, PTCV_SIDE_POINTS>, 4>;
std::optional<Outline> outlineOf(Bends bends, double margin) {
    for (auto &side : bends.sides)
        for (Point &p : side) p.y += margin;
    // corner k + 1, where side k crosses side k + 1: by bisection along side k, between its middle and
    // well past its end, on the sign of how far its point lies beyond side k + 1
    std::array<double, 4> first{}, last{};
    for (int k = 0; k < 4; k++) {
        const int next = (k + 1) % 4;
        auto beyond = [&](double t) {
            const Point p = bends.at(k, t) - bends.q[next];
            return dot(p, bends.normal[next]) - hullAt(bends.sides[next], dot(p, bends.along[next]), 0.15 * bends.length[next]);
        };
        double lo = 0.5 * bends.length[k], hi = 1.3 * bends.length[k];
        if (beyond(lo) > 0 || beyond(hi) < 0) return std::nullopt;
        for (int round = 0; round < 40; round++) {
            const double middle = (lo + hi) / 2;
            (beyond(middle) > 0 ? hi : lo) = middle;
        }
        last[k] = lo;
        first[next] = dot(bends.at(k, lo) - bends.q[next], bends.along[next]);
        // at the foot of a curl, moved toward the crossing by the margin, on the side it lies on; the
        // curled side's own points end at the crossing, its last one at the foot
        if (const auto &foot = bends.foot[next]) {
            if (foot->first == next)
                first[next] = foot->second - margin;
            else
                last[k] = foot->second + margin;
        }
    }
    Outline out;
    for (int i = 0; i < 4; i++) {
        const std::vector<double> ts = linspace(first[i], last[i], PTCV_SIDE_POINTS);
        for (int j = 0; j < PTCV_SIDE_POINTS; j++) out[i][j] = bends.at(i, ts[j]);
    }
    // each corner once: where side i ends, side i + 1 starts (at a foot, the point on the side it lies on)
    for (int i = 0; i < 4; i++) {
        const int next = (i + 1) % 4;
        if (bends.foot[next] && bends.foot[next]->first == next)
            out[i][PTCV_SIDE_POINTS - 1] = out[next][0];
        else
            out[next][0] = out[i][PTCV_SIDE_POINTS - 1];
    }
    return out;
}

/// The corners of `bends` where one side curls into an open book's binding, moved along the other
/// to the foot of the curl (`foot`). A page's top curls down into the fold; the curved sides cross
/// where the curl, carried on, meets the binding's line, but its last drop runs down along that line
/// itself, too steep for the curled side's trace to follow, and the page's corner is at its foot,
/// where the facing page begins. So where a side's last stretch (0.15 of it) turns in by CURL or
/// more, the colour just outside the other side is followed from the crossing on, as far as a bend
/// is traced (BOW_REACH): its first RUN points are the table beside the drop, and where it differs
/// from that by STEP and is more like the paper just inside, for RUN points, is the foot. Past a
/// sheet's rounded or bowed corner the table lies outside both sides; a checked cloth's next square
/// differs from the last but is no more like the paper; a facing page already beside the crossing
/// (a page whose curl the binding's line meets at its bottom) is the reference, and nothing moves.
void curlFeet(const Photo &photo, Bends &bends) {
    const auto crossings = outlineOf(bends, 0);
    if (!crossings) return;
    // the median colour NEAR..FAR outside (side 1) or inside (-1) side `i` at `t` along it; none off the photo
    auto strip = [&](int i, double t, double side) -> std::optional<cv::Vec3f> {
        std::array<std::vector<float>, 3> channels;
        for (int o = NEAR; o <= FAR; o++) {
            const Point p = bends.at(i, t) + bends.normal[i] * (side * o);
            const int x = int(std::lround(p.x)), y = int(std::lround(p.y));
            if (x < 0 || y < 0 || x >= photo.w || y >= photo.h) return std::nullopt;
            const cv::Vec3f v = photo.lab.at<cv::Vec3f>(y, x);
            for (int c = 0; c < 3; c++) channels[c].push_back(v[c]);
        }
        return cv::Vec3f(median(channels[0]), median(channels[1]), median(channels[2]));
    };
    auto outside = [&](int i, double t) { return strip(i, t, 1.0); };
    auto inside = [&](int i, double t) { return strip(i, t, -1.0); };
    for (int c = 0; c < 4; c++) {
        const Point corner = (*crossings)[c][0];
        // side c - 1 curling at its end into side c, or side c curling at its start into side c - 1
        for (const auto [curled, other, toward] : {std::tuple{(c + 3) % 4, c, 1.0}, std::tuple{c, (c + 3) % 4, -1.0}}) {
            const std::vector<Point> &hull = bends.sides[curled];
            if (hull.size() <= 2) continue;  // straight
            const double span = 0.15 * bends.length[curled], tc = dot(corner - bends.q[curled], bends.along[curled]);
            // `toward`: +1 where the curled side ends at the corner, and the other starts there
            const double drop = hullAt(hull, tc, span) - hullAt(hull, tc - toward * span, span);
            if (drop > -CURL * span) continue;
            // the colour outside the other side from the crossing on (the table beside the curl's
            // drop), until it changes
            const double from = dot(corner - bends.q[other], bends.along[other]);
            std::array<std::vector<float>, 3> seen;
            cv::Vec3f table;
            size_t unlike = 0;
            for (double shift = 0; shift <= BOW_REACH * photo.diagonal; shift += 2.0) {
                const double t = from + toward * shift;
                const auto v = outside(other, t);
                if (!v) break;
                if (seen[0].size() < RUN) {
                    for (int k = 0; k < 3; k++) seen[k].push_back((*v)[k]);
                    if (seen[0].size() == RUN) table = cv::Vec3f(median(seen[0]), median(seen[1]), median(seen[2]));
                    continue;
                }
                // the facing page: unlike the table beside the drop, and more like the paper just inside
                const auto paper = inside(other, t);
                const bool facing = paper && cv::norm(*v - table) >= STEP && cv::norm(*v - *paper) < cv::norm(*v - table);
                unlike = facing ? unlike + 1 : 0;
                if (unlike == RUN) {
                    bends.foot[c] = std::pair{other, t - toward * 2.0 * double(RUN - 1)};
                    break;
                }
            }
#ifdef SHEET_DEBUG
            std::fprintf(stderr, "corner %d: side %d curls into side %d (turning in by %.2f), foot %s\n", c, curled, other, -drop / span,
                         bends.foot[c] ? "found" : "not found");
#endif
            if (bends.foot[c]) break;
        }
    }
}

/// The corners of `bends` on the book's binding, fold side `fold`, moved along it to where the page
/// begins (`foot`). Where the curved sides cross the binding's line, the table may lie just inside
/// it: above a top dropping steeply into the binding, below a bottom rising into it (a bookmark's
/// cord there, or the wood). So from each crossing the binding is followed inward, as far as a bend
/// is traced (BOW_REACH): the colour just inside it (NEAR..FAR) at its first RUN points is what lies
/// at the crossing, and where it differs from that by STEP and is more like the paper further in (3
/// to 5 FAR), for RUN points, is the foot. Where the page itself reaches the crossing, nothing moves.
void foldFeet(const Photo &photo, Bends &bends, int fold) {
    const auto crossings = outlineOf(bends, 0);
    if (!crossings) return;
    // the median colour from `from` to `to` px inside the binding at `t` along it; none off the photo
    auto strip = [&](double t, int from, int to) -> std::optional<cv::Vec3f> {
        std::array<std::vector<float>, 3> channels;
        for (int o = from; o <= to; o++) {
            const Point p = bends.at(fold, t) - bends.normal[fold] * double(o);
            const int x = int(std::lround(p.x)), y = int(std::lround(p.y));
            if (x < 0 || y < 0 || x >= photo.w || y >= photo.h) continue;
            const cv::Vec3f v = photo.lab.at<cv::Vec3f>(y, x);
            for (int c = 0; c < 3; c++) channels[c].push_back(v[c]);
        }
        if (channels[0].size() < 3) return std::nullopt;
        return cv::Vec3f(median(channels[0]), median(channels[1]), median(channels[2]));
    };
    // the corner where the binding starts, followed forward; the one where it ends, back
    for (const auto &[corner, toward] : {std::pair{fold, 1.0}, std::pair{(fold + 1) % 4, -1.0}}) {
        if (bends.foot[corner]) continue;
        const double from = dot((*crossings)[corner][0] - bends.q[fold], bends.along[fold]);
        std::array<std::vector<float>, 3> seen;
        cv::Vec3f atCrossing;
        size_t page = 0;
        for (double shift = 0; shift <= BOW_REACH * photo.diagonal; shift += 2.0) {
            const double t = from + toward * shift;
            const auto v = strip(t, NEAR, FAR), paper = strip(t, 3 * FAR, 5 * FAR);
            if (!v || !paper) break;
            if (seen[0].size() < RUN) {
                for (int k = 0; k < 3; k++) seen[k].push_back((*v)[k]);
                if (seen[0].size() == RUN) atCrossing = cv::Vec3f(median(seen[0]), median(seen[1]), median(seen[2]));
                continue;
            }
            const bool begun = cv::norm(*v - atCrossing) >= STEP && cv::norm(*v - *paper) < cv::norm(*v - atCrossing);
            page = begun ? page + 1 : 0;
            if (page == RUN) {
                bends.foot[corner] = std::pair{fold, t - toward * 2.0 * double(RUN - 1)};
                break;
            }
        }
#ifdef SHEET_DEBUG
        std::fprintf(stderr, "binding %d, corner %d: foot %s\n", fold, corner, bends.foot[corner] ? "found" : "not found");
#endif
    }
}

/// `c` refined (refine), unless it was among the leaders refined already or refining makes it
/// weaker.
Candidate refined(const Photo &photo, const Candidate &c) {
    if (c.source.find("refined") != std::string::npos) return c;
    const auto out = judge(photo, refine(photo, c.quad), c.source + "+refined");
    return out && out->score >= std::min(ACCEPT, c.score - 0.02) ? *out : c;
}

/// `c` joined with the parts of the sheet beside it and moved out over any band of sheet along its
/// sides: what the one chosen is taken as.
Candidate grown(const Photo &photo, const std::vector<Candidate> &found, const Candidate &c) {
    return enclose(photo, outToEdge(photo, join(photo, found, c)));
}

/// The sheet that `found[heldBack]`, held back as part of a larger sheet (partOfLarger, or framed by
/// a larger candidate that is not convincing: framedByMore), belongs to, where the rest of it is a
/// convincing candidate beside it. Of the REFINED best convincing candidates other than the part
/// and not inside it, the first that, grown (refined, then as the one chosen is), holds the part
/// and is no part of a larger sheet itself: its index (refined in `found`, as the one chosen is)
/// and what it grew to. A header band is convincing in its own right where its colour is unlike the
/// table's (a navy band on brown wood, as light as the wood), and it may beat the page it heads by
/// a little: taken first, it was held back (the page's paper beyond it), and bowed, its short sides
/// could not say that the page runs on from them (join), so the photo was left whole. The page,
/// grown over the band, takes the header in.
std::optional<std::pair<int, Candidate>> grownOver(const Photo &photo, std::vector<Candidate> &found, int heldBack) {
    const Quad part = found[heldBack].quad;
    const double slack = 0.01 * photo.diagonal;
    std::vector<size_t> ranked;
    for (size_t i = 0; i < found.size(); i++)
        if (found[i].score >= ACCEPT && int(i) != heldBack && !contains(part, found[i].quad, slack)) ranked.push_back(i);
    std::stable_sort(ranked.begin(), ranked.end(), [&](size_t i, size_t j) { return found[i].score > found[j].score; });
    if (ranked.size() > REFINED) ranked.resize(REFINED);
    for (size_t i : ranked) {
        const Candidate rest = refined(photo, found[i]), whole = grown(photo, found, rest);
        if (!contains(whole.quad, part, slack) || partOfLarger(photo, whole.quad)) continue;
        found[i] = rest;
        return std::make_pair(int(i), whole);
    }
    return std::nullopt;
}

/// Where the edge of a side, carried on from `from` in the unit direction `dir`, ends: followed in
/// steps of STRIDE of the diagonal, each sought a few pixels either side of the way so far
/// (shiftedSupport, quiet: white on white) and taken where it shows along RUNS_ON of the step, the
/// way turning with it (a bowed side); the step it fails halved, and halved again, down to a few
/// pixels; never further in all than the diagonal. Each step's points go into `trace`. None when the
/// edge does not show past `from` at all.
std::optional<Point> followed(const Photo &photo, Point from, Point dir, Point centre, std::vector<cv::Point2f> &trace) {
    Point at = from;
    bool moved = false;
    double travelled = 0;  // no side is longer than the diagonal (an edge round a logo goes on for ever)
    for (double step = STRIDE * photo.diagonal; step >= NEAR && travelled < photo.diagonal;) {
        const double length = withinPhoto(photo, at, dir, step);
        const auto [shown, shift] = length >= NEAR ? shiftedSupport(photo, at, at + dir * length, centre) : std::pair{0.0, Point(0, 0)};
        if (shown < RUNS_ON) {
            step /= 2;
            continue;
        }
        const Point start = at + shift, next = at + dir * length + shift;
        for (double t = 0; t <= length; t += 2) trace.emplace_back(start + (next - start) * (t / length));
        const double by = std::hypot(next.x - at.x, next.y - at.y);
        dir = (next - at) * (1 / by);
        travelled += by;
        at = next;
        moved = true;
    }
    if (!moved) return std::nullopt;
    return at;
}

/// The sheet that `part`, held back as part of a larger sheet, belongs to, where that sheet's own
/// outline is no candidate: from a side with more of the sheet beyond it (paperBeyondSide), the two
/// sides beside it followed on along their edges to where those end, and the far side followed from
/// one end to the other; each side the line enclosing its edge (a page's sides bow a little, and a
/// cut through a bow loses its tip). Its evidence is what was seen on the way: `part`'s own for the
/// side across from the one it was followed on from, the weaker of `part`'s sides beside it for the
/// sides followed on (their edge showed at every step), and the share of the far side followed. A
/// white page on a white table headed by a coloured band: the band is convincing, the page's faint
/// sides, too faint for Canny or LSD and too far from its print for a sweep, none; the page's
/// sides run on below the band, and its foot runs between their ends. The best convincing one that
/// holds `part`, or none; none too where the sheet runs on past two opposite sides of `part`.
std::optional<Candidate> followedOn(const Photo &photo, const Candidate &part) {
    const Quad &q = part.quad;
    const Point centre = centreOf(q);
    const auto paper = lightestPaper(photo, q);
    if (!paper) return std::nullopt;
    const int reach = int(REACH * photo.diagonal);
    auto enclosingLine = [&](const std::vector<cv::Point2f> &trace, Point from, Point to) {
        cv::Vec4f fit;
        cv::fitLine(trace, fit, cv::DIST_HUBER, 0, 0.01, 0.01);
        return enclosing(lineThrough(Point(fit[2], fit[3]), Point(fit[2] + fit[0], fit[3] + fit[1])), trace, centre, {from, to}, reach);
    };
    // the sides beside each side with paper beyond it, followed on past its corners
    struct Ends {
        Point before, after;
        std::vector<cv::Point2f> alongBefore, alongAfter;
    };
    std::array<std::optional<Ends>, 4> ends;
    for (int i = 0; i < 4; i++) {
        if (!paperBeyondSide(photo, q, i, *paper)) continue;
        const Point a = q[i], b = q[(i + 1) % 4];
        const Point before = a - q[(i + 3) % 4], after = b - q[(i + 2) % 4];
        Ends e;
        const auto endBefore = followed(photo, a, before * (1 / std::hypot(before.x, before.y)), centre, e.alongBefore);
        const auto endAfter = followed(photo, b, after * (1 / std::hypot(after.x, after.y)), centre, e.alongAfter);
        if (!endBefore || !endAfter) continue;
        e.before = *endBefore;
        e.after = *endAfter;
        ends[i] = e;
    }
    // the sheet running on past both of two opposite sides: `part` lies across it (a card's stripe
    // with the card's margin beyond its top too), and followed on one way, the other way is lost
    for (int i = 0; i < 2; i++)
        if (ends[i] && ends[i + 2]) return std::nullopt;
    std::optional<Candidate> best;
    for (int i = 0; i < 4; i++) {
        if (!ends[i]) continue;
        const auto &[endBefore, endAfter, alongBefore, alongAfter] = *ends[i];
        std::vector<cv::Point2f> alongFar;
        const Point across = endAfter - endBefore;
        const double span = std::hypot(across.x, across.y);
        if (span < 2 * FAR) continue;
        const auto endFar = followed(photo, endBefore, across * (1 / span), centre, alongFar);
        if (!endFar || alongFar.size() < RUN) continue;
        // side k of the corners below lies on lines[k], as side k of `q` does
        std::array<Line, 4> lines;
        lines[(i + 2) % 4] = lineThrough(q[(i + 2) % 4], q[(i + 3) % 4]);
        lines[(i + 3) % 4] = enclosingLine(alongBefore, q[(i + 3) % 4], endBefore);
        lines[(i + 1) % 4] = enclosingLine(alongAfter, q[(i + 2) % 4], endAfter);
        lines[i] = enclosingLine(alongFar, endBefore, endAfter);
        const auto corners = cornersOf(lines);
        if (!corners) continue;
        auto whole = judge(photo, *corners, part.source + "+followed");
        if (!whole) continue;
        std::array<double, 4> seen;
        seen[(i + 2) % 4] = part.support[(i + 2) % 4];
        seen[(i + 1) % 4] = seen[(i + 3) % 4] = std::min(part.support[(i + 1) % 4], part.support[(i + 3) % 4]);
        seen[i] = std::min(1.0, std::hypot(endFar->x - endBefore.x, endFar->y - endBefore.y) / span);
        // judge put the corners in order (clockwise from the top left): the same sides, turned
        const int turn = int(std::find(corners->begin(), corners->end(), whole->quad[0]) - corners->begin()) % 4;
        for (int k = 0; k < 4; k++) whole->support[k] = seen[(k + turn) % 4];
        const double least = *std::min_element(seen.begin(), seen.end());
        whole->score = 0.5 * (std::accumulate(seen.begin(), seen.end(), 0.0) / 4) + 0.5 * least;
#ifdef SHEET_DEBUG
        std::fprintf(stderr, "followed on past side %d: score %.2f, the far side seen along %.2f\n", i, whole->score, seen[i]);
#endif
        if (whole->score >= ACCEPT && contains(whole->quad, q, 0.01 * photo.diagonal) && (!best || whole->score > best->score))
            best = whole;
    }
    return best;
}

/// Each side moved outward by `by` pixels; the corners where the moved sides meet.
Quad widen(const Quad &q, double by) {
    const Point centre = centreOf(q);
    std::array<Line, 4> lines;
    for (int i = 0; i < 4; i++) {
        Line l = lineThrough(q[i], q[(i + 1) % 4]);
        l.c += l.a * centre.x + l.b * centre.y < l.c ? by : -by;
        lines[i] = l;
    }
    return cornersOf(lines).value_or(q);
}

void copyCorners(const Quad &q, double *out) {
    for (int i = 0; i < 4; i++) {
        out[2 * i] = q[i].x;
        out[2 * i + 1] = q[i].y;
    }
}

/// Below this many pixels on a side there is no sheet to find, and the quarter-size copies would be
/// empty (the prototype would fail there).
constexpr int SMALLEST = 16;

/// `rgb`: the working image, let go of once the photo's views of it are made.
void findSheet(cv::Mat rgb, const Plausible &plausible, ptcv_result *result) {
    result->accept = ACCEPT;
    if (std::min(rgb.cols, rgb.rows) < SMALLEST) return;
    const Photo photo(rgb);
    rgb.release();
    std::vector<Candidate> found = candidates(photo);
    result->judged = int(found.size());
    int passedOver = -1, heldBack = -1, framing = -1;
    int chosen = choose(found, photo, plausible, passedOver, heldBack, framing);
    if (chosen >= 0) {
        const int printed = printedBeside(found, photo, chosen);
        if (printed >= 0) {
            chosen = printed;
            found[chosen].source += "+printed";
        }
    }
    // the one taken is refined too, even when it was not among the leaders: in the list in place of
    // its unrefined self, so that the list shows what was taken
    if (chosen >= 0) found[chosen] = refined(photo, found[chosen]);
    std::optional<Candidate> enclosed;
    bool followedSheet = false;  // followed on from a part held back: taken as followed
    if (chosen >= 0) {
        enclosed = grown(photo, found, found[chosen]);
        // joined and moved out over any band of sheet, still part of a larger sheet whose own
        // outline is not found (a stripe across a card): nothing is taken, rather than that part
        if (partOfLarger(photo, enclosed->quad)) {
            heldBack = chosen;
            chosen = -1;
        }
    }
    if (chosen < 0 && heldBack >= 0) {
        // unless the rest of that sheet lies beside it and grows over it, or its sides are followed on
        // from the part to where the sheet ends: then nothing was held back. A sheet followed on is
        // taken as followed: its sides already enclose their edges (judged straight, a bowed side
        // white on white shows too little of an edge to keep its place when enclosed again), and no
        // page block is sought beside it (a card's white margin above its stripe was taken for one)
        if (auto rest = grownOver(photo, found, heldBack)) {
            chosen = rest->first;
            enclosed = rest->second;
            heldBack = framing = -1;
        } else if (auto whole = followedOn(photo, found[heldBack]); whole && !partOfLarger(photo, whole->quad)) {
            found.push_back(*whole);
            chosen = int(found.size()) - 1;
            enclosed = *whole;
            heldBack = framing = -1;
            followedSheet = true;
        }
    }
    if (chosen >= 0) {
        found[chosen] = followedSheet ? *enclosed : topPage(photo, *enclosed);
        // the paper's and the table's lightness, which the bends are traced between, measured
        // around the sheet as enclosed: around the top page lies its own page block
        copyCorners(widen(found[chosen].quad, MARGIN * photo.diagonal), result->cut);
        // where its sides bow or curl, followed: its corners where they meet, the cut along them
        if (auto bent = bends(photo, found[chosen].quad, enclosed->quad)) {
            curlFeet(photo, *bent);
            if (found[chosen].fold >= 0) foldFeet(photo, *bent, found[chosen].fold);
            const auto sheet = outlineOf(*bent, 0), cut = outlineOf(*bent, MARGIN * photo.diagonal);
            if (sheet && cut) {
                for (int i = 0; i < 4; i++) {
                    found[chosen].quad[i] = (*sheet)[i][0];
                    result->cut[2 * i] = (*cut)[i][0].x;
                    result->cut[2 * i + 1] = (*cut)[i][0].y;
                    for (int j = 0; j < PTCV_SIDE_POINTS; j++) {
                        result->outline[i][2 * j] = (*cut)[i][j].x;
                        result->outline[i][2 * j + 1] = (*cut)[i][j].y;
                    }
                }
                result->outlined = 1;
            }
        }
    }

    // Best score first; the ones the result names among them even when they are not among the best
    // (each in the place of the lowest not named).
    std::vector<size_t> ranked(found.size());
    for (size_t i = 0; i < ranked.size(); i++) ranked[i] = i;
    std::stable_sort(ranked.begin(), ranked.end(), [&](size_t i, size_t j) { return found[i].score > found[j].score; });
    std::vector<size_t> shown;
    for (int named : {chosen, passedOver, heldBack, framing})
        if (named >= 0 && std::find(shown.begin(), shown.end(), size_t(named)) == shown.end()) shown.push_back(size_t(named));
    for (size_t i : ranked)
        if (shown.size() < PTCV_MAX_CANDIDATES && std::find(shown.begin(), shown.end(), i) == shown.end()) shown.push_back(i);
    std::stable_sort(shown.begin(), shown.end(), [&](size_t i, size_t j) { return found[i].score > found[j].score; });
    result->count = int(shown.size());
    result->chosen = result->passed_over = result->held_back = result->framing = -1;
    for (size_t slot = 0; slot < shown.size(); slot++) {
        const Candidate &c = found[shown[slot]];
        ptcv_candidate &out = result->candidates[slot];
        copyCorners(c.quad, out.corners);
        out.score = c.score;
        std::copy(c.support.begin(), c.support.end(), out.support);
        std::copy(c.step.begin(), c.step.end(), out.step);
        out.area = c.area;
        std::snprintf(out.source, sizeof out.source, "%s", c.source.c_str());
        if (int(shown[slot]) == chosen) result->chosen = int(slot);
        if (int(shown[slot]) == passedOver) result->passed_over = int(slot);
        if (int(shown[slot]) == heldBack) result->held_back = int(slot);
        if (int(shown[slot]) == framing) result->framing = int(slot);
    }
}

/// OpenCV's messages run over several lines ("OpenCV(4.6.0) file:line: error: (-215:...) in
/// function ..."); the caller wants one.
void report(char *error, size_t size, const std::string &message) {
    if (!error || size == 0) return;
    std::string line = message;
    std::replace(line.begin(), line.end(), '\n', ' ');
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::snprintf(error, size, "%s", line.c_str());
}

}  // namespace

/// The long side of the working image, in pixels: every constant above is tuned at this size.
constexpr int WORK = 768;

namespace {

/// The photo as the finder works on it: RGB, reduced as the prototype's load() reduces it (libjpeg's
/// DCT scaling by the largest of 8, 4 or 2 that keeps the long side at least WORK, here an area
/// average by that factor, then an area resize to WORK), and the factor back to the photo's pixels.
cv::Mat workingImage(const unsigned char *pixels, int width, int height, int stride, int layout, double &scale) {
    // Reduced first, in the caller's own layout (the area average treats every channel alike), so
    // that no full-size copy of a 12-megapixel photo is made; then made RGB.
    const cv::Mat photo(height, width, layout == PTCV_LEPTONICA_32 ? CV_8UC4 : CV_8UC3, const_cast<unsigned char *>(pixels),
                        size_t(stride));
    cv::Mat small = photo;
    const int longSide = std::max(width, height);
    for (int factor : {8, 4, 2}) {
        if (longSide / factor >= WORK) {
            cv::resize(photo, small, cv::Size(width / factor, height / factor), 0, 0, cv::INTER_AREA);
            break;
        }
    }
    if (std::max(small.cols, small.rows) > WORK) {
        const double s = double(WORK) / std::max(small.cols, small.rows);
        cv::resize(small, small, cv::Size(int(std::lround(small.cols * s)), int(std::lround(small.rows * s))), 0, 0,
                   cv::INTER_AREA);
    }
    scale = double(width) / small.cols;
    if (layout != PTCV_LEPTONICA_32) return small;
    // bytes alpha, blue, green, red: red is the fourth, blue the second
    cv::Mat rgb(small.rows, small.cols, CV_8UC3);
    const int fromTo[] = {3, 0, 2, 1, 1, 2};
    cv::mixChannels(&small, 1, &rgb, 1, fromTo, 3);
    return rgb;
}

/// Corners in the working image's pixel centres to the photo's.
void toPhoto(double *corners, double scale, int points = 4) {
    for (int i = 0; i < 2 * points; i++) corners[i] = corners[i] * scale + (scale - 1) / 2;
}

}  // namespace

extern "C" int ptcv_find_sheet(const unsigned char *pixels, int width, int height, int stride, int layout,
                               ptcv_plausible plausible, void *context, ptcv_result *result, char *error, size_t error_size) {
    if (!result) {
        report(error, error_size, "sheet vision: no result to fill");
        return -1;
    }
    std::memset(result, 0, sizeof *result);
    result->chosen = result->passed_over = result->held_back = result->framing = -1;
    const int bytes = layout == PTCV_LEPTONICA_32 ? 4 : layout == PTCV_RGB ? 3 : 0;
    if (!pixels || bytes == 0 || width <= 0 || height <= 0 || stride < bytes * width) {
        report(error, error_size, "sheet vision: no image, an unknown layout, or a stride shorter than a row");
        return -1;
    }
    // The finder's working memory (some 26 MB at its peak, over half of it OpenCV's line detector's) given
    // back to the system on the way out, however it ends: the process goes on to hold the photo and
    // the page it warps to at once, and a daemon goes on to the next photo.
    struct Trimmed {
        ~Trimmed() { malloc_trim(0); }
    } trimmed;
    try {
        double scale = 1;
        cv::Mat image = workingImage(pixels, width, height, stride, layout, scale);
        const Plausible isPaper = [&](const Quad &q) {
            if (!plausible) return true;
            double corners[8];
            copyCorners(q, corners);
            toPhoto(corners, scale);
            return plausible(corners, width, height, context) != 0;
        };
        findSheet(std::move(image), isPaper, result);
        if (result->chosen >= 0) toPhoto(result->cut, scale);
        if (result->outlined)
            for (auto &side : result->outline) toPhoto(side, scale, PTCV_SIDE_POINTS);
        for (int i = 0; i < result->count; i++) toPhoto(result->candidates[i].corners, scale);
        return 0;
    } catch (const cv::Exception &e) {
        report(error, error_size, "sheet vision: OpenCV: " + e.msg + " in " + e.func);
    } catch (const std::bad_alloc &) {
        report(error, error_size, "sheet vision: out of memory");
    } catch (const std::exception &e) {
        report(error, error_size, std::string("sheet vision: ") + e.what());
    } catch (...) {
        report(error, error_size, "sheet vision: unknown failure");
    }
    std::memset(result, 0, sizeof *result);
    result->chosen = result->passed_over = result->held_back = result->framing = -1;
    return -1;
}

extern "C" const char *ptcv_opencv_version(void) { return CV_VERSION; }

extern "C" int ptcv_interface(void) { return PTCV_INTERFACE; }
