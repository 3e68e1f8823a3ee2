// The sheet finder's OpenCV half (issue 42): candidate quadrilaterals found several ways in a phone
// photo, each judged by the evidence along its four sides, the most convincing chosen. Built as its
// own shared library, libPDFTrapperVision.so, which the Imaging adapter opens on first use (as it
// opens tesseract or poppler), so that a command that never finds a sheet never loads OpenCV.
// Plain C: Swift calls it through a table of function pointers (Sources/CSheetVision/shim.h).
#pragma once
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PTCV_MAX_CANDIDATES 12

/// The version of this interface (the functions' arguments and the structs below), raised with every
/// change to them: a binary refuses a library of another, built apart from it, rather than call it
/// with the wrong arguments. 2: ptcv_find_sheet takes a plausibility callback. 3: the result names
/// the candidate held back as possibly printed on a larger sheet, and that sheet. 4: the result
/// carries the cut's outline where the sheet's sides bow or curl, and ptcv_warp_sheet follows one.
#define PTCV_INTERFACE 4

/// How many points give each side of an outline, its two corners included.
#define PTCV_SIDE_POINTS 17

/// One quadrilateral and its evidence. Corners in the input image's pixels (pixel centres),
/// clockwise from the corner nearest the top left: x0, y0, x1, y1, x2, y2, x3, y3. Sides in the same
/// order: side i runs from corner i to corner i + 1.
typedef struct ptcv_candidate {
    double corners[8];
    /// 0-1: half the mean, half the least of the four sides' support.
    double score;
    /// Per side, the share of it where the colour steps across it (inside against outside), an edge
    /// runs along it, and it is not a printed line, weighted by how consistently the step keeps one
    /// direction.
    double support[4];
    /// Per side, the median colour step across it (CIE Lab on OpenCV's 8-bit scale).
    double step[4];
    /// Its share of the image's area.
    double area;
    /// How it was found: "edges/1", "lines", "region/paper", with "+refined" when its sides were
    /// refitted to the edges nearby.
    char source[32];
} ptcv_candidate;

typedef struct ptcv_result {
    /// The index in `candidates` of the sheet taken, or -1 when no candidate is convincing.
    int chosen;
    /// The convincing candidate that would have been taken had its proportions been those of paper,
    /// passed over for a larger one around it that has them; -1 when none was. Its index in
    /// `candidates`.
    int passed_over;
    /// The convincing candidate that would have been taken but may be something printed on a larger
    /// sheet around it (a box, a picture, a stripe: taking it could cut into that sheet), when nothing
    /// was taken for that reason; -1 otherwise. Its index in `candidates`.
    int held_back;
    /// The larger candidate around `held_back`, drawn by edges on at least three sides, yet not
    /// convincing enough to be taken itself; -1 when `held_back` is, or when `held_back` is part of a
    /// larger sheet whose own outline no candidate follows (a dark stripe across it, the sheet's edges
    /// running on past the stripe's corners). Its index in `candidates`.
    int framing;
    /// How many candidates follow, best score first.
    int count;
    /// How many quadrilaterals were found and judged in all, before the best were kept.
    int judged;
    /// The score a candidate needs to be taken.
    double accept;
    /// The chosen candidate's corners, each side moved outward by a small margin (a sliver of table
    /// rather than a sliver less sheet); as `corners` above. Unset when `chosen` is -1.
    double cut[8];
    /// Nonzero when a side of the sheet taken bows or curls (a sheet lifted off the table, a book's
    /// page curling into its binding): `outline` then follows the cut's sides, and `cut` and the
    /// chosen candidate's corners are where those curves meet.
    int outlined;
    /// Per side (top, right, bottom, left, as the corners run), PTCV_SIDE_POINTS points x0, y0, x1,
    /// y1, ... along the cut's edge from its corner to the next, both included, in the photo's
    /// pixels; a straight side's points lie on the straight line. Unset when `outlined` is 0.
    double outline[4][2 * PTCV_SIDE_POINTS];
    ptcv_candidate candidates[PTCV_MAX_CANDIDATES];
} ptcv_result;

/// How the pixels given to ptcv_find_sheet are laid out.
enum ptcv_layout {
    /// Three bytes a pixel: red, green, blue.
    PTCV_RGB = 0,
    /// Leptonica's 32-bit pixels on a little-endian machine: each a word red << 24 | green << 16 |
    /// blue << 8 | alpha, so the bytes run alpha (or unused), blue, green, red.
    PTCV_LEPTONICA_32 = 1,
};

/// Whether a sheet of paper could look like the quadrilateral `corners` (x0, y0, ... x3, y3 in the
/// photo's pixels, clockwise from the top left) in a `width` x `height` photo: its proportions, with
/// the perspective undone, those of some paper. Nonzero: they could. `context` is the caller's own.
typedef int (*ptcv_plausible)(const double corners[8], int width, int height, void *context);

/// Finds the sheet in a photo, upright: `height` rows of `stride` bytes, `width` pixels each, laid
/// out as `layout` says. The photo is searched at 768 pixels on its long side (reduced by area
/// averaging, first by the largest power of two that keeps it at least that, as a JPEG decoder's
/// DCT scaling would, then to the size); every corner in `result` is in the photo's own pixels.
/// `plausible` (may be NULL: every shape is) is asked of the candidate about to be taken: when its
/// proportions are no paper's (half a notepad, cut across, is nearly square) and a convincing larger
/// candidate around it has a paper's, that one is taken instead (`passed_over` says so); with none,
/// the candidate is taken all the same (a square note is a sheet too).
/// Returns 0, or -1 with a one-line reason in `error` (at most `error_size` bytes with its NUL) when
/// OpenCV fails.
int ptcv_find_sheet(const unsigned char *pixels, int width, int height, int stride, int layout,
                    ptcv_plausible plausible, void *context, ptcv_result *result, char *error, size_t error_size);

/// The sheet cut out: the quadrilateral `corners` (x0, y0, ... x3, y3 in `source`'s pixels, clockwise
/// from the top left) of `source` mapped onto the whole of `target`, the perspective undone, each
/// pixel interpolated bilinearly from its four neighbours; where the quadrilateral runs outside the
/// source, the nearest edge pixel is repeated. Both images hold `channels` 8-bit samples a pixel (1
/// to 4; the order of the channels does not matter, each is warped alike), rows of `*_stride` bytes.
/// Only the target's pixels are computed: the cost follows the sheet's size, not the photo's.
/// `outline` (NULL: straight sides) is a result's `outline`, its sides ending at `corners`: the
/// region between those four curves is mapped onto the target instead, the perspective undone and
/// then each side's curve laid straight along the target's edge (a Coons patch between them), so
/// that what lies in a bulge is kept and a side curling in comes out straight.
/// Returns 0, or -1 with a one-line reason in `error`.
int ptcv_warp_sheet(const unsigned char *source, int source_width, int source_height, int source_stride,
                    int channels, const double corners[8], const double *outline, unsigned char *target,
                    int target_width, int target_height, int target_stride, char *error, size_t error_size);

/// The OpenCV version the library was built with ("4.6.0").
const char *ptcv_opencv_version(void);

/// PTCV_INTERFACE as the library was built with it.
int ptcv_interface(void);

#ifdef __cplusplus
}
#endif
