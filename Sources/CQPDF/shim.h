#include <qpdf/qpdf-c.h>
#include "../CLinux/lazy.h"

// What QPDFHandle and its users (PDFImporter, PDFRewriter, PDFTextSearch) call: libqpdf.so.29 is
// opened when the first handle is made (a PDF input, a repair or compaction, a text search).
#define TRAPPER_QPDF_FUNCTIONS(X) \
    X(qpdf_get_qpdf_version) X(qpdf_init) X(qpdf_cleanup) X(qpdf_silence_errors) X(qpdf_set_suppress_warnings) \
    X(qpdf_has_error) X(qpdf_get_error) X(qpdf_get_error_code) X(qpdf_get_error_full_text) \
    X(qpdf_more_warnings) X(qpdf_next_warning) X(qpdf_read) X(qpdf_read_memory) X(qpdf_is_encrypted) \
    X(qpdf_init_write) X(qpdf_write) X(qpdf_set_object_stream_mode) X(qpdf_set_compress_streams) \
    X(qpdf_set_decode_level) X(qpdf_set_linearization) \
    X(qpdf_push_inherited_attributes_to_page) X(qpdf_get_num_pages) X(qpdf_get_page_n) X(qpdf_find_page_by_id) \
    X(qpdf_get_root) X(qpdf_get_trailer) X(qpdf_oh_release) X(qpdf_oh_new_object) X(qpdf_oh_get_type_code) \
    X(qpdf_oh_is_indirect) X(qpdf_oh_is_array) X(qpdf_oh_is_dictionary) X(qpdf_oh_is_dictionary_of_type) \
    X(qpdf_oh_is_name) X(qpdf_oh_get_object_id) X(qpdf_oh_get_generation) X(qpdf_oh_get_bool_value) \
    X(qpdf_oh_get_int_value) X(qpdf_oh_get_value_as_real) X(qpdf_oh_get_numeric_value) \
    X(qpdf_oh_get_binary_string_value) X(qpdf_oh_get_name) X(qpdf_oh_get_value_as_name) \
    X(qpdf_oh_get_array_n_items) X(qpdf_oh_get_array_item) X(qpdf_oh_begin_dict_key_iter) \
    X(qpdf_oh_dict_more_keys) X(qpdf_oh_dict_next_key) X(qpdf_oh_has_key) X(qpdf_oh_get_key) \
    X(qpdf_oh_remove_key) X(qpdf_oh_get_dict) X(qpdf_oh_get_stream_data) \
    X(qpdf_oh_parse) X(qpdf_oh_replace_key) X(qpdf_make_indirect_object) X(qpdf_check_pdf)

struct trapper_qpdf { TRAPPER_QPDF_FUNCTIONS(TRAPPER_FIELD) };

static inline const char *_Nullable trapper_qpdf_load(void *_Nonnull library, struct trapper_qpdf *_Nonnull api) {
    TRAPPER_QPDF_FUNCTIONS(TRAPPER_LOAD)
    return NULL;
}
