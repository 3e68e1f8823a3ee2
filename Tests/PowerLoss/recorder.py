"""Recording a run's file-system mutations with strace, and reading them back as operations.

Why strace and not an LD_PRELOAD library: the kernel boundary is the only place that sees every
mutation. An interposed libc misses the calls glibc makes to itself (stdio's fwrite, as qpdf uses
it, goes to the internal __write, which no preload can catch) and the raw syscall(2) our own shim
makes for openat2, renameat2 and pipe2. strace -f -y prints every call of every thread and child,
each descriptor with the path it names at that moment, and `-e write=all` dumps every byte written.

The trace becomes a list of operations on a model of the folder tree below ROOT, with inodes, so
that a file written through a descriptor after a rename, or linked under a second name, stays one
file: create, mkdir, write, truncate, rename, link, unlink, rmdir, and fsync of a file or a folder.
Paths are kept relative to ROOT, so the crash states can be built anywhere.
"""

import codecs
import os
import re
import subprocess

# Every call that can change a file or a name, what positions a descriptor's writes, and what a
# process's children and current folder are made of.
SYSCALLS = ",".join([
    "open", "openat", "openat2", "creat",
    "write", "writev", "pwrite64", "pwritev", "pwritev2", "lseek",
    "ftruncate", "truncate", "fallocate", "copy_file_range", "sendfile", "mmap",
    "fsync", "fdatasync", "sync", "syncfs", "sync_file_range",
    "rename", "renameat", "renameat2", "link", "linkat", "symlink", "symlinkat",
    "unlink", "unlinkat", "mkdir", "mkdirat", "rmdir",
    "chdir", "fchdir", "clone", "clone3", "fork", "vfork",
])


def strace_command(log_path, argv):
    """The command line that runs `argv` under strace, writing the trace to `log_path`."""
    return ["strace", "-f", "-qq", "-y", "-s", "65535", "-o", log_path,
            "-e", "trace=" + SYSCALLS, "-e", "write=all", "--"] + list(argv)


class Unsupported(Exception):
    """A call the model cannot replay (a shared writable mapping of a file below ROOT, say)."""


class Op:
    """One mutation: `kind` and its fields; `objects` are what an fsync must reach to make it
    durable: the inode for data, the folder (a relative path) for names."""

    def __init__(self, kind, line, **fields):
        self.kind = kind
        self.line = line  # the strace line, for a violation's report
        self.__dict__.update(fields)

    @property
    def objects(self):
        if self.kind in ("write", "truncate"):
            return [("inode", self.inode)]
        if self.kind == "rename":
            return sorted({("folder", parent(self.source)), ("folder", parent(self.path))})
        if self.kind in ("create", "mkdir", "link", "unlink", "rmdir", "symlink"):
            return [("folder", parent(self.path))]
        return []

    def __repr__(self):
        return self.line.strip()[:200]


def parent(path):
    return os.path.dirname(path)


# MARK: strace's text

_LINE = re.compile(r"^(\d+)\s+(.*)$")
_CALL = re.compile(r"^(\w+)\((.*)\)\s+=\s+(.*)$", re.S)
_FD = re.compile(r"^(-?\d+|AT_FDCWD)<(.*)>$", re.S)
_DUMP = re.compile(r"^ \| ([0-9a-f]+)  ((?:[0-9a-f]{2} ?){1,8}(?: (?:[0-9a-f]{2} ?){1,8})?)")


def split_arguments(text):
    """Top-level arguments of a call, respecting quotes, brackets and strace's <path> decorations."""
    parts, depth, current, quoted, escaped = [], 0, [], False, False
    for char in text:
        if quoted:
            current.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
            continue
        if char == '"':
            quoted = True
        elif char in "([{<":
            depth += 1
        elif char in ")]}>":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    if current or parts:
        parts.append("".join(current).strip())
    return parts


def string_argument(text):
    """A quoted C string as strace prints it, as text (file names here are UTF-8)."""
    if not (text.startswith('"') and text.endswith('"')):
        raise ValueError(f"not a string: {text[:80]}")
    raw = codecs.escape_decode(text[1:-1].encode("latin-1", "backslashreplace"))[0]
    return raw.decode("utf-8", "surrogateescape")


