#!/usr/bin/env python3
"""The second-writer soak (issue 40): the daemon ingests and edits while another program saves the
same PDFs, and the daemon is killed with SIGKILL at random moments and restarted.

  python3 Tests/Soak/second_writer.py [--seconds 600] [--seed N] [--bin PATH] [--keep]

Three processes share a scratch folder:
- the daemon (`pdftrapper run`), killed at random and started again, with a `[[notify]]` command
  that files every event it sends (that is what "reported committed" means here);
- this script's main loop, which drops inputs into the inbox (each a PNG whose page size no other
  input has, so every page says which input it came from) and edit scripts into the edits folder
  (each inserts a blank page of a size of its own, and rotates it);
- the other writer (this file again, with --other-writer), which saves the targets by rewriting
  them with qpdf or pypdf, appending an incremental update with pypdf, or copying them, every new
  file renamed over the old one; half of its saves take flock(2) on the PDF first, half do not.
  Before each rename it hard-links the file it is replacing into versions/, so every byte that was
  ever at a target's path can be searched at the end.

At the end (the daemon settled and stopped, `pdftrapper recover` run) it prints what it finds and
exits 1 on any violation; see README.md beside this file for the checks.
"""
import argparse
import fcntl
import hashlib
import io
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Workspace"))
from workspace import reader_pages  # noqa: E402

TARGETS = {"a": "A.pdf", "b": "B.pdf", "c": "C.pdf"}  # inbox folder -> target below the library
EDIT_WIDTH = 5000  # blank pages of edit scripts are 5000 + k points wide; inputs are under 2000
EDIT_HEIGHT = 150


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def only_own_cut(save, data):
    """Whether what is gone of the other writer's `save` from `data` (the file now) is only the
    PDFTrapper revision it ended with: everything before that revision's mark is still there. A
    kill left that revision unfinished or uncounted, the other program copied it as it found it,
    and recovery took it back (its pages go in again)."""
    at = save.get("own_from")
    return at is not None and len(data) >= at and sha256(data[:at]) == save["before_own"]


def input_size(i):
    """The page size (points) of input i: unique among inputs and edits, and far enough from the
    next that the pHYs rounding of a 72 dpi PNG (72.009 dpi) never makes two alike."""
    return 200 + i % 1500, 40 + i // 1500


def page_sizes(path):
    """Every page of a PDF as (width, height) in whole points, in order; None when pypdf cannot read it."""
    import logging
    import pypdf
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # its notes on what it repairs as it reads
    try:
        return [(round(float(p.mediabox.width)), round(float(p.mediabox.height))) for p in pypdf.PdfReader(path).pages]
    except Exception:
        return None


# ---------------------------------------------------------------------------------------------
# The other writer: a separate process, so that its saves race the daemon as another program's do.

