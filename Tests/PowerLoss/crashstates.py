"""The crash states one recorded run can leave on disk, built from its operations.

The model (README, "Reliability"): a write or a truncate of a file is durable once the file is
fsynced after it; a name made, moved or removed in a folder (create, mkdir, link, rename, unlink,
rmdir) once that folder is fsynced after it. A rename is one step, in both of its folders (as
ext4's, XFS's and btrfs's journals make it), durable when either is fsynced. sync(2) makes
everything before it durable. Nothing else is assumed: a power cut after operation K keeps every
durable operation before K, and of the rest any subset that keeps, for each file and each folder,
its operations in their order (a prefix of them). The last write kept on a file may be torn: only
its first part reached the disk. This is stricter than ext4 in data=ordered mode, which also
writes a file's data before the metadata that makes it visible, and commits every earlier name
change with any fsync: a state this model allows, ext4 may never leave, but every state ext4
leaves is among these.

For each prefix the states explored are: only the durable operations; all of them (what kill -9
leaves); for each file or folder with operations in flight, each cut of them with everything else
kept, each cut with everything else lost, and each write in flight torn; and, where several files
and folders have operations in flight, the cuts of each pair of them together (up to 48 a prefix,
spread evenly) with the rest kept or lost, and two dozen cuts of all of them at once drawn at random
(the same draw on every run).
"""

import hashlib
import os
import random


class State:
    """The names and bytes of one crash state, relative to the root."""

    def __init__(self, files, folders, links, times=None):
        self.files = files  # path -> bytes
        self.folders = folders
        self.links = links
        self.times = times or {}  # path -> modification time (ns) of files the run never wrote

    def digest(self):
        hasher = hashlib.sha256()
        for path in sorted(self.folders):
            hasher.update(b"d" + path.encode("utf-8", "surrogateescape") + b"\0")
        for path in sorted(self.links):
            hasher.update(b"l" + path.encode("utf-8", "surrogateescape") + b"\0" + self.links[path].encode() + b"\0")
        for path in sorted(self.files):
            hasher.update(b"f" + path.encode("utf-8", "surrogateescape") + b"\0")
            hasher.update(hashlib.sha256(self.files[path]).digest())
        return hasher.hexdigest()

    def write(self, root):
        """Makes the state on disk below `root` (which must not exist)."""
        os.makedirs(root)
        for path in sorted(self.folders, key=lambda p: p.count("/")):
            if path:
                os.makedirs(os.path.join(root, path), exist_ok=True)
        for path, data in self.files.items():
            with open(os.path.join(root, path), "wb") as file:
                file.write(data)
            if path in self.times:
                os.utime(os.path.join(root, path), ns=(self.times[path], self.times[path]))
        for path, target in self.links.items():
            os.symlink(target, os.path.join(root, path))


def initial_contents(root, tree):
    """The bytes of every file the recording's tree starts with, by inode."""
    contents = {}
    for path, inode in tree.files.items():
        with open(os.path.join(root, path), "rb") as file:
            contents[inode] = file.read()
    return contents


def initial_times(root, tree):
    """The modification time of every file the recording's tree starts with, by inode: a file
    the run only renamed keeps it (the daemon tells a script applied before a restart by it)."""
    return {inode: os.stat(os.path.join(root, path)).st_mtime_ns for path, inode in tree.files.items()}


