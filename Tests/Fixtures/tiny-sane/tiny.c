/* tiny: a SANE backend for tests. One sheet-fed scanner, `tiny:0`, with two hardware buttons and an
 * ADF, whose state lives in files in the folder $TINY_SANE_DIR, so a test (or several processes at
 * once) can press buttons, load sheets, make the device busy or unplug it, and read back what the
 * scanner was asked to do. Written from the SANE standard (sane/sane.h).
 *
 * Control files, read at every call (never cached):
 *   button-scan, button-email  exists: that sensor reads true
 *   pages      decimal sheets in the ADF (missing = 0); each ADF sheet taken writes N-1 back
 *   busy       exists: sane_open says DEVICE_BUSY
 *   gone       exists: unplugged; no devices, sane_open says INVAL, an open handle says IO_ERROR
 *   lock       flock()ed by each open handle, like a USB interface claim: one holder at a time
 *   sequence   pages delivered so far, across processes; each page shows the new value K
 *   log        appended: "open", "close", and one "start page=K ..." line per page
 *
 * A page is white with K mod 16 black bars at the top left, so a test can tell pages apart.
 *
 * The dll meta-backend loads this as libsane-tiny.so.1 and looks up `sane_tiny_<op>` (then
 * `_sane_tiny_<op>`), so those are the only symbols exported. It also prefixes device names with
 * "tiny:", so the device is called "0" here and `tiny:0` to frontends.
 *
 * Build: cc -std=c11 -Wall -Wextra -shared -fPIC -o libsane-tiny.so.1 tiny.c
 */
#define _DEFAULT_SOURCE /* flock, O_CLOEXEC, strcasecmp */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sane/sane.h>
#include <sane/saneopts.h>

/* The entry points, under the names dll looks for. */
SANE_Status sane_tiny_init(SANE_Int *version_code, SANE_Auth_Callback authorize);
void sane_tiny_exit(void);
SANE_Status sane_tiny_get_devices(const SANE_Device ***device_list, SANE_Bool local_only);
SANE_Status sane_tiny_open(SANE_String_Const name, SANE_Handle *handle);
void sane_tiny_close(SANE_Handle handle);
const SANE_Option_Descriptor *sane_tiny_get_option_descriptor(SANE_Handle handle, SANE_Int option);
SANE_Status sane_tiny_control_option(SANE_Handle handle, SANE_Int option, SANE_Action action,
                                     void *value, SANE_Int *info);
SANE_Status sane_tiny_get_parameters(SANE_Handle handle, SANE_Parameters *params);
SANE_Status sane_tiny_start(SANE_Handle handle);
SANE_Status sane_tiny_read(SANE_Handle handle, SANE_Byte *data, SANE_Int max_length, SANE_Int *length);
void sane_tiny_cancel(SANE_Handle handle);
SANE_Status sane_tiny_set_io_mode(SANE_Handle handle, SANE_Bool non_blocking);
SANE_Status sane_tiny_get_select_fd(SANE_Handle handle, SANE_Int *fd);

/* ---- Options ------------------------------------------------------------------------------ */

enum {
    OPT_COUNT,
    OPT_GROUP_MODE, OPT_MODE, OPT_RESOLUTION, OPT_SOURCE,
    OPT_GROUP_GEOMETRY, OPT_TL_X, OPT_TL_Y, OPT_BR_X, OPT_BR_Y,
    OPT_GROUP_ENHANCEMENT, OPT_BRIGHTNESS,
    OPT_GROUP_SENSORS, OPT_SCAN, OPT_EMAIL,
    NUM_OPTIONS
};

enum { MODE_COLOR, MODE_GRAY, MODE_LINEART };
enum { SOURCE_FLATBED, SOURCE_ADF, SOURCE_DUPLEX };