def other_writer(folder, seed):
    import logging
    import pypdf
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    rng = random.Random(seed)
    library = os.path.join(folder, "library")
    versions = os.path.join(folder, "versions")
    log = open(os.path.join(folder, "saves.jsonl"), "a", buffering=1)
    last = {}  # target -> its own last save (its record), to check it was never cut
    n = 0

    def record(**fields):
        fields["t"] = round(time.time(), 3)  # to line it up with the daemon's log and events
        log.write(json.dumps(fields) + "\n")
        return fields

    while not os.path.exists(os.path.join(folder, "stop")):
        time.sleep(rng.uniform(0.05, 1.2))
        target = rng.choice(sorted(TARGETS.values()))
        path = os.path.join(library, target)
        if not os.path.exists(path):
            continue  # the daemon has not made it yet
        move = rng.choice(["qpdf-rewrite", "pypdf-rewrite", "pypdf-append", "copy-rename"])
        polite = rng.random() < 0.5
        n += 1
        fd = os.open(path, os.O_RDWR)
        try:
            if polite:
                fcntl.flock(fd, fcntl.LOCK_EX)
                # The lock is on the inode: a file renamed over it meanwhile is another file.
                if os.fstat(fd).st_ino != os.stat(path).st_ino:
                    continue
            size = os.fstat(fd).st_size
            old = os.pread(fd, size, 0)
            # Its previous save must still begin the file: PDFTrapper appends, never cuts.
            if target in last:
                save = last[target]
                if len(old) < save["length"] or sha256(old[:save["length"]]) != save["sha256"]:
                    record(cut=save, target=target, now=len(old), n=n, own_only=only_own_cut(save, old))
                    del last[target]  # reported once
            if move == "pypdf-append":
                out = io.BytesIO()
                writer = pypdf.PdfWriter(io.BytesIO(old), incremental=True)  # pypdf 5+: the source, kept as is
                writer.add_metadata({"/SoakSave": str(n)})
                writer.write(out)
                new = out.getvalue()
                if not new.startswith(old):
                    record(skipped="pypdf's incremental output does not start with the file", target=target, n=n)
                    continue
                # In place: only the new tail, at the end. A careful program without a lock checks
                # the size first; the few microseconds between check and write remain a race.
                if os.fstat(fd).st_size != len(old):
                    record(skipped="the file grew while the update was made", target=target, n=n)
                    continue
                lock_held = None
                if not polite:
                    # Whether a PDFTrapper revision is being written right now (its lock held):
                    # PDFTrapper writes at the length it read, so an append without the lock that
                    # lands meanwhile is overwritten by it, the other program's own race. Asked
                    # through a descriptor of its own, let go at once.
                    probe = os.open(path, os.O_RDONLY)
                    try:
                        fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        lock_held = False
                    except BlockingIOError:
                        lock_held = True
                    finally:
                        os.close(probe)
                # O_APPEND, so a revision the daemon appended in that window is never overwritten.
                fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
                tail = new[len(old):]
                os.write(fd, tail)
                written_at = os.lseek(fd, 0, os.SEEK_CUR) - len(tail)  # where O_APPEND put it
                os.fsync(fd)
                if written_at != len(old):
                    # Its offsets now point into someone else's bytes: its own collision, counted.
                    record(collision=True, target=target, n=n, polite=polite)
                    last.pop(target, None)
                    continue
            else:
                if move == "qpdf-rewrite":
                    source = os.path.join(folder, f".other-{n}.in")
                    with open(source, "wb") as f:
                        f.write(old)
                    done = subprocess.run(["qpdf", source, source + ".out"], capture_output=True)
                    os.remove(source)
                    if done.returncode not in (0, 3):  # 3: written, with warnings
                        record(skipped="qpdf: " + done.stderr.decode(errors="replace")[-300:], target=target, n=n)
                        continue
                    with open(source + ".out", "rb") as f:
                        new = f.read()
                    os.remove(source + ".out")
                elif move == "pypdf-rewrite":
                    writer = pypdf.PdfWriter(clone_from=io.BytesIO(old))
                    writer.add_metadata({"/SoakSave": str(n)})
                    out = io.BytesIO()
                    writer.write(out)
                    new = out.getvalue()
                else:
                    new = old  # copy + rename: the same bytes, another inode
                staged = os.path.join(library, f".{target}.other")
                with open(staged, "wb") as f:
                    f.write(new)
                    f.flush()
                    os.fsync(f.fileno())
                # Keep the file being replaced: its inode, hard-linked before the rename. Its size
                # just after the rename says which of its bytes were at the path: a revision found
                # only past it was written to a file that was no longer the target.
                version = os.path.join(versions, f"{target}.{n}")
                os.link(path, version)
                os.rename(staged, path)
                replaced = os.fstat(fd)
                if os.stat(version).st_ino != replaced.st_ino:
                    raise RuntimeError("the file linked is not the one read")  # never: only the daemon creates targets
                record(version=os.path.basename(version), target=target, n=n, polite=polite, at_path=replaced.st_size)
            # A save that carries a PDFTrapper revision that had not finished (its bytes after the
            # last %%EOF begin with the revision's mark): recovery takes those bytes back.
            tail = new[new.rfind(b"%%EOF") + 5:] if b"%%EOF" in new else new
            unfinished = b"%PDFTrapper revision" in tail
            # Or one written whole but not yet counted when a kill came (a copy of the file as the
            # kill left it): recovery takes it back too, and with it only PDFTrapper's own bytes, so
            # the file must still hold everything before its mark. Where that is, and those bytes.
            mark = new.rfind(b"%PDFTrapper revision")
            own = {"own_from": mark, "before_own": sha256(new[:mark])} if mark > 0 and new.count(b"%%EOF", mark) <= 1 else {}
            last[target] = record(target=target, move=move, polite=polite, length=len(new), sha256=sha256(new), n=n,
                                  unfinished=unfinished, **own,
                                  **({"lock_held": lock_held} if move == "pypdf-append" and not polite else {}))
        except Exception as error:  # a file the daemon is half-way through: pypdf may refuse it
            record(skipped=f"{type(error).__name__}: {error}"[:300], target=target, n=n)
        finally:
            os.close(fd)  # and with it the lock
    log.close()


