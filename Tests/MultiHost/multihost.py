#!/usr/bin/env python3
"""Several hosts, one library (issue 43): two daemons share one library on a real GlusterFS volume.

  python3 Tests/MultiHost/multihost.py [--files 300] [--seed N] [--bin PATH] [--layout NAME]... [--json FILE] [--keep]

Each host (A and B) is a mount namespace of its own with its own FUSE client of the volume, a
local inbox, archive, quarantine and state folder, and a daemon whose library root is its mount
point. Both send every input whose name starts with `shared-` to `Shared.pdf`, the others to a PDF
of their own (`hostA.pdf`, `hostB.pdf`). N distinct JPEGs per host are renamed into both inboxes
at once. Layouts (`--layout`, repeatable; default all five):

  own-installed   each host's library root its own mount path; Gluster as installed
  one-installed   both at one absolute path (the same fstab line); Gluster as installed
  own-off         own paths; caches off (attribute-timeout=0,entry-timeout=0, stat-prefetch off)
  one-off         one path; caches off
  own-off-kills   own paths, caches off, host A killed -9 while it works; at the end one more page
                  from each host, and the last revision of Shared.pdf (host A's) undone from host B

Every other combination of own|one, installed|off and -kills is accepted too. With Gluster as
installed, the daemons may refuse to start, with one line naming the options to set; otherwise
everything is checked (README.md beside this file). The last line is `multihost: N pages
committed, L lost, V violations`; it exits 1 on any loss or violation and keeps its scratch folder.
"""
import argparse
import collections
import hashlib
import http.client
import io
import json
import os
import random
import re
import shutil
import socket
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "Tests", "Workspace"))
import gluster  # noqa: E402
from workspace import reader_pages  # noqa: E402

HOSTS = ("A", "B")
SHARED = "Shared.pdf"
OWN_EVERY = 5  # one input in five goes to the host's own PDF, the others to Shared.pdf
KILLS = 4      # how often host A is killed in a -kills layout
STALL = 60     # seconds without an input taken (six rescans) after which a run is stuck
DEFAULT_LAYOUTS = ["own-installed", "one-installed", "own-off", "one-off", "own-off-kills"]
# What a refusal at start must name, in one line: the fix for a client that caches metadata.
REFUSAL_WORDS = ("attribute-timeout=0", "entry-timeout=0", "stat-prefetch")

CONFIG = """\
[daemon]
state_dir = "{host_dir}/state"
log_level = "info"
[library]
root = "{library}"
[inbox]
path = "{host_dir}/inbox"
archive = "{host_dir}/archive"
quarantine = "{host_dir}/quarantine"
settle = "100ms"
# A host that loses the race to create a target retries at the next rescan (issue 43, point 4);
# 10 s rather than the default 5 minutes keeps a run short whether or not that is fixed.
rescan_interval = "10s"
[edits]
path = "{host_dir}/edits"
{web}

[[rule]]
name = "shared"
target = "{shared}"
archive_as = "{{name}}"
compress = "keep"   # the JPEG's bytes kept as they are: they say which input a page is
match = {{ glob = ["shared-*"] }}

[[rule]]
name = "own"
target = "host{host}.pdf"
archive_as = "{{name}}"
compress = "keep"

[[notify]]
# The same subscriber on both hosts: the outbox lives in the shared library, so either daemon may
# deliver an event; each lands under its key in one local folder.
name = "multihost"
events = ["revision", "quarantined", "incomplete"]
command = ["/bin/sh", "-c", "cat > \\"$0/.$$\\" && mv \\"$0/.$$\\" \\"$0/$PDFTRAPPER_KEY.json\\"", "{events}"]
"""


class Layout:
    def __init__(self, name):
        match = re.fullmatch(r"(own|one)-(installed|off)(-kills)?", name)
        if not match:
            raise argparse.ArgumentTypeError(f"unknown layout {name!r} (own|one)-(installed|off)[-kills]")
        self.name, self.paths, self.caches, self.kills = name, match.group(1), match.group(2), bool(match.group(3))

    def describe(self):
        paths = "own paths" if self.paths == "own" else "one path"
        return paths + (f", host A killed -9, undo from B" if self.kills else "")

    def options(self):
        return "as installed" if self.caches == "installed" else "caches off"


