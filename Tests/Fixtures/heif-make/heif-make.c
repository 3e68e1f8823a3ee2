// heif-make: writes the HEIC and AVIF test photos with libheif's own encoder, for what heif-enc
// cannot say: an irot/imir orientation (as a phone writes it, beside an EXIF orientation that
// describes the coded image), a thumbnail and a second image that are not the primary one, an
// EXIF density, 10- and 12-bit samples from 8-bit input. Built by the tests with cc.
//
//   heif-make [--avif] [--quality Q] [--lossless] [--orientation N] [--exif-orientation N]
//             [--dpi D] [--icc FILE] [--bits 8|10|12] [--chroma 420|422|444] [--thumbnail] [--extra]
//             IN.pam OUT
//
// IN is a PAM file (P7, MAXVAL 255, TUPLTYPE RGB or RGB_ALPHA), as Pillow writes it. The thumbnail
// and the extra image are the input with its colours inverted, so a reader that shows either
// instead of the primary image is caught.
#include <libheif/heif.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fail(const char *what, const char *detail) {
    fprintf(stderr, "heif-make: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static void check(struct heif_error error, const char *what) {
    if (error.code != heif_error_Ok) fail(what, error.message);
}

struct picture { int width, height, channels; uint8_t *samples; };

static struct picture read_pam(const char *path) {
    FILE *file = fopen(path, "rb");
    if (!file) fail("cannot open", path);
    struct picture picture = {0, 0, 0, NULL};
    char line[256];
    int maxval = 0;
    if (!fgets(line, sizeof line, file) || strncmp(line, "P7", 2) != 0) fail("not a PAM file", path);
    while (fgets(line, sizeof line, file) && strncmp(line, "ENDHDR", 6) != 0) {
        sscanf(line, "WIDTH %d", &picture.width);
        sscanf(line, "HEIGHT %d", &picture.height);
        sscanf(line, "DEPTH %d", &picture.channels);
        sscanf(line, "MAXVAL %d", &maxval);
    }
    if (picture.width <= 0 || picture.height <= 0 || maxval != 255 || (picture.channels != 3 && picture.channels != 4))
        fail("PAM must be 8-bit RGB or RGB_ALPHA", path);
    size_t size = (size_t)picture.width * picture.height * picture.channels;
    picture.samples = malloc(size);
    if (!picture.samples || fread(picture.samples, 1, size, file) != size) fail("short PAM file", path);
    fclose(file);
    return picture;
}

// The picture as a heif_image: interleaved 8-bit RGB(A), or RRGGBB(AA) little-endian at `bits`,
// each 8-bit value scaled up; `invert` turns every colour to its opposite (alpha stays).
static struct heif_image *make_image(const struct picture *picture, int bits, int invert) {
    int alpha = picture->channels == 4;
    enum heif_chroma chroma = bits == 8 ? (alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB)
                                        : (alpha ? heif_chroma_interleaved_RRGGBBAA_LE : heif_chroma_interleaved_RRGGBB_LE);
    struct heif_image *image = NULL;
    check(heif_image_create(picture->width, picture->height, heif_colorspace_RGB, chroma, &image), "heif_image_create");
    check(heif_image_add_plane(image, heif_channel_interleaved, picture->width, picture->height, bits), "heif_image_add_plane");
    int stride = 0;
    uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &stride);
    int top = (1 << bits) - 1;
    for (int y = 0; y < picture->height; y++) {
        for (int x = 0; x < picture->width; x++) {
            for (int c = 0; c < picture->channels; c++) {
                int value = picture->samples[((size_t)y * picture->width + x) * picture->channels + c];
                if (invert && c < 3) value = 255 - value;
                if (bits == 8) {
                    plane[(size_t)y * stride + x * picture->channels + c] = (uint8_t)value;
                } else {
                    int wide = (value * top + 127) / 255;
                    uint8_t *at = plane + (size_t)y * stride + (x * picture->channels + c) * 2;
                    at[0] = (uint8_t)(wide & 0xFF);
                    at[1] = (uint8_t)(wide >> 8);
                }
            }
        }
    }
    return image;
}