def read_calls(log_path):
    """(pid, name, arguments, result, dumped bytes) for every finished call, in the order they
    finished; a call another thread interrupted (<unfinished ...>) is joined with its resumption."""
    unfinished, calls = {}, []
    with open(log_path, encoding="utf-8", errors="surrogateescape") as log:
        for raw in log:
            line = raw.rstrip("\n")
            if line.startswith(" | "):
                match = _DUMP.match(line)
                if match and calls:
                    calls[-1][4].extend(bytes.fromhex(match.group(2).replace(" ", "")))
                continue
            if line.startswith(" * "):
                continue
            match = _LINE.match(line)
            if not match:
                continue
            pid, text = int(match.group(1)), match.group(2)
            if text.endswith("<unfinished ...>"):
                unfinished[pid] = text[: -len("<unfinished ...>")].rstrip()
                continue
            if text.startswith("<... "):
                head = unfinished.pop(pid, None)
                if head is None:
                    continue
                text = head + text[text.index("resumed>") + len("resumed>"):]
            call = _CALL.match(text)
            if call:
                calls.append((pid, call.group(1), split_arguments(call.group(2)), call.group(3), bytearray(), f"{pid} {text}"))
    return calls


# MARK: The model the trace is read against

class Tree:
    """The names below ROOT as the run changes them: files (name -> inode), folders, and each
    inode's size (so that a write with O_APPEND knows where it lands)."""

    def __init__(self, root):
        self.files, self.folders, self.sizes, self.links = {}, {""}, {}, {}
        self.next_inode = 0
        for folder, subfolders, names in os.walk(root):
            relative = os.path.relpath(folder, root)
            relative = "" if relative == "." else relative
            for name in subfolders:
                path = os.path.join(relative, name)
                if os.path.islink(os.path.join(root, path)):
                    self.links[path] = os.readlink(os.path.join(root, path))
                else:
                    self.folders.add(path)
            for name in names:
                path = os.path.join(relative, name)
                full = os.path.join(root, path)
                if os.path.islink(full):
                    self.links[path] = os.readlink(full)
                else:
                    self.files[path] = ("initial", path)
                    self.sizes[("initial", path)] = os.path.getsize(full)

    def new_inode(self):
        self.next_inode += 1
        return ("new", self.next_inode)


