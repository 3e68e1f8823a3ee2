#include <poppler.h>
#include <cairo.h>
#include "../CLinux/lazy.h"

// What PDFPageRenderer, PDFTextSearch and PDFPageTexts call: libpoppler-glib.so.8 is opened when a page is first
// rendered or searched. The glib, gobject and cairo functions are found through it too (dlsym
// searches a library's own dependencies), so they come from the very libraries poppler uses.
#define TRAPPER_POPPLER_FUNCTIONS(X) \
    X(poppler_get_version) X(poppler_document_new_from_file) X(poppler_document_new_from_bytes) X(poppler_document_get_n_pages) \
    X(poppler_page_get_annot_mapping) X(poppler_page_free_annot_mapping) X(poppler_annot_get_contents) X(g_bytes_new_static) X(g_bytes_unref) \
    X(poppler_document_get_page) X(poppler_page_get_size) X(poppler_page_get_text) X(poppler_page_render) \
    X(poppler_page_find_text_with_options) X(poppler_page_get_text_layout) X(poppler_rectangle_find_get_match_continued) X(poppler_rectangle_free) \
    X(g_object_unref) X(g_error_free) X(g_free) X(g_list_free_full) \
    X(cairo_image_surface_create) X(cairo_image_surface_get_data) X(cairo_image_surface_get_stride) \
    X(cairo_surface_flush) X(cairo_surface_status) X(cairo_surface_destroy) X(cairo_create) X(cairo_destroy) \
    X(cairo_set_source_rgb) X(cairo_paint) X(cairo_scale) X(cairo_translate)

struct trapper_poppler { TRAPPER_POPPLER_FUNCTIONS(TRAPPER_FIELD) };

static inline const char *_Nullable trapper_poppler_load(void *_Nonnull library,
                                                         struct trapper_poppler *_Nonnull api) {
    TRAPPER_POPPLER_FUNCTIONS(TRAPPER_LOAD)
    return NULL;
}
