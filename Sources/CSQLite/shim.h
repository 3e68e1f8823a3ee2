#include <sqlite3.h>
#include "../CLinux/lazy.h"

// What the search index calls: libsqlite3.so.0 (Debian's, with FTS5 built in) is opened when the
// index is first used, so a daemon that never indexes or searches never loads it.
#define TRAPPER_SQLITE_FUNCTIONS(X) \
    X(sqlite3_libversion) X(sqlite3_open_v2) X(sqlite3_close_v2) X(sqlite3_exec) X(sqlite3_free) \
    X(sqlite3_prepare_v2) X(sqlite3_step) X(sqlite3_reset) X(sqlite3_finalize) X(sqlite3_clear_bindings) \
    X(sqlite3_bind_text) X(sqlite3_bind_int64) X(sqlite3_bind_double) X(sqlite3_bind_null) \
    X(sqlite3_column_count) X(sqlite3_column_type) X(sqlite3_column_text) X(sqlite3_column_bytes) \
    X(sqlite3_column_int64) X(sqlite3_column_double) \
    X(sqlite3_errmsg) X(sqlite3_errstr) X(sqlite3_extended_errcode) X(sqlite3_busy_timeout) X(sqlite3_changes)

struct __attribute__((swift_attr("@Sendable"))) trapper_sqlite { TRAPPER_SQLITE_FUNCTIONS(TRAPPER_FIELD) };

static inline const char *_Nullable trapper_sqlite_load(void *_Nonnull library, struct trapper_sqlite *_Nonnull api) {
    TRAPPER_SQLITE_FUNCTIONS(TRAPPER_LOAD)
    return NULL;
}

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, a macro Swift does not import: text
// bound with it is copied by SQLite before the call returns.
static inline int trapper_sqlite_bind_text(const struct trapper_sqlite *_Nonnull api, sqlite3_stmt *_Nonnull statement,
                                           int index, const char *_Nonnull text, int length) {
    return api->sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}