static SANE_String_Const mode_list[] = { "Color", "Gray", "Lineart", NULL };
static SANE_String_Const source_list[] = { "Flatbed", "ADF", "ADF Duplex", NULL };
static const SANE_Range resolution_range = { 50, 600, 0 };
static const SANE_Range x_range = { SANE_FIX(0.0), SANE_FIX(215.9), 0 };
static const SANE_Range y_range = { SANE_FIX(0.0), SANE_FIX(355.6), 0 };
static const SANE_Range brightness_range = { SANE_FIX(-100.0), SANE_FIX(100.0), 0 };

#define SETTABLE (SANE_CAP_SOFT_SELECT | SANE_CAP_SOFT_DETECT)
#define SENSOR (SANE_CAP_HARD_SELECT | SANE_CAP_SOFT_DETECT)

#define GROUP(title_) { .name = "", .title = title_, .desc = "", .type = SANE_TYPE_GROUP, \
                        .unit = SANE_UNIT_NONE, .size = 0, .cap = 0, \
                        .constraint_type = SANE_CONSTRAINT_NONE }
#define NUMBER(name_, title_, desc_, type_, unit_, range_) \
    { .name = name_, .title = title_, .desc = desc_, .type = type_, .unit = unit_, \
      .size = sizeof(SANE_Word), .cap = SETTABLE, \
      .constraint_type = SANE_CONSTRAINT_RANGE, .constraint.range = &range_ }
#define CHOICE(name_, title_, desc_, list_, size_) \
    { .name = name_, .title = title_, .desc = desc_, .type = SANE_TYPE_STRING, \
      .unit = SANE_UNIT_NONE, .size = size_, .cap = SETTABLE, \
      .constraint_type = SANE_CONSTRAINT_STRING_LIST, .constraint.string_list = list_ }
#define BUTTON(name_, title_) { .name = name_, .title = title_, .desc = title_, \
                                .type = SANE_TYPE_BOOL, .unit = SANE_UNIT_NONE, \
                                .size = sizeof(SANE_Word), .cap = SENSOR, \
                                .constraint_type = SANE_CONSTRAINT_NONE }

/* The same for every handle: no option ever becomes inactive. */
static const SANE_Option_Descriptor descriptors[NUM_OPTIONS] = {
    [OPT_COUNT] = { .name = SANE_NAME_NUM_OPTIONS, .title = SANE_TITLE_NUM_OPTIONS,
                    .desc = SANE_DESC_NUM_OPTIONS, .type = SANE_TYPE_INT, .unit = SANE_UNIT_NONE,
                    .size = sizeof(SANE_Word), .cap = SANE_CAP_SOFT_DETECT,
                    .constraint_type = SANE_CONSTRAINT_NONE },
    [OPT_GROUP_MODE] = GROUP("Scan Mode"),
    [OPT_MODE] = CHOICE(SANE_NAME_SCAN_MODE, SANE_TITLE_SCAN_MODE, SANE_DESC_SCAN_MODE, mode_list,
                        sizeof "Lineart"),
    [OPT_RESOLUTION] = NUMBER(SANE_NAME_SCAN_RESOLUTION, SANE_TITLE_SCAN_RESOLUTION,
                              SANE_DESC_SCAN_RESOLUTION, SANE_TYPE_INT, SANE_UNIT_DPI,
                              resolution_range),
    [OPT_SOURCE] = CHOICE(SANE_NAME_SCAN_SOURCE, SANE_TITLE_SCAN_SOURCE, SANE_DESC_SCAN_SOURCE,
                          source_list, sizeof "ADF Duplex"),
    [OPT_GROUP_GEOMETRY] = GROUP("Geometry"),
    [OPT_TL_X] = NUMBER(SANE_NAME_SCAN_TL_X, SANE_TITLE_SCAN_TL_X, SANE_DESC_SCAN_TL_X,
                        SANE_TYPE_FIXED, SANE_UNIT_MM, x_range),
    [OPT_TL_Y] = NUMBER(SANE_NAME_SCAN_TL_Y, SANE_TITLE_SCAN_TL_Y, SANE_DESC_SCAN_TL_Y,
                        SANE_TYPE_FIXED, SANE_UNIT_MM, y_range),
    [OPT_BR_X] = NUMBER(SANE_NAME_SCAN_BR_X, SANE_TITLE_SCAN_BR_X, SANE_DESC_SCAN_BR_X,
                        SANE_TYPE_FIXED, SANE_UNIT_MM, x_range),
    [OPT_BR_Y] = NUMBER(SANE_NAME_SCAN_BR_Y, SANE_TITLE_SCAN_BR_Y, SANE_DESC_SCAN_BR_Y,
                        SANE_TYPE_FIXED, SANE_UNIT_MM, y_range),
    [OPT_GROUP_ENHANCEMENT] = GROUP("Enhancement"),
    [OPT_BRIGHTNESS] = NUMBER(SANE_NAME_BRIGHTNESS, SANE_TITLE_BRIGHTNESS, SANE_DESC_BRIGHTNESS,
                              SANE_TYPE_FIXED, SANE_UNIT_PERCENT, brightness_range),
    [OPT_GROUP_SENSORS] = GROUP("Sensors"),
    [OPT_SCAN] = BUTTON("scan", "Scan button"),
    [OPT_EMAIL] = BUTTON("email", "E-mail button"),
};

