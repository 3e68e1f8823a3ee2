// Without this, curl.h (seeing clang's __GNUC__) turns curl_easy_setopt and curl_easy_getinfo into
// type-checking macros, which have no function to point at.
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>
#include "../CLinux/lazy.h"

// What webhook delivery calls: libcurl.so.4 (Debian's libcurl4, the OpenSSL flavour) is opened on
// the first post, so a daemon without webhooks never loads it.
#define TRAPPER_CURL_FUNCTIONS(X) \
    X(curl_global_init) X(curl_easy_init) X(curl_easy_cleanup) X(curl_easy_setopt) X(curl_easy_perform) \
    X(curl_easy_getinfo) X(curl_easy_strerror) X(curl_slist_append) X(curl_slist_free_all)

// Swift drops the two varargs fields, which it cannot call, and with them sees the struct as not
// Sendable; like the other tables it is a set of function pointers, filled once and only read.
struct __attribute__((swift_attr("@Sendable"))) trapper_curl { TRAPPER_CURL_FUNCTIONS(TRAPPER_FIELD) };

static inline const char *_Nullable trapper_curl_load(void *_Nonnull library, struct trapper_curl *_Nonnull api) {
    TRAPPER_CURL_FUNCTIONS(TRAPPER_LOAD)
    return NULL;
}

// CURL_GLOBAL_DEFAULT is a macro of macros, which Swift does not import.
static inline CURLcode trapper_curl_global_init(const struct trapper_curl *_Nonnull api) {
    return api->curl_global_init(CURL_GLOBAL_DEFAULT);
}

// curl_easy_setopt and curl_easy_getinfo take their value as C varargs, which Swift cannot pass:
// one helper per type of value, so the varargs call is made from C with the type curl reads.
typedef size_t (*trapper_curl_write_callback)(char *_Nonnull data, size_t size, size_t count, void *_Nullable context);

static inline CURLcode trapper_curl_setopt_long(const struct trapper_curl *_Nonnull api, CURL *_Nonnull handle,
                                                CURLoption option, long value) {
    return api->curl_easy_setopt(handle, option, value);
}

static inline CURLcode trapper_curl_setopt_off(const struct trapper_curl *_Nonnull api, CURL *_Nonnull handle,
                                               CURLoption option, curl_off_t value) {
    return api->curl_easy_setopt(handle, option, value);
}

// Strings are copied by curl; other pointers (the body, the error buffer, a header list, the
// callback's context) must outlive curl_easy_perform.
static inline CURLcode trapper_curl_setopt_pointer(const struct trapper_curl *_Nonnull api, CURL *_Nonnull handle,
                                                   CURLoption option, const void *_Nullable value) {
    return api->curl_easy_setopt(handle, option, value);
}

static inline CURLcode trapper_curl_setopt_callback(const struct trapper_curl *_Nonnull api, CURL *_Nonnull handle,
                                                    CURLoption option, trapper_curl_write_callback _Nonnull value) {
    return api->curl_easy_setopt(handle, option, value);
}

static inline CURLcode trapper_curl_getinfo_long(const struct trapper_curl *_Nonnull api, CURL *_Nonnull handle,
                                                 CURLINFO info, long *_Nonnull value) {
    return api->curl_easy_getinfo(handle, info, value);
}