class Recording:
    """One recorded run read back: its operations on the tree below the run's folder, in order."""

    def __init__(self, traced_root, initial_root, log_path):
        """`traced_root`: the folder the run worked in (the paths in the trace); `initial_root`: a
        copy of it made before the run."""
        self.root = os.path.realpath(traced_root)
        self.ops = []
        self.tree = Tree(initial_root)
        self._tgid, self._cwd, self._positions, self._appending, self._paths = {}, {}, {}, set(), {}
        self._start_folder = self.root
        for call in read_calls(log_path):
            self._read(*call)

    # Where a call's names are

    def _process(self, pid):
        return self._tgid.setdefault(pid, pid)

    def _relative(self, path):
        path = os.path.normpath(path)
        if path == self.root:
            return ""
        if path.startswith(self.root + "/"):
            return path[len(self.root) + 1:]
        return None

    def _descriptor(self, pid, text):
        """(number, absolute path) of a decorated descriptor argument or result."""
        match = _FD.match(text)
        if not match:
            return None, None
        number = match.group(1)
        path = match.group(2)
        if number != "AT_FDCWD":
            self._paths[(self._process(pid), int(number))] = path
            return int(number), path
        return None, path

    def _absolute(self, pid, folder_text, name_text):
        name = string_argument(name_text)
        proc = re.match(r"^/proc/(?:self|\d+)/fd/(\d+)(/.*)?$", name)
        if proc:  # a folder pinned as a descriptor, as FolderRoot.pinned hands qpdf
            base = self._paths.get((self._process(pid), int(proc.group(1))))
            if base is None:
                raise Unsupported(f"a path through an unknown descriptor: {name}")
            return os.path.normpath(base + (proc.group(2) or ""))
        if name.startswith("/"):
            return os.path.normpath(name)
        if folder_text is None:
            folder = self._cwd.get(self._process(pid), self._start_folder)
        else:
            _, folder = self._descriptor(pid, folder_text)
        return os.path.normpath(os.path.join(folder, name))

    # Calls

    def _emit(self, kind, line, **fields):
        self.ops.append(Op(kind, line, **fields))

    def _read(self, pid, name, arguments, result, dumped, line):
        process = self._process(pid)
        if name in ("clone", "clone3", "fork", "vfork"):
            child = re.match(r"^(\d+)", result)
            if child:
                thread = "CLONE_THREAD" in (arguments[0] if name == "clone3" else " ".join(arguments))
                child = int(child.group(1))
                self._tgid[child] = process if thread else child
                if not thread:
                    self._cwd[child] = self._cwd.get(process, self._start_folder)
                    for (owner, fd), value in list(self._positions.items()):
                        if owner == process:
                            self._positions[(child, fd)] = value
            return
        if result.startswith("-1") or result.startswith("?"):
            return
        tree = self.tree
        if name == "chdir":
            self._cwd[process] = self._absolute(pid, None, arguments[0])
            return
        if name == "fchdir":
            self._cwd[process] = self._descriptor(pid, arguments[0])[1]
            return
        if name in ("open", "openat", "openat2", "creat"):
            fd, path = self._descriptor(pid, result)
            relative = self._relative(path) if path else None
            self._positions[(process, fd)] = 0
            self._appending.discard((process, fd))
            if relative is None:
                return
            flags = " ".join(arguments[1:3]) if name != "creat" else "O_CREAT|O_TRUNC"
            if "O_APPEND" in flags:
                self._appending.add((process, fd))
            if "O_CREAT" in flags and relative not in tree.files and relative not in tree.folders:
                inode = tree.new_inode()
                tree.files[relative] = inode
                tree.sizes[inode] = 0
                self._emit("create", line, path=relative, inode=inode)
            elif "O_TRUNC" in flags and relative in tree.files:
                inode = tree.files[relative]
                tree.sizes[inode] = 0
                self._emit("truncate", line, inode=inode, size=0)
            return
        if name == "lseek":
            fd, _ = self._descriptor(pid, arguments[0])
            self._positions[(process, fd)] = int(result.split()[0])
            return
        if name in ("write", "writev", "pwrite64", "pwritev", "pwritev2"):
            fd, path = self._descriptor(pid, arguments[0])
            count = int(result.split()[0])
            relative = self._relative(path) if path else None
            positioned = name.startswith("pwrite")
            if not positioned:
                start = self._positions.get((process, fd), 0)
                self._positions[(process, fd)] = start + count
            if relative is None or relative not in tree.files:
                return  # a pipe, a socket, the log, a file outside ROOT or one already unlinked
            inode = tree.files[relative]
            if positioned:
                start = int(arguments[3])
            elif (process, fd) in self._appending:
                start = tree.sizes[inode]
            data = bytes(dumped[:count])
            if len(data) != count:
                raise Unsupported(f"{count} bytes written but {len(data)} dumped: {line}")
            tree.sizes[inode] = max(tree.sizes[inode], start + count)
            self._emit("write", line, inode=inode, offset=start, data=data)
            return
        if name in ("ftruncate", "truncate"):
            if name == "ftruncate":
                _, path = self._descriptor(pid, arguments[0])
            else:
                path = self._absolute(pid, None, arguments[0])
            relative = self._relative(path)
            if relative is None or relative not in tree.files:
                return
            inode = tree.files[relative]
            tree.sizes[inode] = int(arguments[1])
            self._emit("truncate", line, inode=inode, size=int(arguments[1]))
            return
        if name in ("fsync", "fdatasync", "sync_file_range"):
            _, path = self._descriptor(pid, arguments[0])
            relative = self._relative(path) if path else None
            if relative is None or name == "sync_file_range":
                return  # sync_file_range makes nothing durable (no metadata, no cache flush)
            if relative in tree.folders:
                self._emit("fsync", line, object=("folder", relative))
            elif relative in tree.files:
                self._emit("fsync", line, object=("inode", tree.files[relative]))
            return
        if name in ("sync", "syncfs"):
            self._emit("sync", line)
            return
        if name in ("rename", "renameat", "renameat2"):
            if name == "rename":
                source, destination = (self._absolute(pid, None, arguments[0]), self._absolute(pid, None, arguments[1]))
            else:
                source = self._absolute(pid, arguments[0], arguments[1])
                destination = self._absolute(pid, arguments[2], arguments[3])
                if name == "renameat2" and "RENAME_EXCHANGE" in arguments[4]:
                    raise Unsupported(f"RENAME_EXCHANGE: {line}")
            self._rename(self._relative(source), self._relative(destination), line)
            return
        if name in ("link", "linkat"):
            if name == "link":
                source, destination = (self._absolute(pid, None, arguments[0]), self._absolute(pid, None, arguments[1]))
            else:
                source = self._absolute(pid, arguments[0], arguments[1])
                destination = self._absolute(pid, arguments[2], arguments[3])
            source, destination = self._relative(source), self._relative(destination)
            if destination is None:
                return
            if source not in tree.files:
                raise Unsupported(f"a link from outside the tree or from no file: {line}")
            tree.files[destination] = tree.files[source]
            self._emit("link", line, path=destination, inode=tree.files[source])
            return
        if name in ("unlink", "unlinkat", "rmdir"):
            if name == "unlinkat":
                path = self._absolute(pid, arguments[0], arguments[1])
                folder = "AT_REMOVEDIR" in arguments[2]
            else:
                path = self._absolute(pid, None, arguments[0])
                folder = name == "rmdir"
            relative = self._relative(path)
            if relative is None:
                return
            if folder:
                tree.folders.discard(relative)
                self._emit("rmdir", line, path=relative)
            else:
                tree.files.pop(relative, None)
                tree.links.pop(relative, None)
                self._emit("unlink", line, path=relative)
            return
        if name in ("mkdir", "mkdirat"):
            path = (self._absolute(pid, None, arguments[0]) if name == "mkdir"
                    else self._absolute(pid, arguments[0], arguments[1]))
            relative = self._relative(path)
            if relative is None:
                return
            tree.folders.add(relative)
            self._emit("mkdir", line, path=relative)
            return
        if name in ("symlink", "symlinkat"):
            target = string_argument(arguments[0])
            path = (self._absolute(pid, None, arguments[1]) if name == "symlink"
                    else self._absolute(pid, arguments[1], arguments[2]))
            relative = self._relative(path)
            if relative is None:
                return
            tree.links[relative] = target
            self._emit("symlink", line, path=relative, target=target)
            return
        if name in ("copy_file_range", "sendfile", "fallocate"):
            for argument in arguments:
                _, path = self._descriptor(pid, argument)
                if path and self._relative(path) is not None:
                    raise Unsupported(f"{name} on a file below the root is not modelled: {line}")
            return
        if name == "mmap" and "MAP_SHARED" in line and "PROT_WRITE" in line:
            _, path = self._descriptor(pid, arguments[4])
            # SQLite's wal-index (the search index's -shm) is the one exception: it holds no data,
            # only a map of the WAL, which SQLite builds again from the WAL after a crash, so what
            # the mapping wrote does not matter to any state after a power cut.
            if path and self._relative(path) is not None and not path.endswith(".sqlite-shm"):
                raise Unsupported(f"a shared writable mapping of a file below the root: {line}")

    def _rename(self, source, destination, line):
        tree = self.tree
        if source is None and destination is None:
            return
        if source is None or destination is None:
            raise Unsupported(f"a rename across the root's edge: {line}")
        if source in tree.folders:
            moved = {path for path in tree.folders if path == source or path.startswith(source + "/")}
            for path in moved:
                tree.folders.discard(path)
                tree.folders.add(destination + path[len(source):])
            for path in [path for path in tree.files if path.startswith(source + "/")]:
                tree.files[destination + path[len(source):]] = tree.files.pop(path)
        elif source in tree.links:
            tree.links[destination] = tree.links.pop(source)
        elif source in tree.files:
            tree.files[destination] = tree.files.pop(source)
        self._emit("rename", line, source=source, path=destination)