/* ---- Handles ------------------------------------------------------------------------------ */

enum page_state { IDLE, READING, AT_END, CANCELLED };

struct tiny {
    struct tiny *next;          /* every open handle, so sane_exit can close them */
    char *dir;                  /* $TINY_SANE_DIR at open */
    int lock_fd;                /* holds flock(LOCK_EX) on dir/lock while open */

    int mode, resolution, source;
    SANE_Fixed area[4];         /* tl-x, tl-y, br-x, br-y */
    SANE_Fixed brightness;

    enum page_state state;
    int back_pending;           /* ADF Duplex: the front of a sheet went out, its back is next */
    SANE_Parameters page;       /* the page being read */
    long long sent, total;      /* bytes of it */
    SANE_Byte *barred_row;      /* one row of the top quarter, bars drawn */
    SANE_Byte *white_row;
};

static struct tiny *open_handles;

static const char *control_dir(void) {
    const char *dir = getenv("TINY_SANE_DIR");
    return dir && *dir ? dir : NULL;
}

/* ---- Control files ------------------------------------------------------------------------ */

static void control_path(char *out, size_t size, const char *dir, const char *name) {
    snprintf(out, size, "%s/%s", dir, name);
}

static int control_exists(const char *dir, const char *name) {
    char path[4096];
    struct stat info;
    control_path(path, sizeof path, dir, name);
    return stat(path, &info) == 0;
}

/* A file holding a decimal number; missing or unreadable counts as 0. */
static long read_number(const char *dir, const char *name) {
    char path[4096];
    control_path(path, sizeof path, dir, name);
    FILE *file = fopen(path, "r");
    if (!file) return 0;
    long value = 0;
    if (fscanf(file, "%ld", &value) != 1 || value < 0) value = 0;
    fclose(file);
    return value;
}

/* Written aside and renamed, so a reader never sees a half-written number. */
static int write_number(const char *dir, const char *name, long value) {
    char path[4096], temporary[4200];
    control_path(path, sizeof path, dir, name);
    snprintf(temporary, sizeof temporary, "%s.%ld.tmp", path, (long)getpid());
    FILE *file = fopen(temporary, "w");
    if (!file) return -1;
    int failed = fprintf(file, "%ld\n", value) < 0;
    failed |= fclose(file) != 0;
    if (failed || rename(temporary, path) != 0) {
        unlink(temporary);
        return -1;
    }
    return 0;
}