# ---------------------------------------------------------------------------------------------
# Inputs: small JPEGs of noise, each its own bytes; a page is known by its image's SHA-256.

def make_jpeg(rng):
    from PIL import Image
    width, height = rng.randrange(40, 80), rng.randrange(40, 80)
    out = io.BytesIO()
    Image.frombytes("RGB", (width, height), rng.randbytes(width * height * 3)).save(out, "JPEG", quality=80)
    return out.getvalue()


class Inputs:
    """Every input of a run: name -> (host, target, sha256)."""

    def __init__(self):
        self.by_name, self.by_sha = {}, {}

    def make(self, folder, host, name, target, rng):
        data = make_jpeg(rng)
        digest = hashlib.sha256(data).hexdigest()
        assert digest not in self.by_sha, "two inputs alike"
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
        self.by_name[name] = (host, target, digest)
        self.by_sha[digest] = name


def page_images(path):
    """The SHA-256 of each page's image (None for a page without one), in page order; None when
    pypdf cannot read the file at all. Lenient (strict=False), to count what a damaged file holds."""
    import logging
    import pypdf
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    try:
        pages = pypdf.PdfReader(path, strict=False).pages
        shas = []
        for page in pages:
            try:
                images = [x.get_object() for x in page["/Resources"]["/XObject"].values()]
                # The stream's bytes as stored: for a JPEG kept as it is (DCTDecode), the input file itself.
                shas.append(hashlib.sha256(images[0]._data).hexdigest())
            except Exception:
                shas.append(None)
        return shas
    except Exception:
        return None


def readers(path, pages):
    """None when the six readers take the file whole with `pages` pages; else what failed, in one
    line: qpdf --check, poppler (pdfinfo, and pdftoppm rendering every page), MuPDF, Ghostscript,
    pypdf (strict) and pypdfium2, through the workspace tests' reader_pages."""
    try:
        counts = reader_pages(path)
    except subprocess.CalledProcessError as error:
        return f"{os.path.basename(error.cmd[0])} exit {error.returncode}"
    except Exception as error:
        return f"{type(error).__name__}: {error}"[:200]
    wrong = {reader: n for reader, n in counts.items() if n != pages}
    if wrong:
        return f"readers disagree with {pages} pages: {wrong}"
    with tempfile.TemporaryDirectory() as out:
        render = subprocess.run(["pdftoppm", "-r", "4", "-png", path, os.path.join(out, "p")], capture_output=True, text=True)
        if render.returncode != 0 or "Error" in render.stderr:
            return f"pdftoppm exit {render.returncode}: {render.stderr.strip()[:200]}"
    return None


# ---------------------------------------------------------------------------------------------
# One layout, run.