class Explorer:
    """Builds the crash states of one recording. `initial` is the tree before the run (paths and
    inodes as the recording's Tree started), `contents` the initial bytes by inode."""

    def __init__(self, ops, initial_files, initial_folders, initial_links, contents, random_draws=24, pair_limit=48,
                 times=None):
        self.ops = ops
        self.pair_limit = pair_limit
        self.times = times or {}
        self.random_draws = random_draws
        self.initial_files = dict(initial_files)
        self.initial_folders = set(initial_folders)
        self.initial_links = dict(initial_links)
        self.contents = contents

    def apply(self, applied, torn=None):
        """The state after the operations whose indices are in `applied` (in order); the write
        `torn` keeps only the first part of its bytes."""
        names = dict(self.initial_files)
        folders = set(self.initial_folders)
        links = dict(self.initial_links)
        data = {}

        def content(inode):
            if inode not in data:
                data[inode] = bytearray(self.contents.get(inode, b""))
            return data[inode]

        for index in sorted(applied):
            op = self.ops[index]
            if op.kind == "create":
                content(op.inode)
                names[op.path] = op.inode
            elif op.kind == "write":
                bytes_ = op.data if index != torn else op.data[: torn_length(len(op.data))]
                target = content(op.inode)
                if len(target) < op.offset:
                    target.extend(b"\0" * (op.offset - len(target)))
                target[op.offset: op.offset + len(bytes_)] = bytes_
            elif op.kind == "truncate":
                target = content(op.inode)
                if len(target) > op.size:
                    del target[op.size:]
                else:
                    target.extend(b"\0" * (op.size - len(target)))
            elif op.kind == "mkdir":
                folders.add(op.path)
            elif op.kind == "rmdir":
                folders.discard(op.path)
            elif op.kind == "link":
                names[op.path] = op.inode
            elif op.kind == "symlink":
                links[op.path] = op.target
            elif op.kind == "unlink":
                names.pop(op.path, None)
                links.pop(op.path, None)
            elif op.kind == "rename":
                if op.source in names:
                    names[op.path] = names.pop(op.source)
                elif op.source in links:
                    links[op.path] = links.pop(op.source)
                elif op.source in folders:
                    prefix = op.source + "/"
                    for path in [p for p in folders if p == op.source or p.startswith(prefix)]:
                        folders.discard(path)
                        folders.add(op.path + path[len(op.source):])
                    for path in [p for p in names if p.startswith(prefix)]:
                        names[op.path + path[len(op.source):]] = names.pop(path)
        # A name in a folder that did not survive is gone with it.
        def reachable(path):
            folder = os.path.dirname(path)
            while folder:
                if folder not in folders:
                    return False
                folder = os.path.dirname(folder)
            return True

        files = {path: bytes(data[inode]) if inode in data else self.contents.get(inode, b"")
                 for path, inode in names.items() if reachable(path)}
        times = {path: self.times[inode] for path, inode in names.items()
                 if inode in self.times and inode not in data and path in files}
        return State(files, {f for f in folders if reachable(f)}, {p: t for p, t in links.items() if reachable(p)}, times)

    def states(self):
        """(prefix length, description, applied indices, torn index) of every crash state explored,
        prefix by prefix; the same applied set is given once."""
        seen = set()
        synced_after = {}  # object -> index of the last fsync of it, in the prefix so far
        last_sync = -1
        for end in range(len(self.ops) + 1):
            if end > 0:
                op = self.ops[end - 1]
                if op.kind == "fsync":
                    synced_after[op.object] = end - 1
                elif op.kind == "sync":
                    last_sync = end - 1
            durable, pending = [], {}
            for index in range(end):
                op = self.ops[index]
                objects = op.objects
                if not objects:
                    continue
                if index < last_sync or any(synced_after.get(o, -1) > index for o in objects):
                    durable.append(index)
                else:
                    for o in objects:
                        pending.setdefault(o, []).append(index)
            for description, cuts, torn in self._variants(pending):
                applied = frozenset(durable) | self._closed(pending, cuts)
                key = (applied, torn)
                if key in seen:
                    continue
                seen.add(key)
                yield end, description, applied, torn

    def _variants(self, pending):
        everything = {o: len(ops) for o, ops in pending.items()}
        nothing = {o: 0 for o in pending}
        yield "only what was synced", nothing, None
        yield "everything written (as kill -9 leaves it)", everything, None
        for o, ops in pending.items():
            for cut in range(len(ops)):
                yield f"{describe(o)}: {cut} of {len(ops)} in flight kept, the rest of the disk as written", {**everything, o: cut}, None
            for cut in range(1, len(ops) + 1):
                yield f"{describe(o)}: {cut} of {len(ops)} in flight kept, nothing else in flight", {**nothing, o: cut}, None
            for write in [index for index in ops if self.ops[index].kind == "write" and len(self.ops[index].data) > 1]:
                cut = ops.index(write) + 1
                yield f"{describe(o)}: {cut} of {len(ops)} in flight kept, the last torn", {**everything, o: cut}, write
        # Then every pair of files and folders in flight cut together, the rest kept or lost (at most
        # `pair_limit` pairs of cuts a prefix, spread evenly); and cuts of all of them at once, drawn
        # at random (the same draw every time).
        pairs = []
        objects = sorted(pending)
        for first in range(len(objects)):
            for second in range(first + 1, len(objects)):
                a, b = objects[first], objects[second]
                for cut_a in range(len(pending[a]) + 1):
                    for cut_b in range(len(pending[b]) + 1):
                        for rest, base in (("kept", everything), ("lost", nothing)):
                            pairs.append((f"{describe(a)} {cut_a}/{len(pending[a])} and {describe(b)} {cut_b}/{len(pending[b])} "
                                          f"in flight kept, the rest in flight {rest}", {**base, a: cut_a, b: cut_b}, None))
        step = max(1, len(pairs) / self.pair_limit)
        for index in range(min(len(pairs), self.pair_limit)):
            yield pairs[int(index * step)]
        if len(pending) > 1:
            draw = random.Random(sum(len(ops) for ops in pending.values()) * 7919 + len(pending))
            for _ in range(self.random_draws):
                cuts = {o: draw.randint(0, len(ops)) for o, ops in sorted(pending.items())}
                yield "in flight, each file and folder cut at random: " + ", ".join(
                    f"{describe(o)} {cuts[o]}/{len(ops)}" for o, ops in sorted(pending.items())), cuts, None

    def _closed(self, pending, cuts):
        """The in-flight operations kept under `cuts`, so that each object keeps a prefix of its
        own: an operation on two folders (a rename) kept only when both keep it."""
        cuts = dict(cuts)
        while True:
            kept = set()
            for o, ops in pending.items():
                kept.update(ops[: cuts[o]])
            changed = False
            for o, ops in pending.items():
                for position, index in enumerate(ops[: cuts[o]]):
                    if any(index not in pending[other][: cuts[other]] for other in self.ops[index].objects if other != o):
                        cuts[o] = position
                        changed = True
                        break
            if not changed:
                return frozenset(kept)


def torn_length(length):
    """How much of a torn write reached the disk: whole 512-byte sectors of its first half, or
    half of a write shorter than two sectors."""
    half = length // 2
    return half - half % 512 if length >= 1024 else half


def describe(o):
    kind, value = o
    return f"folder {value or '.'}" if kind == "folder" else f"file {value}"
