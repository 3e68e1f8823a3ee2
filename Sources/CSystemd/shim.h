#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include "../CLinux/lazy.h"

// What ServiceNotifier and JournalLog call: libsystemd.so.0 is opened when the daemon first tells
// systemd something or writes to the journal, never by a one-shot command (it and the libraries it
// brings, libgcrypt, liblzma, libzstd, liblz4 and libcap, took half a millisecond of every start).
#define TRAPPER_SYSTEMD_FUNCTIONS(X) X(sd_notify) X(sd_watchdog_enabled) X(sd_journal_sendv)

struct trapper_systemd { TRAPPER_SYSTEMD_FUNCTIONS(TRAPPER_FIELD) };

static inline const char *_Nullable trapper_systemd_load(void *_Nonnull library, struct trapper_systemd *_Nonnull api) {
    TRAPPER_SYSTEMD_FUNCTIONS(TRAPPER_LOAD)
    return NULL;
}