// A little-endian TIFF structure with IFD0 holding Orientation and, when `dpi` > 0, X/YResolution
// in inches; libheif puts the 4-byte offset to the TIFF header in front.
static size_t exif_block(uint8_t *out, int orientation, int dpi) {
    static const uint8_t header[] = {'I', 'I', 42, 0, 8, 0, 0, 0};
    memcpy(out, header, 8);
    int entries = dpi > 0 ? 4 : 1;
    uint8_t *p = out + 8;
    *p++ = (uint8_t)entries; *p++ = 0;
    uint32_t rational_at = 8 + 2 + entries * 12 + 4;
    #define ENTRY(tag, type, count, value) do { \
        uint32_t v = (value); p[0] = (tag) & 0xFF; p[1] = (tag) >> 8; p[2] = (type); p[3] = 0; \
        p[4] = (count); p[5] = p[6] = p[7] = 0; p[8] = v & 0xFF; p[9] = (v >> 8) & 0xFF; \
        p[10] = (v >> 16) & 0xFF; p[11] = v >> 24; p += 12; } while (0)
    ENTRY(0x0112, 3, 1, (uint32_t)orientation);
    if (dpi > 0) {
        ENTRY(0x011A, 5, 1, rational_at);
        ENTRY(0x011B, 5, 1, rational_at + 8);
        ENTRY(0x0128, 3, 1, 2);
    }
    p[0] = p[1] = p[2] = p[3] = 0;  // no next IFD
    p += 4;
    if (dpi > 0) {
        for (int axis = 0; axis < 2; axis++) {
            uint32_t values[2] = {(uint32_t)dpi, 1};
            for (int i = 0; i < 2; i++) {
                p[0] = values[i] & 0xFF; p[1] = (values[i] >> 8) & 0xFF; p[2] = (values[i] >> 16) & 0xFF; p[3] = values[i] >> 24;
                p += 4;
            }
        }
    }
    return (size_t)(p - out);
}

int main(int argc, char **argv) {
    int avif = 0, quality = 90, lossless = 0, orientation = 1, exif_orientation = 0, dpi = 0, bits = 8;
    int thumbnail = 0, extra = 0;
    const char *icc = NULL, *chroma = NULL;
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        const char *option = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(option, "--avif")) avif = 1;
        else if (!strcmp(option, "--lossless")) lossless = 1;
        else if (!strcmp(option, "--thumbnail")) thumbnail = 1;
        else if (!strcmp(option, "--extra")) extra = 1;
        else if (!strcmp(option, "--quality")) { quality = atoi(value); i++; }
        else if (!strcmp(option, "--orientation")) { orientation = atoi(value); i++; }
        else if (!strcmp(option, "--exif-orientation")) { exif_orientation = atoi(value); i++; }
        else if (!strcmp(option, "--dpi")) { dpi = atoi(value); i++; }
        else if (!strcmp(option, "--bits")) { bits = atoi(value); i++; }
        else if (!strcmp(option, "--icc")) { icc = value; i++; }
        else if (!strcmp(option, "--chroma")) { chroma = value; i++; }
        else fail("unknown option", option);
    }
    if (argc - i != 2) fail("usage: heif-make [options] IN.pam OUT", NULL);
    if (orientation < 1 || orientation > 8 || (bits != 8 && bits != 10 && bits != 12)) fail("bad --orientation or --bits", NULL);
    struct picture picture = read_pam(argv[i]);

    struct heif_context *context = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    check(heif_context_get_encoder_for_format(context, avif ? heif_compression_AV1 : heif_compression_HEVC, &encoder),
          "no encoder");
    if (lossless) {
        check(heif_encoder_set_lossless(encoder, 1), "lossless");
        heif_encoder_set_parameter_string(encoder, "chroma", "444");
    } else {
        check(heif_encoder_set_lossy_quality(encoder, quality), "quality");
    }
    if (chroma) check(heif_encoder_set_parameter_string(encoder, "chroma", chroma), "chroma");
    struct heif_image *image = make_image(&picture, bits, 0);
    if (icc) {
        FILE *file = fopen(icc, "rb");
        if (!file) fail("cannot open", icc);
        static uint8_t profile[1 << 20];
        size_t size = fread(profile, 1, sizeof profile, file);
        fclose(file);
        check(heif_image_set_raw_color_profile(image, "prof", profile, size), "ICC profile");
    }
    struct heif_encoding_options *options = heif_encoding_options_alloc();
    options->image_orientation = (enum heif_orientation)orientation;

    if (extra) {
        // Written first: a reader that takes the first image rather than the primary one shows it.
        struct heif_image *other = make_image(&picture, bits, 1);
        check(heif_context_encode_image(context, other, encoder, NULL, NULL), "encoding the extra image");
        heif_image_release(other);
    }
    struct heif_image_handle *primary = NULL;
    check(heif_context_encode_image(context, image, encoder, options, &primary), "encoding");
    check(heif_context_set_primary_image(context, primary), "primary image");
    if (thumbnail) {
        struct heif_image *inverted = make_image(&picture, bits, 1);
        struct heif_image_handle *thumb = NULL;
        int box = picture.width > picture.height ? picture.width / 2 : picture.height / 2;
        check(heif_context_encode_thumbnail(context, inverted, primary, encoder, NULL, box, &thumb), "thumbnail");
        if (thumb) heif_image_handle_release(thumb);
        heif_image_release(inverted);
    }
    if (exif_orientation > 0 || dpi > 0) {
        uint8_t exif[256];
        size_t size = exif_block(exif, exif_orientation > 0 ? exif_orientation : 1, dpi);
        check(heif_context_add_exif_metadata(context, primary, exif, (int)size), "EXIF");
    }
    check(heif_context_write_to_file(context, argv[i + 1]), "writing");
    heif_image_handle_release(primary);
    heif_image_release(image);
    heif_encoding_options_free(options);
    heif_encoder_release(encoder);
    heif_context_free(context);
    free(picture.samples);
    return 0;
}