/* One write(2) per line with O_APPEND, so lines from several processes never interleave. */
static void log_line(const char *dir, const char *line) {
    char path[4096], text[512];
    control_path(path, sizeof path, dir, "log");
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return;
    int length = snprintf(text, sizeof text, "%s\n", line);
    if (length > 0 && write(fd, text, (size_t)length) < 0) { /* a lost log line fails the test */ }
    close(fd);
}

/* ---- Pages -------------------------------------------------------------------------------- */

/* round(mm / 25.4 * dpi), half away from zero, without needing libm. */
static int pixels(SANE_Fixed from, SANE_Fixed to, int resolution) {
    double exact = SANE_UNFIX(to - from) / 25.4 * resolution;
    return exact < 0 ? -(int)(0.5 - exact) : (int)(exact + 0.5);
}

static SANE_Parameters estimate(const struct tiny *scanner) {
    SANE_Parameters params;
    params.last_frame = SANE_TRUE;
    params.pixels_per_line = pixels(scanner->area[0], scanner->area[2], scanner->resolution);
    params.lines = pixels(scanner->area[1], scanner->area[3], scanner->resolution);
    if (params.pixels_per_line < 0) params.pixels_per_line = 0;
    if (params.lines < 0) params.lines = 0;
    switch (scanner->mode) {
    case MODE_COLOR:
        params.format = SANE_FRAME_RGB;
        params.depth = 8;
        params.bytes_per_line = 3 * params.pixels_per_line;
        break;
    case MODE_GRAY:
        params.format = SANE_FRAME_GRAY;
        params.depth = 8;
        params.bytes_per_line = params.pixels_per_line;
        break;
    default:
        params.format = SANE_FRAME_GRAY;
        params.depth = 1;
        params.bytes_per_line = (params.pixels_per_line + 7) / 8;
        break;
    }
    return params;
}

static void set_pixel_black(SANE_Byte *row, const SANE_Parameters *params, int x) {
    if (params->depth == 1) row[x / 8] |= (SANE_Byte)(0x80 >> (x % 8));   /* 1 = black, MSB first */
    else if (params->format == SANE_FRAME_RGB) memset(row + 3 * x, 0, 3);
    else row[x] = 0;
}

static void forget_page(struct tiny *scanner) {
    free(scanner->barred_row);
    free(scanner->white_row);
    scanner->barred_row = scanner->white_row = NULL;
}

/* Bar i covers columns [(2i+1)w/40, (2i+2)w/40) over the top quarter of the rows. */
static SANE_Status draw_page(struct tiny *scanner, long mark) {
    const SANE_Parameters *params = &scanner->page;
    size_t width = (size_t)params->bytes_per_line;
    scanner->white_row = malloc(width);
    scanner->barred_row = malloc(width);
    if (!scanner->white_row || !scanner->barred_row) {
        forget_page(scanner);
        return SANE_STATUS_NO_MEM;
    }
    memset(scanner->white_row, params->depth == 1 ? 0x00 : 0xFF, width);
    memcpy(scanner->barred_row, scanner->white_row, width);
    int w = params->pixels_per_line;
    for (int bar = 0; bar < (int)(mark % 16); bar++)
        for (int x = (2 * bar + 1) * w / 40; x < (2 * bar + 2) * w / 40; x++)
            set_pixel_black(scanner->barred_row, params, x);
    return SANE_STATUS_GOOD;
}

/* ---- The SANE API ------------------------------------------------------------------------- */

SANE_Status sane_tiny_init(SANE_Int *version_code, SANE_Auth_Callback authorize) {
    (void)authorize;
    if (version_code) *version_code = SANE_VERSION_CODE(1, 0, 1);
    return SANE_STATUS_GOOD;
}

void sane_tiny_exit(void) {
    while (open_handles) sane_tiny_close(open_handles);
}

