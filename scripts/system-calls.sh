#!/bin/bash
# Counts direct system-call sites per Swift module: calls of the C functions below, bare or as
# `Glibc.name(`, on lines that are not comments (read and write are left out: too many methods
# share their names). ARCHITECTURE.md's "Known debts" quotes it; the goal is that the sites sit
# in Sources/System, and in the adapters for their own C library.
#   scripts/system-calls.sh            every module
#   scripts/system-calls.sh -v Daemon  the sites in one module
set -eu
cd "$(dirname "$0")/.."
calls='open|openat|close|pread|pwrite|fsync|fdatasync|flock|rename|renameat|unlink|unlinkat'
calls+='|stat|lstat|fstat|fstatat|kill|waitpid|waitid|ftruncate|mkdir|mkdirat|link|linkat|symlink|readlink'
calls+='|realpath|posix_spawn[a-z_]*|dup|dup2|fcntl|chmod|fchmod|pipe|poll|bind|listen|setsockopt'
calls+='|getsockname|getrlimit|setrlimit|pthread_sigmask|sigprocmask|sigtimedwait|prctl|dlopen|dlsym'
calls+='|inotify_[a-z_]+|trapper_[a-z0-9_]+'
pattern="(^|[^.A-Za-z0-9_]|Glibc\\.)($calls)\\("
sites() {
    grep -rnE "$pattern" "Sources/$1" --include='*.swift' | grep -vE '^[^:]+:[0-9]+:\s*//' | grep -vE "func ($calls)\\(" || true
}
if [ "${1:-}" = "-v" ]; then sites "$2"; exit 0; fi
for folder in Sources/*/; do
    module=$(basename "$folder")
    [ -n "$(find "$folder" -name '*.swift' -print -quit)" ] || continue
    printf '%-14s %4d\n' "$module" "$(sites "$module" | wc -l)"
done