class Run:
    """One layout: its volume, two hosts with their folders and configs, its inputs; run() does the
    whole thing and leaves what check() reads (final/, the hosts' folders, logs and events)."""

    def __init__(self, folder, layout, binary, files, seed, disguise=False):
        self.dir, self.layout, self.bin, self.files, self.seed = folder, layout, binary, files, seed
        self.disguise = disguise
        self.rng = random.Random(f"{seed}:{layout.name}")
        self.inputs = Inputs()
        self.violations = []
        self.events = os.path.join(folder, "events")
        os.makedirs(self.events)
        self.host_dirs = {h: os.path.join(folder, f"host{h}") for h in HOSTS}
        self.mounts = {h: os.path.join(folder, "lib") if layout.paths == "one" else os.path.join(self.host_dirs[h], "lib")
                       for h in HOSTS}
        self.configs, self.logs = {}, {}
        # Host A serves the workspace, to see that host B's revisions reach its open pages: on a port
        # below the kernel's ephemeral range, which glusterd's bricks and clients take from.
        self.web_port = free_port_below_ephemeral()
        self.live = None
        for h in HOSTS:
            for sub in ("inbox", "staging", "state", "archive", "quarantine", "edits"):
                os.makedirs(os.path.join(self.host_dirs[h], sub))
            os.makedirs(self.mounts[h], exist_ok=True)  # must exist here; each namespace mounts over it
            self.configs[h] = os.path.join(self.host_dirs[h], "config.toml")
            with open(self.configs[h], "w") as f:
                f.write(CONFIG.format(host_dir=self.host_dirs[h], library=self.mounts[h], shared=SHARED, host=h,
                                      events=self.events, web=f'[web]\nlisten = "127.0.0.1:{self.web_port}"' if h == "A" else ""))
            self.logs[h] = os.path.join(self.host_dirs[h], "daemon.log")
        self.kills = 0
        self.undo = None
        self.stuck = False

    def make_inputs(self):
        for h in HOSTS:
            rng = random.Random(f"{self.seed}:{h}")
            for i in range(self.files):
                own = i % OWN_EVERY == OWN_EVERY - 1
                name, target = (f"{h}-{i:04}.jpg", f"host{h}.pdf") if own else (f"shared-{h}-{i:04}.jpg", SHARED)
                self.inputs.make(os.path.join(self.host_dirs[h], "staging"), h, name, target, rng)

    def drop(self, h, name):
        """Renamed into the inbox, as a phone's sync tool does (written under another name first)."""
        os.rename(os.path.join(self.host_dirs[h], "staging", name), os.path.join(self.host_dirs[h], "inbox", name))

    def names(self, h):
        return sorted(n for n, v in self.inputs.by_name.items() if v[0] == h)

    def drop_all(self, waves=1):
        """Every input at once, the hosts' turns interleaved; with waves > 1, host A's only in part:
        returns A's inputs held back, in waves-1 lists, to drop while it is down."""
        a, b = self.names("A"), self.names("B")
        cut = len(a) // waves
        first, rest = a[:cut or len(a)], a[cut or len(a):]
        for i in range(max(len(first), len(b))):
            for h, names in (("A", first), ("B", b)):
                if i < len(names):
                    self.drop(h, names[i])
        return [rest[i::waves - 1] for i in range(waves - 1)] if waves > 1 else []

    # The daemons.

    def start(self, host, h):
        """Starts host h's daemon; returns None once it watches its inbox, else how it ended: (exit
        code, its output since the start)."""
        with open(self.logs[h], "ab") as log:
            log.write(f"--- start at {time.time():.3f}\n".encode())
            log.flush()
            offset = log.tell()
            process = host.start([self.bin, "run", "--config", self.configs[h]], log)
        ready = f"watching {os.path.join(self.host_dirs[h], 'inbox')} with"
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            text = self.log_since(h, offset)
            if ready in text:
                return None
            if process.poll() is not None:
                return process.returncode, self.log_since(h, offset)
            time.sleep(0.05)
        raise RuntimeError(f"host {h}: the daemon neither watched its inbox nor exited within 90 s")

    def log_since(self, h, offset):
        with open(self.logs[h], "rb") as f:
            f.seek(offset)
            return f.read().decode(errors="replace")

    def pending(self, h):
        """What host h still has to take: files in its inbox, its claims folder included."""
        left = []
        for folder, _, names in os.walk(os.path.join(self.host_dirs[h], "inbox")):
            left += [os.path.join(folder, n) for n in names if not n.endswith(".lock")]
        return left

    def wait_settled(self, hosts, timeout):
        """Until both inboxes are empty. A run where no input is taken for STALL seconds (several
        rescans) is stuck: it is given up, with what each daemon is waiting for."""
        deadline = time.monotonic() + timeout
        left, moved = None, time.monotonic()
        while time.monotonic() < deadline:
            now = sum(len(self.pending(h)) for h in HOSTS)
            if now == 0:
                return True
            if now != left:
                left, moved = now, time.monotonic()
            elif time.monotonic() - moved > STALL:
                self.violations.append(f"stuck: {now} inputs left and none taken for {STALL} s ({self.stuck_report(hosts)})")
                self.stuck = True
                return False
            for h, host in hosts.items():
                if host.process.poll() is not None:
                    self.violations.append(f"host {h}: the daemon exited {host.process.returncode} while it had work")
                    return False
            time.sleep(0.5)
        self.violations.append(f"not finished after {timeout:.0f} s: {left} inputs still in the inboxes")
        return False

    def stuck_report(self, hosts):
        """What each daemon is blocked in, and the locks the brick has granted and queued (a daemon's
        PID is named by its host; another PID is a process of that daemon's, such as a worker)."""
        waits = [f"host {h} {waiting_on(host.process.pid)}" for h, host in hosts.items()]
        names = {str(host.process.pid): f"host {h}" for h, host in hosts.items()}
        locks = [re.sub(r"pid (\d+)", lambda m: names.get(m.group(1), m.group(0)), line)
                 for line in gluster.lock_report(hosts["A"].volume.name)]
        return "; ".join(waits) + ("; locks: " + "; ".join(locks) if locks else "")

    def kill_while_working(self, hosts, waves):
        """Host A killed -9 soon after it has been given work (a new wave of its inputs arrives while
        it is down, as a phone goes on syncing), and started again: a new namespace and a new client
        each time, as a host that crashed and came back."""
        for wave in waves:
            time.sleep(self.rng.uniform(0.05, 0.6))  # a kill most often lands in the middle of a revision
            hosts["A"].kill()
            self.kills += 1
            for name in wave:
                self.drop("A", name)
            time.sleep(self.rng.choice([0, 0.1, 0.5]))
            ended = self.start(hosts["A"], "A")
            if ended:
                raise RuntimeError(f"host A did not start again after a kill: exit {ended[0]}: {ended[1][-500:]}")

    def wait_archived(self, h, name, timeout=120):
        path = os.path.join(self.host_dirs[h], "archive", name)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if os.path.exists(path):
                return True
            time.sleep(0.1)
        self.violations.append(f"{name}: not archived {timeout} s after it was dropped on host {h}")
        return False

    def extras_and_undo(self, hosts, volume):
        """One more page from B, then one from A, each on its own; then Shared.pdf's last revision
        (A's page) undone by `pdftrapper undo` on host B, through B's mount and with B's config."""
        for h in ("B", "A"):
            name = f"shared-{h}-extra.jpg"
            self.inputs.make(os.path.join(self.host_dirs[h], "staging"), h, name, SHARED, self.rng)
            self.drop(h, name)
            self.wait_archived(h, name)
        before = page_images(volume.path(SHARED)) or []
        try:
            done = hosts["B"].run([self.bin, "undo", "--config", self.configs["B"], os.path.join(self.mounts["B"], SHARED)],
                                  timeout=120)
        except subprocess.TimeoutExpired as timeout:
            done = subprocess.CompletedProcess(timeout.cmd, "timed out after 120 s", "", "")
        after = page_images(volume.path(SHARED)) or []
        removed = collections.Counter(before) - collections.Counter(after)
        added = collections.Counter(after) - collections.Counter(before)
        expected = {self.inputs.by_name["shared-A-extra.jpg"][2]: 1}
        self.undo = {"exit": done.returncode, "output": (done.stdout + done.stderr).strip()[-500:],
                     "removed": [self.inputs.by_sha.get(s, s) for s in removed], "added": len(added)}
        if done.returncode != 0:
            self.violations.append(f"undo from host B exited {done.returncode}: {self.undo['output'][-300:]}")
        elif removed != expected or added:
            self.violations.append(f"undo from host B took away {self.undo['removed']} (added {len(added)}), "
                                   f"not A's last page alone")
        return done.returncode == 0

    def live_from_the_other_host(self, volume, timeout=60):
        """One more page from host B while a page of host A's workspace listens (`/api/events`): A's
        kernel never sees B's write, so A's daemon must find it by looking (every 10 s on a shared
        mount) and tell it once, with Shared.pdf's length as the server has it."""
        url = subprocess.run([self.bin, "web-url", "--config", self.configs["A"]], capture_output=True, text=True,
                             check=True).stdout.strip()
        token = urllib.parse.parse_qs(urllib.parse.urlparse(url).query)["token"][0]
        host = f"127.0.0.1:{self.web_port}"
        deadline = time.monotonic() + 30
        while True:  # the workspace starts once the daemon watches its inbox
            try:
                login = http.client.HTTPConnection("127.0.0.1", self.web_port, timeout=10)
                login.request("GET", "/login?token=" + token, headers={"Host": host})
                cookie = re.search(r"pdftrapper_session=([^;]+)", login.getresponse().getheader("Set-Cookie") or "").group(1)
                break
            except (OSError, AttributeError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        feed = http.client.HTTPConnection("127.0.0.1", self.web_port, timeout=timeout)
        feed.request("GET", "/api/events", headers={"Host": host, "Cookie": "pdftrapper_session=" + cookie})
        stream = feed.getresponse()
        name = "shared-B-live.jpg"
        self.inputs.make(os.path.join(self.host_dirs["B"], "staging"), "B", name, SHARED, self.rng)
        self.drop("B", name)
        self.wait_archived("B", name)
        end = os.path.getsize(volume.path(SHARED))
        told, started = [], time.monotonic()
        try:
            # A keep-alive comes every 15 s, so the deadline is looked at at least that often.
            while (SHARED, end) not in told and time.monotonic() - started < timeout:
                line = stream.readline().decode()
                if line.startswith("data: ") and '"path"' in line:
                    event = json.loads(line[len("data: "):])
                    told.append((event["path"], event["end"]))
        except (OSError, ValueError):
            pass
        feed.close()
        self.live = {"told": (SHARED, end) in told, "seconds": round(time.monotonic() - started, 1)}
        if not self.live["told"]:
            self.violations.append(f"host B's revision of {SHARED} (ending at {end}) never reached host A's open pages "
                                   f"within {timeout} s; told: {told[-5:]}")

    def ingest_refused(self, host, h):
        """After a refusal at start: a one-shot `ingest --to` through the same kind of mount must refuse
        too, with the same reason, and leave no target behind."""
        sample = os.path.join(self.host_dirs[h], "sample.jpg")
        with open(sample, "wb") as f:
            f.write(make_jpeg(self.rng))
        done = host.run([self.bin, "ingest", "--to", os.path.join(self.mounts[h], SHARED), sample])
        output = done.stdout + done.stderr
        if done.returncode == 0 or not refusal_line(output):
            self.violations.append(f"host {h}: `ingest --to` on the same mount exited {done.returncode} without "
                                   f"naming {', '.join(REFUSAL_WORDS)}: {output.strip()[-300:]}")

    def run(self):
        self.make_inputs()
        with gluster.Volume(self.dir, self.layout.caches) as volume:
            hosts = {h: gluster.Host(volume, h, self.mounts[h], self.dir, self.disguise) for h in HOSTS}
            try:
                outcome = self.exercise(volume, hosts)
            except BaseException:
                for host in hosts.values():  # no orderly stop on the way out: a stuck daemon would hold it up
                    host.kill()
                raise
            if self.stuck:  # reported already; a daemon blocked in a lock would not stop on SIGTERM
                for host in hosts.values():
                    host.kill()
                codes = {}
            else:  # a daemon that does not stop within 60 s gets SIGKILL, its exit None
                codes = {h: host.stop(timeout=60) for h, host in hosts.items()}
            if outcome == "ran":
                for h, code in codes.items():
                    if code is None:
                        self.violations.append(f"host {h}: the daemon did not stop within 60 s of SIGTERM (killed)")
                    elif code != 0:
                        self.violations.append(f"host {h}: the daemon exited {code} on SIGTERM")
            # The files as the server has them, once every client is gone: nothing cached anywhere.
            final = os.path.join(self.dir, "final")
            os.makedirs(final)
            for name in os.listdir(volume.brick):
                if name.endswith(".pdf"):
                    shutil.copyfile(volume.path(name), os.path.join(final, name))
            if gluster.mounted_here(volume.name):
                self.violations.append("the volume is mounted in the test's own namespace")
        return outcome

    def exercise(self, volume, hosts):
        ended = {h: self.start(hosts[h], h) for h in HOSTS}
        if any(ended.values()):
            return self.judge_refusal(hosts, ended)
        held_back = self.drop_all(waves=KILLS + 1 if self.layout.kills else 1)
        if self.layout.kills:
            self.kill_while_working(hosts, held_back)
        settled = self.wait_settled(hosts, timeout=180 + 2 * self.files)
        if settled and not self.layout.kills:
            self.live_from_the_other_host(volume)
        if settled and self.layout.kills:
            self.extras_and_undo(hosts, volume)
        return "ran"

    def judge_refusal(self, hosts, ended):
        """A daemon that would not start: right only with Gluster as installed, on both hosts, with a
        non-zero exit and one line naming the options to set."""
        self.refusals = {h: (e[0], refusal_line(e[1]) or e[1].strip()[-300:]) for h, e in ended.items() if e}
        for h, e in ended.items():
            if e is None:
                self.violations.append(f"host {h} started on a library host {'A' if h == 'B' else 'B'} refused")
            elif self.layout.caches == "off":
                self.violations.append(f"host {h}: refused a coherent mount: exit {e[0]}: {e[1].strip()[-300:]}")
            elif e[0] == 0 or not refusal_line(e[1]):
                self.violations.append(f"host {h}: exit {e[0]} at start without one line naming "
                                       f"{', '.join(REFUSAL_WORDS)}: {e[1].strip()[-300:]}")
        for h, host in hosts.items():
            if ended[h] and host.process.poll() is not None:
                self.ingest_refused(host, h)
        return "refused"


def free_port_below_ephemeral():
    for port in random.Random().sample(range(20000, 30000), 200):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue
    raise RuntimeError("no free port between 20000 and 30000")


def waiting_on(pid):
    """What a process's main thread is blocked in, for a stuck run's report: the system call (x86-64
    numbers) and the file of its first argument, e.g. "in flock(.../Shared.pdf)"."""
    names = {0: "read", 1: "write", 2: "open", 7: "poll", 72: "fcntl", 73: "flock", 74: "fsync", 75: "fdatasync",
             202: "futex", 232: "epoll_wait", 257: "openat", 262: "newfstatat", 270: "pselect6", 271: "ppoll"}
    try:
        with open(f"/proc/{pid}/syscall") as f:
            fields = f.read().split()
    except OSError:
        return "(gone)"
    if not fields or not fields[0].isdigit():
        return f"running ({' '.join(fields[:1])})"
    call = names.get(int(fields[0]), f"syscall {fields[0]}")
    try:
        target = os.readlink(f"/proc/{pid}/fd/{int(fields[1], 16)}")
    except (OSError, ValueError, IndexError):
        target = fields[1] if len(fields) > 1 else ""
    return f"in {call}({target})"


def refusal_line(output):
    """The line of `output` that names every option a coherent client needs, or None."""
    for line in output.splitlines():
        if all(word in line for word in REFUSAL_WORDS):
            return line.strip()
    return None


# ---------------------------------------------------------------------------------------------
# The checks, from outside: the final files as the brick has them, the hosts' local folders, logs
# and events.

def reported(run):
    """Input names reported committed: by a revision event, a daemon's log line ("NAME: 1 page into
    ..."), or an archived original (archived only once its page is durable)."""
    names = set()
    for entry in os.listdir(run.events):
        if entry.endswith(".json"):
            with open(os.path.join(run.events, entry)) as f:
                event = json.load(f)
            if event.get("event") == "revision":
                names.update(item["name"] for item in event.get("inputs", []))
    for h in HOSTS:
        if os.path.exists(run.logs[h]):
            with open(run.logs[h], errors="replace") as f:
                names.update(m.group(1) for m in re.finditer(r"^\w+: (\S+): \d+ pages? into ", f.read(), re.M))
        names.update(os.listdir(os.path.join(run.host_dirs[h], "archive")))
    return names & set(run.inputs.by_name)


def repairs(run):
    """Full rewrites ("repaired by a full rewrite" in a daemon's log, or a revision event made by
    "repair"): none may happen, since no target here is damaged; one would mean a host judged a
    file another host was writing by a torn view of it (issue 43, point 3)."""
    found = []
    for entry in sorted(os.listdir(run.events)):
        if entry.endswith(".json"):
            with open(os.path.join(run.events, entry)) as f:
                event = json.load(f)
            if event.get("event") == "revision" and event.get("made_by") == "repair":
                found.append(f"event {entry}: {event.get('summary', '')}")
    for h in HOSTS:
        if os.path.exists(run.logs[h]):
            with open(run.logs[h], errors="replace") as f:
                found += [f"host {h}: {line.strip()}" for line in f if "repaired by a full rewrite" in line]
    return found


def quarantined(run, h):
    """Host h's quarantined inputs: name -> its note's first line (None without a note)."""
    folder = os.path.join(run.host_dirs[h], "quarantine")
    found = {}
    for entry in os.listdir(folder):
        if entry.endswith(".why.txt") or entry.startswith("."):
            continue
        note = os.path.join(folder, entry + ".why.txt")
        reason = None
        if os.path.exists(note):
            with open(note, errors="replace") as f:
                reason = f.readline().strip()
        found[os.path.basename(urllib.parse.unquote(entry))] = reason
    return found


def check(run, outcome):
    """The run's result: what every page and input became, and every violation."""
    options = run.layout.options() + (", disguised" if run.disguise else "")
    result = {"layout": run.layout.name, "describe": run.layout.describe(), "options": options,
              "outcome": outcome, "inputs": len(run.inputs.by_name), "kills": run.kills, "undo": run.undo, "live": run.live,
              "violations": run.violations, "lost": [], "committed": 0, "present": 0, "targets": {},
              "quarantined": {}}
    if outcome == "refused":
        result["refusals"] = run.refusals
        return result
    final = os.path.join(run.dir, "final")
    pages = {}  # target -> Counter of page image hashes
    for name in sorted(os.listdir(final)):
        path = os.path.join(final, name)
        shas = page_images(path)
        pages[name] = collections.Counter(shas or [])
        failure = readers(path, len(shas)) if shas is not None else "pypdf cannot read it at all"
        result["targets"][name] = {"pages": len(shas or []), "state": "clean" if failure is None else f"damaged ({failure})"}
        if failure:
            run.violations.append(f"{name}: {failure}")
        strangers = sum(n for sha, n in pages[name].items() if sha not in run.inputs.by_sha)
        if strangers:
            run.violations.append(f"{name}: {strangers} pages no input made")
    for repair in repairs(run):
        run.violations.append(f"a host rewrote a target another host shares: {repair}")
    committed = reported(run)
    undone = set(run.undo["removed"]) if run.undo and run.undo["exit"] == 0 else set()
    held = {}
    for h in HOSTS:
        held.update(quarantined(run, h))
    for name, (h, target, sha) in sorted(run.inputs.by_name.items()):
        times = pages.get(target, {}).get(sha, 0)
        elsewhere = [t for t in pages if t != target and pages[t].get(sha)]
        archived = os.path.exists(os.path.join(run.host_dirs[h], "archive", name))
        result["present"] += times > 0
        if elsewhere:
            run.violations.append(f"{name}: its page is in {', '.join(elsewhere)}, not only {target}")
        if name in undone:
            if times:
                run.violations.append(f"{name}: undone, and its page is still in {target}")
        elif name in committed and not times:
            result["lost"].append(f"{name} ({target}, host {h})")
        if times > 1:
            run.violations.append(f"{name}: its page is in {target} {times} times")
        if archived and name in held:
            run.violations.append(f"{name}: archived and quarantined")
        elif name in held:
            if held[name] is None:
                run.violations.append(f"{name}: quarantined without a note")
            if times:
                run.violations.append(f"{name}: quarantined, and its page is in {target}")
        elif not archived:
            run.violations.append(f"{name}: neither archived nor quarantined (host {h})")
        if times and name not in committed:
            run.violations.append(f"{name}: its page is in {target}, but no log line, event or archive says so")
    result["committed"] = len(committed)
    result["undone"] = sorted(undone)
    for reason in held.values():
        key = re.sub(r"\d+", "N", reason or "no note")[:120]
        result["quarantined"][key] = result["quarantined"].get(key, 0) + 1
    return result


# ---------------------------------------------------------------------------------------------
# The report.

def print_result(result):
    print(f"\n## {result['layout']}: {result['describe']}, {result['options']}")
    if result["outcome"] == "refused":
        for h, (code, line) in sorted(result["refusals"].items()):
            print(f"host {h} refused to start (exit {code}): {line}")
    else:
        print(f"{result['inputs']} inputs, {result['committed']} reported committed, {result['present']} pages present"
              + (f", {result['kills']} kills of host A" if result["kills"] else ""))
        for name, target in sorted(result["targets"].items()):
            print(f"{name}: {target['pages']} pages, {target['state']}")
        for reason, count in sorted(result["quarantined"].items()):
            print(f"  quarantined {count}: {reason}")
        if result["undo"]:
            print(f"undo from host B: exit {result['undo']['exit']}, took away {result['undo']['removed']}")
        if result["live"]:
            print(f"host B's revision shown live on host A: {'yes' if result['live']['told'] else 'NO'}, "
                  f"{result['live']['seconds']} s after B archived its input")
    for item in result["lost"][:20]:
        print("LOST: " + item)
    if len(result["lost"]) > 20:
        print(f"LOST: ... {len(result['lost']) - 20} more (all in --json)")
    for violation in result["violations"][:30]:
        print("VIOLATION: " + violation)
    if len(result["violations"]) > 30:
        print(f"VIOLATION: ... {len(result['violations']) - 30} more (all in --json)")


def table(results):
    lines = ["| layout | Gluster options | pages present | lost | Shared.pdf |", "|---|---|---|---|---|"]
    for r in results:
        if r["outcome"] == "refused":
            present, state = "none (refused at start)", "not made: both hosts refused"
        else:
            undone = f" ({len(r['undone'])} undone)" if r.get("undone") else ""
            present = f"{r['present']} of {r['inputs']}{undone}"
            shared = r["targets"].get(SHARED)
            state = shared["state"] if shared else "missing"
        lines.append(f"| {r['describe']} | {r['options']} | {present} | {len(r['lost'])} | {state} |")
    return "\n".join(lines)


def default_binary():
    return os.environ.get("PDFTRAPPER_BIN", os.path.join(ROOT, ".build", "debug", "pdftrapper"))


def run_layouts(layouts, arguments, seed, scratch, results):
    """Each layout on a volume of its own, its result printed as soon as it is known."""
    for layout in layouts:
        started = time.monotonic()
        run = Run(os.path.join(scratch, layout.name), layout, os.path.abspath(arguments.bin), arguments.files, seed,
                  arguments.disguise)
        result = check(run, run.run())
        result["seconds"] = round(time.monotonic() - started, 1)
        results.append(result)
        print_result(result)
        sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=300, help="inputs per host (default 300)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--bin", default=default_binary(), help="default: $PDFTRAPPER_BIN, else .build/debug/pdftrapper")
    parser.add_argument("--layout", action="append", type=Layout, help="repeatable; default: " + ", ".join(DEFAULT_LAYOUTS))
    parser.add_argument("--json", metavar="FILE", help="every layout's result, every loss and violation, as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder (always kept on a failure)")
    parser.add_argument("--disguise", action="store_true",
                        help="show each daemon its GlusterFS mount as another FUSE type, so that it cannot refuse one "
                             "that caches: what a daemon that does not check would lose (the harness checking itself)")
    arguments = parser.parse_args()
    layouts = arguments.layout or [Layout(name) for name in DEFAULT_LAYOUTS]
    seed = arguments.seed if arguments.seed is not None else random.randrange(1 << 30)
    if not os.access(arguments.bin, os.X_OK):
        print(f"multihost: cannot run: no binary at {arguments.bin} (--bin)")
        return 2
    reason = gluster.why_unavailable()
    if reason:
        print(f"multihost: cannot run: {reason}")
        return 2
    # SIGTERM (make's timeout, a CI job cancelled) unwinds like Ctrl+C, so every volume, client and
    # daemon is ended on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    scratch = tempfile.mkdtemp(prefix="pdftrapper-multihost-")
    print(f"multihost: seed {seed}, {arguments.files} files a host, layouts {', '.join(l.name for l in layouts)}, "
          f"in {scratch}", flush=True)
    results = []
    try:
        run_layouts(layouts, arguments, seed, scratch, results)
    except BaseException:
        print(f"multihost: stopped; scratch folder kept: {scratch}")
        raise
    print("\n" + table(results))
    if arguments.json:
        with open(arguments.json, "w") as f:
            json.dump({"seed": seed, "files": arguments.files, "results": results}, f, indent=1)
    committed = sum(r["committed"] for r in results)
    lost = sum(len(r["lost"]) for r in results)
    violations = sum(len(r["violations"]) for r in results)
    ok = not lost and not violations
    if ok and not arguments.keep:
        shutil.rmtree(scratch)
    else:
        print(f"scratch folder kept: {scratch}")
    print(f"multihost: {committed} pages committed, {lost} lost, {violations} violations")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