SANE_Status sane_tiny_get_devices(const SANE_Device ***device_list, SANE_Bool local_only) {
    static const SANE_Device device = {
        .name = "0", .vendor = "PDFTrapper", .model = "Tiny button scanner",
        .type = "sheetfed scanner",
    };
    static const SANE_Device *present[] = { &device, NULL };
    static const SANE_Device *absent[] = { NULL };
    (void)local_only;
    const char *dir = control_dir();
    *device_list = dir && !control_exists(dir, "gone") ? present : absent;
    return SANE_STATUS_GOOD;
}

SANE_Status sane_tiny_open(SANE_String_Const name, SANE_Handle *handle) {
    const char *dir = control_dir();
    if (!dir || control_exists(dir, "gone")) return SANE_STATUS_INVAL;
    /* "" is "the first device"; "0" is ours (dll took the "tiny:" off "tiny:0"). */
    if (name && *name && strcmp(name, "0") != 0 && strcmp(name, "tiny:0") != 0)
        return SANE_STATUS_INVAL;
    if (control_exists(dir, "busy")) return SANE_STATUS_DEVICE_BUSY;

    char path[4096];
    control_path(path, sizeof path, dir, "lock");
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return SANE_STATUS_IO_ERROR;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int claimed = errno == EWOULDBLOCK;
        close(fd);
        return claimed ? SANE_STATUS_DEVICE_BUSY : SANE_STATUS_IO_ERROR;
    }

    struct tiny *scanner = calloc(1, sizeof *scanner);
    if (!scanner || !(scanner->dir = strdup(dir))) {
        free(scanner);
        close(fd);
        return SANE_STATUS_NO_MEM;
    }
    scanner->lock_fd = fd;
    scanner->mode = MODE_COLOR;
    scanner->resolution = 150;
    scanner->source = SOURCE_ADF;
    scanner->area[0] = SANE_FIX(0.0);
    scanner->area[1] = SANE_FIX(0.0);
    scanner->area[2] = SANE_FIX(215.9);
    scanner->area[3] = SANE_FIX(279.4);
    scanner->brightness = SANE_FIX(0.0);
    scanner->state = IDLE;
    scanner->next = open_handles;
    open_handles = scanner;
    log_line(dir, "open");
    *handle = scanner;
    return SANE_STATUS_GOOD;
}

void sane_tiny_close(SANE_Handle handle) {
    struct tiny *scanner = handle;
    for (struct tiny **link = &open_handles; *link; link = &(*link)->next)
        if (*link == scanner) {
            *link = scanner->next;
            break;
        }
    log_line(scanner->dir, "close");
    forget_page(scanner);
    close(scanner->lock_fd);    /* releases the flock */
    free(scanner->dir);
    free(scanner);
}

const SANE_Option_Descriptor *sane_tiny_get_option_descriptor(SANE_Handle handle, SANE_Int option) {
    (void)handle;
    return option >= 0 && option < NUM_OPTIONS ? &descriptors[option] : NULL;
}

static SANE_Word *number_of(struct tiny *scanner, SANE_Int option) {
    switch (option) {
    case OPT_RESOLUTION: return &scanner->resolution;
    case OPT_TL_X: return &scanner->area[0];
    case OPT_TL_Y: return &scanner->area[1];
    case OPT_BR_X: return &scanner->area[2];
    case OPT_BR_Y: return &scanner->area[3];
    case OPT_BRIGHTNESS: return &scanner->brightness;
    default: return NULL;
    }
}

static SANE_Status get_option(struct tiny *scanner, SANE_Int option, void *value) {
    SANE_Word *number = number_of(scanner, option);
    switch (option) {
    case OPT_COUNT: *(SANE_Word *)value = NUM_OPTIONS; break;
    case OPT_MODE: strcpy(value, mode_list[scanner->mode]); break;
    case OPT_SOURCE: strcpy(value, source_list[scanner->source]); break;
    case OPT_SCAN: *(SANE_Bool *)value = control_exists(scanner->dir, "button-scan"); break;
    case OPT_EMAIL: *(SANE_Bool *)value = control_exists(scanner->dir, "button-email"); break;
    default:
        if (!number) return SANE_STATUS_INVAL;
        *(SANE_Word *)value = *number;
    }
    return SANE_STATUS_GOOD;
}

