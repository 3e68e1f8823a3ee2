// Linux system calls that glibc 2.36 has no wrapper for (openat2) or hides behind _GNU_SOURCE
// (renameat2); Swift cannot call the variadic syscall(2) itself.
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/prctl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
// mallopt(3), which Glibc's Swift module leaves out: the workspace caps glibc's malloc arenas.
#include <malloc.h>

// O_PATH is behind _GNU_SOURCE in glibc's headers too; the kernel's value.
static const int trapper_O_PATH = 010000000;

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

static inline int trapper_openat2(int dirfd, const char *path, int flags, unsigned int mode,
                                  unsigned long long resolve) {
    struct open_how how = { .flags = (unsigned long long)flags, .mode = mode, .resolve = resolve };
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
}

// A worker process that must not outlive the daemon that started it (prctl is variadic).
// The calling thread's id, which glibc 2.36 wraps as gettid(2) only with _GNU_SOURCE.
static inline pid_t trapper_gettid(void) {
    return (pid_t)syscall(SYS_gettid);
}

static inline int trapper_die_with_parent(void) {
    return prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
}

static inline int trapper_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
                                    unsigned int flags) {
    return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, flags);
}

// A pipe whose ends close on exec (pipe2 is a GNU extension glibc's headers hide from Swift): a
// hook command started meanwhile by another thread never inherits them.
static inline int trapper_cloexec_pipe(int fds[2]) {
    return (int)syscall(SYS_pipe2, fds, O_CLOEXEC);
}

// posix_spawn's "close every descriptor from 3 up in the child" (glibc 2.34), hidden behind
// _GNU_SOURCE too: a started program gets its three standard streams and nothing of the daemon's.
#include <spawn.h>
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
static inline int trapper_spawn_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