# ---------------------------------------------------------------------------------------------
# The soak: the daemon, the inputs and edit scripts, the kills.

CONFIG = """\
[daemon]
state_dir = "state"
log_level = "info"
[library]
root = "library"
[inbox]
path = "inbox"
settle = "100ms"
rescan_interval = "2s"
[edits]
purge = false
{rules}
[[notify]]
name = "soak"
events = ["revision", "quarantined", "incomplete"]
# Each event to a file named by its key: a retry or an event made again after a kill lands on the same name.
command = ["/bin/sh", "-c", "cat > \\"$0/.$$\\" && mv \\"$0/.$$\\" \\"$0/$PDFTRAPPER_KEY.json\\"", "{events}"]
"""

RULE = """
[[rule]]
name = "{folder}"
target = "{target}"
archive_as = "{{name}}"
compress = "keep"
match = {{ folder = "{folder}" }}
"""


class Soak:
    def __init__(self, folder, binary, seed):
        self.dir, self.bin, self.rng = folder, binary, random.Random(seed)
        self.seed = seed
        for name in ("inbox", "edits", "events", "versions", "staging", "library"):
            os.makedirs(os.path.join(folder, name), exist_ok=True)
        for sub in TARGETS:
            os.makedirs(os.path.join(folder, "inbox", sub), exist_ok=True)
        self.config = os.path.join(folder, "config.toml")
        with open(self.config, "w") as f:
            f.write(CONFIG.format(rules="".join(RULE.format(folder=k, target=v) for k, v in TARGETS.items()),
                                  events=os.path.join(folder, "events")))
        self.inputs = {}   # name -> (target, (width, height))
        self.scripts = {}  # name -> (target, (width, height))
        self.daemon = None
        self.starts = self.kills = 0
        self.log = open(os.path.join(folder, "daemon.log"), "ab")

    def start_daemon(self):
        self.log.write(f"--- start {self.starts + 1} at {time.time():.3f}\n".encode())
        self.log.flush()
        self.daemon = subprocess.Popen([self.bin, "run", "--config", self.config], stdout=self.log, stderr=self.log)
        self.starts += 1

    def kill_daemon(self):
        self.daemon.send_signal(signal.SIGKILL)
        self.daemon.wait()
        self.log.write(f"--- killed at {time.time():.3f}\n".encode())
        self.log.flush()
        self.kills += 1

    def drop_input(self, folder=None):
        from PIL import Image
        i = len(self.inputs)
        folder = folder or self.rng.choice(sorted(TARGETS))
        width, height = input_size(i)
        name = f"p{i}.png"
        staged = os.path.join(self.dir, "staging", name)
        Image.new("L", (width, height), self.rng.randrange(200, 256)).save(staged, dpi=(72, 72))
        os.rename(staged, os.path.join(self.dir, "inbox", folder, name))
        self.inputs[name] = (TARGETS[folder], (width, height))

    def drop_script(self):
        made = sorted(t for t in TARGETS.values() if os.path.exists(os.path.join(self.dir, "library", t)))
        if not made:
            return
        k = len(self.scripts)
        target = self.rng.choice(made)
        size = (EDIT_WIDTH + k, EDIT_HEIGHT)
        name = f"e{k}.toml"
        staged = os.path.join(self.dir, "staging", name)
        with open(staged, "w") as f:
            f.write(f'target = "{target}"\n[[edit]]\nop = "insert-blank"\nafter = 0\nsize = [{size[0]}, {size[1]}]\n'
                    f'[[edit]]\nop = "rotate"\npages = "1"\ndegrees = {self.rng.choice([90, 180, 270])}\n')
        os.rename(staged, os.path.join(self.dir, "edits", name))
        self.scripts[name] = (target, size)

    def run(self, seconds):
        other = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--other-writer", self.dir,
                                  "--seed", str(self.seed + 1)])
        self.start_daemon()
        now = time.monotonic()
        end = now + seconds
        next_input, next_script = now, now + 1
        next_kill = now + self.rng.uniform(0.5, 8)
        while time.monotonic() < end:
            now = time.monotonic()
            if now >= next_input:
                self.drop_input()
                next_input = now + self.rng.uniform(0.05, 0.6)
            if now >= next_script:
                self.drop_script()
                next_script = now + self.rng.uniform(0.5, 4)
            if now >= next_kill:
                self.kill_daemon()
                # Sometimes down for a while: the other writer goes on saving meanwhile.
                time.sleep(self.rng.choice([0, 0, 0.2, 1.5]))
                self.start_daemon()
                next_kill = time.monotonic() + self.rng.uniform(0.5, 8)
            time.sleep(max(0.0, min(next_input, next_script, next_kill) - time.monotonic()))
        with open(os.path.join(self.dir, "stop"), "w"):
            pass
        other.wait()
        if other.returncode != 0:
            raise SystemExit(f"the other writer failed ({other.returncode})")
        # One input more for each target, so that every file ends with a revision of PDFTrapper's
        # on top of whatever the other program left, and the readers judge that.
        for folder in sorted(TARGETS):
            self.drop_input(folder)
        # The last run finishes everything that waits, then stops cleanly, and recover runs.
        settled = self.wait_settled(timeout=max(600, seconds))
        self.daemon.send_signal(signal.SIGTERM)
        stopped = self.daemon.wait(timeout=120)
        recovered = subprocess.run([self.bin, "recover", "--config", self.config], capture_output=True, text=True)
        return settled, stopped, recovered

    def pending(self):
        """What the daemon still has to do: inputs in the inbox or its claims, scripts, events."""
        left = []
        for top in ("inbox", "edits", os.path.join("library", ".pdftrapper", "outbox", "pending")):
            base = os.path.join(self.dir, top)
            for folder, dirs, files in os.walk(base):
                if top == "edits":
                    dirs[:] = []  # done/ and failed/ are finished
                left += [os.path.join(folder, f) for f in files if not f.endswith(".lock")]
        return left

    def wait_settled(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.pending():
                return True
            time.sleep(1)
        return False


# ---------------------------------------------------------------------------------------------
# The checks.

def check(soak, settled, stopped, recovered):
    folder = soak.dir
    violations = []
    if not settled:
        violations.append(f"the daemon did not finish: {soak.pending()[:10]}")
    if stopped != 0:
        violations.append(f"the daemon exited {stopped} on SIGTERM")
    if recovered.returncode != 0:
        violations.append(f"recover exited {recovered.returncode}: {recovered.stderr.strip()[-500:]}")

    # What the daemon reported: every revision event, by the inputs it names.
    events = []
    for name in os.listdir(os.path.join(folder, "events")):
        if name.endswith(".json"):
            with open(os.path.join(folder, "events", name)) as f:
                events.append(json.load(f))
    committed = {}  # (target, size) -> what it was
    announced = {}  # input or script name -> number of revisions naming it
    quarantine_events = set()
    for event in events:
        if event["event"] != "revision":
            quarantine_events.add(os.path.basename(event.get("file", "")))
            continue
        for item in event.get("inputs", []):
            name = item["name"]
            known = soak.inputs.get(name) or soak.scripts.get(name)
            if known is None:
                violations.append(f"an event names {name}, which the soak never dropped")
                continue
            if known[0] != event["target"]:
                violations.append(f"{name} went into {event['target']}, not {known[0]}")
            announced[name] = announced.get(name, 0) + 1
            committed[known] = name
    for name, count in announced.items():
        if count > 1:
            violations.append(f"{name} is in {count} revisions")

    # The other writer's saves, and every file it replaced.
    saves, cuts, collisions, skipped = [], [], [], []
    versions = {target: [] for target in TARGETS.values()}  # target -> files replaced, oldest first
    with open(os.path.join(folder, "saves.jsonl")) as f:
        for line in f:
            record = json.loads(line)
            if "version" in record:
                versions[record["target"]].append(record)
            else:
                (cuts if "cut" in record else collisions if "collision" in record
                 else skipped if "skipped" in record else saves).append(record)

    finals, reader_failures, others_files = {}, [], []
    for target in TARGETS.values():
        path = os.path.join(folder, "library", target)
        if not os.path.exists(path):
            continue
        finals[target] = page_sizes(path) or []
        with open(path, "rb") as f:
            data = f.read()
        last = [s for s in saves if s["target"] == target]
        failure = None
        try:
            counts = reader_pages(path)
            if set(counts.values()) != {len(finals[target])}:
                failure = f"{target}: readers disagree with pypdf's {len(finals[target])} pages: {counts}"
        except Exception as error:
            failure = f"{target}: {error} {getattr(error, 'stderr', '') or ''}"[:600]
        if failure and last and len(data) == last[-1]["length"] and sha256(data) == last[-1]["sha256"]:
            # Byte for byte the other program's own save, nothing of PDFTrapper's after it: what
            # the readers say of it is about that program (pypdf's incremental update, for one,
            # leaves its cross-reference stream out of itself, and qpdf --check warns).
            others_files.append(failure)
        elif failure:
            reader_failures.append(failure)
        # The other writer's last save must still begin the file (the earlier ones it checked itself).
        if last and not (collisions and any(c["target"] == target and c["n"] > last[-1]["n"] for c in collisions)):
            if len(data) < last[-1]["length"] or sha256(data[:last[-1]["length"]]) != last[-1]["sha256"]:
                cuts.append({"cut": last[-1], "target": target, "now": len(data), "n": None,
                             "own_only": only_own_cut(last[-1], data)})
    # An append made without the lock while a PDFTrapper revision was being written (its lock held)
    # is overwritten by that revision: the other program's own race, counted apart like its lost
    # updates. Every other cut (of a whole-file save, of a save under the lock, of an append made
    # while no revision was being written) is PDFTrapper's.
    raced = [c for c in cuts if c["cut"].get("lock_held")]
    cuts = [c for c in cuts if not c["cut"].get("lock_held")]
    # A save that copied a PDFTrapper revision cut short by a kill (torn, after the last %%EOF):
    # recovery takes back those bytes, PDFTrapper's own, not the other program's.
    taken_back = [c for c in cuts if c["cut"].get("unfinished") or c.get("own_only")]
    cuts = [c for c in cuts if c not in taken_back]

    # Every committed page: in the final file, else in a file the other writer replaced. The last
    # such file with the page in the bytes it had at the path, and the save that replaced it,
    # decide: a save without the lock that left the page out is that program's lost update;
    # anything else (a save under the lock that left it out, or a page carried into the new file
    # and gone since) is PDFTrapper's loss.
    version_pages = {}
    save_of = {s["n"]: s for s in saves}

    def pages_in(path, length=None):
        key = (path, length)
        if key not in version_pages:
            if length is not None:
                with open(path, "rb") as f:
                    prefix = f.read(length)
                path = os.path.join(folder, "prefix.pdf")
                with open(path, "wb") as f:
                    f.write(prefix)
            version_pages[key] = set(page_sizes(path) or [])
        return version_pages[key]

    def version_path(version):
        return os.path.join(folder, "versions", version["version"])

    lost, only_replaced = [], []
    for (target, size), name in sorted(committed.items(), key=lambda item: item[1]):
        if size in finals.get(target, []):
            continue
        chain = versions[target]
        holding = [i for i, v in enumerate(chain) if size in pages_in(version_path(v), v["at_path"])]
        if holding:
            i = holding[-1]
            save = save_of[chain[i]["n"]]
            # The file that save wrote: the next one replaced, or the one at the path at the end.
            written = version_path(chain[i + 1]) if i + 1 < len(chain) else os.path.join(folder, "library", target)
            with open(written, "rb") as f:
                intact = sha256(f.read(save["length"])) == save["sha256"]
            if not intact:
                where = f"; the file the other writer's save {save['n']} wrote was cut since"
            elif size not in pages_in(written, save["length"]):
                if not save["polite"]:
                    only_replaced.append(name)
                    continue
                where = f"; the other writer's save {save['n']} under the lock left it out"
            else:
                where = f"; in the other writer's save {save['n']}, gone since"
        elif any(size in pages_in(version_path(v)) for v in chain):
            where = "; only in a file after another program had replaced it at the path"
        else:
            where = "; in no version"
        lost.append(f"{name} ({target}, {size[0]}x{size[1]} pt{where})")

    # Every input: archived or quarantined with a note, once; its page in the PDF at most once.
    quarantine = os.path.join(folder, "quarantine")
    quarantined = {}
    for entry in (os.listdir(quarantine) if os.path.isdir(quarantine) else []):
        if not entry.endswith(".why.txt") and not entry.startswith("."):
            base = os.path.basename(urllib.parse.unquote(entry))
            quarantined[base] = os.path.exists(os.path.join(quarantine, entry + ".why.txt"))
    fates = {"archived": 0, "quarantined": 0}
    kept_unfinished = []  # pages in a target twice, one copy from a revision never counted that the other program kept
    for name, (target, size) in sorted(soak.inputs.items()):
        archived = os.path.exists(os.path.join(folder, "archive", name))
        times = finals.get(target, []).count(size)
        if archived and name in quarantined:
            violations.append(f"{name}: archived and quarantined")
        elif archived:
            fates["archived"] += 1
            if name not in announced:
                violations.append(f"{name}: archived, but no revision event names it")
        elif name in quarantined:
            fates["quarantined"] += 1
            if not quarantined[name]:
                violations.append(f"{name}: quarantined without a note")
            if name not in quarantine_events:
                violations.append(f"{name}: quarantined, but no event says so")
            if times:
                violations.append(f"{name}: quarantined, and its page is in {target}")
        else:
            violations.append(f"{name}: neither archived nor quarantined")
        if times > 1 and announced.get(name, 0) <= 1:
            # Reported once: the other copy is a revision a kill cut short before it was counted,
            # which a save of the other program without the lock kept (rewrote or appended after)
            # before PDFTrapper could take it back. The other program's doing, counted apart.
            kept_unfinished.append(name)
        elif times > 1:
            violations.append(f"{name}: its page is in {target} {times} times")
        if name in announced and not archived:
            violations.append(f"{name}: reported committed, but not archived")

    # Every edit script: in done/ or failed/; its blank page at most once, and never from a failed one.
    scripts = {"done": 0, "failed": 0}
    for name, (target, size) in sorted(soak.scripts.items()):
        done = os.path.exists(os.path.join(folder, "edits", "done", name))
        failed = os.path.exists(os.path.join(folder, "edits", "failed", name))
        times = finals.get(target, []).count(size)
        if done == failed:
            violations.append(f"{name}: in done/ {done}, in failed/ {failed}")
        scripts["done" if done else "failed"] += 1
        if times > 1 and not failed and announced.get(name, 0) <= 1:
            kept_unfinished.append(name)
        elif times > 1 or (failed and times):
            violations.append(f"{name}: its page is in {target} {times} times (failed: {failed})")

    polite = sum(1 for s in saves if s["polite"])
    by_move = {}
    for s in saves:
        by_move[s["move"]] = by_move.get(s["move"], 0) + 1
    print(f"seed {soak.seed}: {soak.kills} kills, {soak.starts} daemon starts; {len(soak.inputs)} inputs "
          f"({fates['archived']} archived, {fates['quarantined']} quarantined), {len(soak.scripts)} edit scripts "
          f"({scripts['done']} done, {scripts['failed']} failed)")
    print(f"other writer: {len(saves)} saves ({polite} under flock, {len(saves) - polite} without; "
          + ", ".join(f"{k} {v}" for k, v in sorted(by_move.items()))
          + f"), {len(skipped)} moves given up; appends without the lock: {len(collisions)} landed after a "
          f"revision written meanwhile, {len(raced)} overwritten by a revision being written")
    for target, pages in sorted(finals.items()):
        print(f"{target}: {len(pages)} pages, {len(versions[target])} files replaced by the other writer")
    if quarantined:
        reasons = {}
        for entry in os.listdir(quarantine):
            if entry.endswith(".why.txt"):
                with open(os.path.join(quarantine, entry)) as f:
                    reason = re.sub(r"\d+", "N", f.readline().strip())[:120]
                reasons[reason] = reasons.get(reason, 0) + 1
        for reason, count in sorted(reasons.items()):
            print(f"  quarantined {count}: {reason}")
    for item in lost:
        print("LOST: " + item)
    for cut in raced + cuts:
        save = cut["cut"]
        when = f"at its save {cut['n']}" if cut["n"] else "at the end"
        print(f"{'CUT' if cut in cuts else 'raced'}: the other writer's save {save['n']} of {cut['target']} ({save['move']}, "
              f"{'under the lock' if save['polite'] else 'without the lock'}, {save['length']} bytes, at {save['t']:.3f}) "
              f"no longer begins the file ({cut['now']} bytes {when})")
    for cut in taken_back:
        save = cut["cut"]
        print(f"taken back: the other writer's save {save['n']} of {cut['target']} copied a PDFTrapper revision a kill "
              f"had cut short or left uncounted; recovery took those bytes back, and only those")
    for name in kept_unfinished:
        print(f"kept by the other program: {name} is in its target twice, once from a revision a kill cut short "
              f"before it was counted, which a save without the lock kept")
    for failure in others_files:
        print("readers on a file exactly as the other program saved it (not counted): " + failure)
    for failure in reader_failures:
        print("READER: " + failure)
    for violation in violations:
        print("VIOLATION: " + violation)
    print(f"second-writer soak: {len(committed)} pages committed, {len(lost)} lost, {len(only_replaced)} only in another "
          f"program's replaced saves, {len(cuts)} other saves cut, {len(reader_failures)} reader failures, "
          f"{len(violations)} other violations")
    return not (lost or cuts or reader_failures or violations)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--bin", default=os.environ.get("PDFTRAPPER_BIN", os.path.join(ROOT, ".build", "debug", "pdftrapper")))
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder (always kept on a violation)")
    parser.add_argument("--other-writer", metavar="DIR", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    seed = arguments.seed if arguments.seed is not None else random.randrange(1 << 30)
    if arguments.other_writer:
        return other_writer(arguments.other_writer, seed)
    folder = tempfile.mkdtemp(prefix="pdftrapper-second-writer-")
    print(f"second-writer soak: seed {seed}, {arguments.seconds:g} s, in {folder}", flush=True)
    soak = Soak(folder, os.path.abspath(arguments.bin), seed)
    ok = check(soak, *soak.run(arguments.seconds))
    if ok and not arguments.keep:
        shutil.rmtree(folder)
    else:
        print(f"scratch folder kept: {folder}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