/* The list entry `text` names, exactly or but for case (then the caller's text is corrected). */
static int choose(const SANE_String_Const *list, char *text, SANE_Int *info) {
    for (int i = 0; list[i]; i++)
        if (strcmp(list[i], text) == 0) return i;
    for (int i = 0; list[i]; i++)
        if (strcasecmp(list[i], text) == 0) {
            strcpy(text, list[i]);
            *info |= SANE_INFO_INEXACT;
            return i;
        }
    return -1;
}

static SANE_Status set_option(struct tiny *scanner, SANE_Int option, void *value, SANE_Int *info) {
    const SANE_Option_Descriptor *descriptor = &descriptors[option];
    if (!(descriptor->cap & SANE_CAP_SOFT_SELECT)) return SANE_STATUS_INVAL;
    if (scanner->state == READING) return SANE_STATUS_DEVICE_BUSY;

    if (descriptor->type == SANE_TYPE_STRING) {
        int choice = choose(descriptor->constraint.string_list, value, info);
        if (choice < 0) return SANE_STATUS_INVAL;
        if (option == OPT_MODE) scanner->mode = choice;
        if (option == OPT_SOURCE) {
            if (choice != scanner->source) scanner->back_pending = 0;
            scanner->source = choice;
        }
    } else {
        const SANE_Range *range = descriptor->constraint.range;
        SANE_Word wanted = *(SANE_Word *)value;
        SANE_Word clamped = wanted < range->min ? range->min : wanted > range->max ? range->max : wanted;
        if (clamped != wanted) {
            *(SANE_Word *)value = clamped;
            *info |= SANE_INFO_INEXACT;
        }
        *number_of(scanner, option) = clamped;
    }
    if (option != OPT_BRIGHTNESS) *info |= SANE_INFO_RELOAD_PARAMS;
    if (scanner->state == AT_END) scanner->state = IDLE;
    return SANE_STATUS_GOOD;
}

SANE_Status sane_tiny_control_option(SANE_Handle handle, SANE_Int option, SANE_Action action,
                                     void *value, SANE_Int *info) {
    struct tiny *scanner = handle;
    SANE_Int ignored = 0;
    if (!info) info = &ignored;
    *info = 0;
    if (control_exists(scanner->dir, "gone")) return SANE_STATUS_IO_ERROR;
    if (option < 0 || option >= NUM_OPTIONS || !value) return SANE_STATUS_INVAL;
    if (descriptors[option].type == SANE_TYPE_GROUP) return SANE_STATUS_INVAL;
    switch (action) {
    case SANE_ACTION_GET_VALUE: return get_option(scanner, option, value);
    case SANE_ACTION_SET_VALUE: return set_option(scanner, option, value, info);
    default: return SANE_STATUS_INVAL;     /* no option has SANE_CAP_AUTOMATIC */
    }
}

SANE_Status sane_tiny_get_parameters(SANE_Handle handle, SANE_Parameters *params) {
    struct tiny *scanner = handle;
    if (!params) return SANE_STATUS_INVAL;
    *params = scanner->state == READING || scanner->state == AT_END ? scanner->page : estimate(scanner);
    return SANE_STATUS_GOOD;
}

