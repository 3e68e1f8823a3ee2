#include <stdarg.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include "../CLinux/lazy.h"

// What the workspace's HTTP server calls: libmicrohttpd.so.12 is opened when the server starts,
// so no other command pays for it. MHD parses every request (headers, cookies, query arguments,
// chunked bodies); the HTTPServer module hands them to the workspace as plain values.
#define TRAPPER_MHD_FUNCTIONS(X) \
    X(MHD_start_daemon_va) X(MHD_stop_daemon) X(MHD_get_connection_values_n) X(MHD_queue_response) \
    X(MHD_create_response_from_buffer) X(MHD_create_response_from_callback) X(MHD_add_response_header) \
    X(MHD_destroy_response)

struct trapper_mhd { TRAPPER_MHD_FUNCTIONS(TRAPPER_FIELD) };

static inline const char *_Nullable trapper_mhd_load(void *_Nonnull library, struct trapper_mhd *_Nonnull api) {
    TRAPPER_MHD_FUNCTIONS(TRAPPER_LOAD)
    return NULL;
}

static inline struct MHD_Daemon *_Nullable trapper_mhd_start_va(const struct trapper_mhd *_Nonnull api,
                                                                unsigned int flags,
                                                                MHD_AccessHandlerCallback _Nonnull handler,
                                                                void *_Nullable handler_cls, ...) {
    va_list options;
    va_start(options, handler_cls);
    struct MHD_Daemon *daemon = api->MHD_start_daemon_va(flags, 0, NULL, NULL, handler, handler_cls, options);
    va_end(options);
    return daemon;
}

// MHD_start_daemon's options are C varargs, which Swift cannot pass: the server's fixed set of
// them is spelled here. The socket is the server's own (TCP or unix), already listening; each
// connection gets a thread (so a live-events stream may wait for its next event, and a slow client
// holds up no one but itself); one silent for `timeout` seconds is closed; at most `limit` are
// served at once, and at most `per_address` of them from one client address (MHD counts TCP
// addresses only: a unix socket's clients are a reverse proxy's, which limits its own).
static inline struct MHD_Daemon *_Nullable trapper_mhd_start(const struct trapper_mhd *_Nonnull api, int listen_socket,
                                                             unsigned int limit, unsigned int per_address,
                                                             unsigned int timeout,
                                                             MHD_AccessHandlerCallback _Nonnull handler,
                                                             MHD_RequestCompletedCallback _Nonnull completed,
                                                             void *_Nullable context) {
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL;
    return trapper_mhd_start_va(api, flags, handler, context,
                                MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_socket,
                                MHD_OPTION_CONNECTION_LIMIT, limit,
                                MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address,
                                MHD_OPTION_CONNECTION_TIMEOUT, timeout,
                                MHD_OPTION_NOTIFY_COMPLETED, completed, context,
                                MHD_OPTION_END);
}