SANE_Status sane_tiny_start(SANE_Handle handle) {
    struct tiny *scanner = handle;
    const char *dir = scanner->dir;
    if (control_exists(dir, "gone")) return SANE_STATUS_IO_ERROR;
    forget_page(scanner);
    scanner->state = IDLE;

    SANE_Parameters page = estimate(scanner);
    if (page.pixels_per_line <= 0 || page.lines <= 0) return SANE_STATUS_INVAL;

    /* Where the page comes from: the glass always has one; the feeder only while sheets last. */
    int duplex_back = scanner->source == SOURCE_DUPLEX && scanner->back_pending;
    if (scanner->source != SOURCE_FLATBED && !duplex_back) {
        long sheets = read_number(dir, "pages");
        if (sheets == 0) return SANE_STATUS_NO_DOCS;
        if (write_number(dir, "pages", sheets - 1) != 0) return SANE_STATUS_IO_ERROR;
    }
    scanner->back_pending = scanner->source == SOURCE_DUPLEX && !duplex_back;

    long mark = read_number(dir, "sequence") + 1;
    if (write_number(dir, "sequence", mark) != 0) return SANE_STATUS_IO_ERROR;

    scanner->page = page;
    SANE_Status drawn = draw_page(scanner, mark);
    if (drawn != SANE_STATUS_GOOD) return drawn;
    scanner->sent = 0;
    scanner->total = (long long)page.bytes_per_line * page.lines;
    scanner->state = READING;

    char line[400];
    snprintf(line, sizeof line,
             "start page=%ld mode=%s resolution=%d source=%s brightness=%.2f area=%.2f,%.2f,%.2f,%.2f",
             mark, mode_list[scanner->mode], scanner->resolution, source_list[scanner->source],
             SANE_UNFIX(scanner->brightness), SANE_UNFIX(scanner->area[0]),
             SANE_UNFIX(scanner->area[1]), SANE_UNFIX(scanner->area[2]), SANE_UNFIX(scanner->area[3]));
    log_line(dir, line);
    return SANE_STATUS_GOOD;
}

SANE_Status sane_tiny_read(SANE_Handle handle, SANE_Byte *data, SANE_Int max_length, SANE_Int *length) {
    struct tiny *scanner = handle;
    if (length) *length = 0;
    if (!data || !length || max_length < 0) return SANE_STATUS_INVAL;
    if (control_exists(scanner->dir, "gone")) return SANE_STATUS_IO_ERROR;
    switch (scanner->state) {
    case IDLE: return SANE_STATUS_INVAL;
    case CANCELLED: return SANE_STATUS_CANCELLED;
    case AT_END: return SANE_STATUS_EOF;
    case READING: break;
    }
    if (scanner->sent == scanner->total) {
        scanner->state = AT_END;
        return SANE_STATUS_EOF;
    }
    long long row_bytes = scanner->page.bytes_per_line, barred_rows = scanner->page.lines / 4;
    SANE_Int copied = 0;
    while (copied < max_length && scanner->sent < scanner->total) {
        long long row = scanner->sent / row_bytes, column = scanner->sent % row_bytes;
        const SANE_Byte *source = row < barred_rows ? scanner->barred_row : scanner->white_row;
        long long chunk = row_bytes - column;
        if (chunk > max_length - copied) chunk = max_length - copied;
        memcpy(data + copied, source + column, (size_t)chunk);
        copied += (SANE_Int)chunk;
        scanner->sent += chunk;
    }
    *length = copied;
    return SANE_STATUS_GOOD;
}

void sane_tiny_cancel(SANE_Handle handle) {
    struct tiny *scanner = handle;
    /* Stopping mid-page ejects the sheet, back side and all; between pages it changes nothing. */
    if (scanner->state == READING) {
        scanner->state = CANCELLED;
        scanner->back_pending = 0;
    } else if (scanner->state == AT_END) {
        scanner->state = IDLE;
    }
    forget_page(scanner);
}

SANE_Status sane_tiny_set_io_mode(SANE_Handle handle, SANE_Bool non_blocking) {
    (void)handle;
    return non_blocking ? SANE_STATUS_UNSUPPORTED : SANE_STATUS_GOOD;
}

SANE_Status sane_tiny_get_select_fd(SANE_Handle handle, SANE_Int *fd) {
    (void)handle;
    (void)fd;
    return SANE_STATUS_UNSUPPORTED;
}
