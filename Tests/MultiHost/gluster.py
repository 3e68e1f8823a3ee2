"""A real GlusterFS for the multi-host tests: a fresh volume on a loopback address, and "hosts",
each a process in a mount namespace of its own with its own FUSE client of the volume.

    with Volume(folder, caches="off") as volume:
        host = Host(volume, "A", mountpoint, options=volume.mount_options)
        daemon = host.start([binary, "run", "--config", config], log=open(...))
        ...
        host.stop()
    # every client killed, the volume stopped and deleted, its brick removed

Why namespaces: a mount made inside `unshare --mount --propagation private` is seen only there,
so two hosts can mount the volume at one absolute path (the "one path" layout: the same fstab
line on both machines) without seeing each other's mount, and each has a FUSE client, with its
own caches, as a second machine would.

Why cleanup needs care: mount.glusterfs starts the FUSE client (`glusterfs --volfile-id=/VOL ...`)
as a daemon, so it outlives the process that mounted; it is the last process in its namespace and
keeps the namespace (and its mount) alive. Each host's namespace is written to a file by the shell
that mounts, before it hands over to the command, so its client can be found and ended even when
the command dies at once (a daemon that refuses to start). Needs root, /dev/fuse and Debian's
glusterfs-server and glusterfs-client.
"""
import ctypes
import os
import re
import shlex
import shutil
import signal
import subprocess
import time

BRICK_HOST = "127.0.0.2"  # gluster refuses 127.0.0.1 as a brick address; the rest of 127/8 works
PREFIX = "pdftrapper-mh"  # volume names: PREFIX-PID-N, so a later run can sweep what a killed one left
# What makes a client coherent: no FUSE attribute or entry cache in the kernel (mount options) and
# no metadata cache (md-cache, "stat-prefetch") in the client's translator graph (a volume option).
COHERENT_MOUNT_OPTIONS = "attribute-timeout=0,entry-timeout=0"
COHERENT_VOLUME_OPTIONS = {"performance.stat-prefetch": "off"}

_volumes = 0


class Unavailable(Exception):
    """GlusterFS cannot be used here; the message says why, in one line."""


def gluster(*arguments, check=True, timeout=120):
    """One `gluster` CLI call in script mode (no questions asked)."""
    done = subprocess.run(["gluster", "--mode=script", *arguments], capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise RuntimeError(f"gluster {' '.join(arguments)}: exit {done.returncode}: "
                           f"{(done.stderr or done.stdout).strip()}")
    return done


def why_unavailable():
    """None when a volume can be made and mounted here; else the reason, in one line."""
    if os.geteuid() != 0:
        return "not root (mount and unshare need it)"
    if not os.path.exists("/dev/fuse"):
        return "/dev/fuse is missing"
    for tool in ("gluster", "glusterd", "mount.glusterfs", "unshare", "nsenter"):
        if not shutil.which(tool):
            return f"{tool} is not installed (apt-get install glusterfs-server glusterfs-client)"
    try:
        ensure_glusterd()
    except Unavailable as error:
        return str(error)
    return None


def ensure_glusterd(timeout=30):
    """Starts glusterd when it is not answering, and waits until `gluster volume list` does."""
    if gluster("volume", "list", check=False, timeout=30).returncode == 0:
        return
    started = subprocess.run(["glusterd"], capture_output=True, text=True)  # forks into the background
    if started.returncode != 0:
        raise Unavailable(f"glusterd would not start: {(started.stderr or started.stdout).strip()[:200]}")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if gluster("volume", "list", check=False, timeout=30).returncode == 0:
            return
        time.sleep(0.5)
    raise Unavailable(f"glusterd started but `gluster volume list` did not answer within {timeout} s")


# ---------------------------------------------------------------------------------------------
# Processes: the FUSE clients of a volume, and the mount namespace each lives in.

def _cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().split(b"\0")
    except OSError:
        return []


def _namespace(pid):
    try:
        return os.readlink(f"/proc/{pid}/ns/mnt")
    except OSError:
        return None


def clients(volume_name, namespace=None):
    """PIDs of the FUSE clients of a volume (their command line says `--volfile-id=/NAME`; the
    brick's glusterfsd says `--volfile-id NAME.HOST.PATH` and is never matched), optionally only
    those in one mount namespace."""
    token = f"--volfile-id=/{volume_name}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and token in _cmdline(entry):
            if namespace is None or _namespace(entry) == namespace:
                found.append(int(entry))
    return found


def end_processes(pids, grace=10):
    """SIGTERM (a glusterfs client unmounts and exits on it), then SIGKILL what is left."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and any(os.path.exists(f"/proc/{pid}") for pid in pids):
            time.sleep(0.1)
        pids = [pid for pid in pids if os.path.exists(f"/proc/{pid}")]
        if not pids:
            return
    raise RuntimeError(f"processes would not end: {pids}")


def _die_with_parent():
    """In the child before exec: SIGKILL when the test process dies, even by SIGKILL, so no daemon
    outlives a harness that was killed (the bit survives exec)."""
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


# ---------------------------------------------------------------------------------------------
# The volume.

class Volume:
    """A fresh single-brick volume, its brick under `folder`; `caches` is "installed" (the volume and
    mounts as Debian sets them up) or "off" (stat-prefetch off, FUSE timeouts 0: coherent)."""

    def __init__(self, folder, caches="installed"):
        global _volumes
        if caches not in ("installed", "off"):
            raise ValueError(caches)
        _volumes += 1
        self.name = f"{PREFIX}-{os.getpid()}-{_volumes}"
        self.caches = caches
        self.brick = os.path.join(os.path.abspath(folder), f"brick-{self.name}")
        self.mount_options = COHERENT_MOUNT_OPTIONS if caches == "off" else ""
        self.made = False

    def __enter__(self):
        ensure_glusterd()
        sweep_stale()
        os.makedirs(self.brick)
        # force: the brick is on the root file system, which gluster otherwise refuses.
        gluster("volume", "create", self.name, f"{BRICK_HOST}:{self.brick}", "force")
        self.made = True
        for key, value in COHERENT_VOLUME_OPTIONS.items():
            if self.caches == "off":
                gluster("volume", "set", self.name, key, value)
            # As asked, either way: "as installed" must really be Debian's defaults.
            now = gluster("volume", "get", self.name, key).stdout.split()[-1]
            if (now == value) != (self.caches == "off"):
                raise RuntimeError(f"volume {self.name}: {key} is {now}, with caches {self.caches}")
        gluster("volume", "start", self.name)
        return self

    def __exit__(self, *exc):
        self.remove()
        return False

    def remove(self):
        """Every client of the volume ended, then the volume stopped and deleted and its brick gone.
        Safe to call twice."""
        end_processes(clients(self.name))
        if self.made:
            remove_volume(self.name)
            self.made = False
        shutil.rmtree(self.brick, ignore_errors=True)
        self._take_logs()

    def _take_logs(self):
        """Gluster logs each client and brick under /var/log/glusterfs, named after its path: those of
        this volume's folder are moved into it (gluster-logs/), kept with a failed run's scratch folder
        and gone with a passed one's, rather than piling up."""
        folder = os.path.dirname(self.brick)
        stem = folder.strip("/").replace("/", "-")
        kept = os.path.join(folder, "gluster-logs")
        for logs in ("/var/log/glusterfs", "/var/log/glusterfs/bricks"):
            for name in os.listdir(logs) if os.path.isdir(logs) else []:
                if name.startswith(stem + "-") and name.endswith(".log"):
                    os.makedirs(kept, exist_ok=True)
                    shutil.move(os.path.join(logs, name), os.path.join(kept, name))

    def path(self, relative):
        """A file of the volume read on the server, past every client and its caches."""
        return os.path.join(self.brick, relative)


def lock_report(name):
    """Who holds and who waits for each lock on the volume's files, from the brick's state dump
    (`gluster volume statedump`): lines like "/Shared.pdf: held by pid 6301, wanted by pid 6301".
    The PIDs are those of the processes that asked, on whichever client."""
    dumps = "/var/run/gluster"  # server.statedump-path as installed
    before = set(os.listdir(dumps)) if os.path.isdir(dumps) else set()
    gluster("volume", "statedump", name, check=False)
    new = []
    deadline = time.monotonic() + 5
    while not new and time.monotonic() < deadline:
        time.sleep(0.2)
        new = [f for f in set(os.listdir(dumps)) - before if ".dump." in f]
    report = []
    for dump in new:
        path = None
        locks = {}
        with open(os.path.join(dumps, dump), errors="replace") as f:
            for line in f:
                if line.startswith("path="):
                    path = line[5:].strip()
                match = re.match(r"posixlk\.posixlk\[\d+\]\((ACTIVE|BLOCKED)\)=.*?pid = (\d+)", line)
                if match and path:
                    locks.setdefault(path, []).append(("held by" if match.group(1) == "ACTIVE" else "wanted by")
                                                      + f" pid {match.group(2)}")
        os.remove(os.path.join(dumps, dump))
        report += [f"{p}: {', '.join(who)}" for p, who in sorted(locks.items())]
    return report


def remove_volume(name):
    gluster("volume", "stop", name, check=False)
    gluster("volume", "delete", name)


def sweep_stale():
    """Volumes a run killed with SIGKILL left behind (their creator's PID gone): their clients
    ended, the volume removed with its brick. Other volumes (anyone's `probe`) are not touched."""
    listed = gluster("volume", "list", check=False).stdout.split()
    for name in listed:
        match = re.fullmatch(re.escape(PREFIX) + r"-(\d+)-\d+", name)
        if not match or os.path.exists(f"/proc/{match.group(1)}"):
            continue
        info = gluster("volume", "info", name, check=False).stdout
        bricks = re.findall(r"^Brick\d+: [^:]+:(\S+)$", info, re.M)
        end_processes(clients(name))
        remove_volume(name)
        for brick in bricks:
            shutil.rmtree(brick, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Hosts.

class Host:
    """One "machine": every command it runs gets a mount namespace of its own in which the volume
    is mounted at `mountpoint` (which must exist here) by a FUSE client of its own."""

    def __init__(self, volume, name, mountpoint, scratch, disguise=False):
        self.volume, self.name, self.mountpoint = volume, name, os.path.abspath(mountpoint)
        self.scratch = scratch  # a local folder for the namespace files
        self.disguise = disguise
        self.process = None     # the running command (the daemon), if any
        self.namespace = None   # its mount namespace ("mnt:[N]"), once mounted
        self.starts = 0

    def _wrapped(self, argv):
        """`argv` run in a new mount namespace once the volume is mounted there; the shell writes
        the namespace's name first, then becomes the command (exec: same PID)."""
        options = f"-o {self.volume.mount_options} " if self.volume.mount_options else ""
        self.starts += 1
        ns_file = os.path.join(self.scratch, f"{self.name}.ns.{self.starts}")
        script = (f"mount -t glusterfs {options}{BRICK_HOST}:/{self.volume.name} \"$0\" && "
                  f"readlink /proc/self/ns/mnt > {shlex.quote(ns_file)} && {self._disguise()}exec \"$@\"")
        return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, self.mountpoint, *argv], ns_file

    def _disguise(self):
        """With `disguise`: shell commands that show the command (the shell's PID, which exec keeps)
        a /proc/self/mountinfo where GlusterFS mounts have another FUSE type, so a daemon cannot tell
        it is on GlusterFS and refuse it. Only to show what a daemon that does not check would lose,
        and that the checks see it; nothing else in the namespace is fooled."""
        if not self.disguise:
            return ""
        fake = shlex.quote(os.path.join(self.scratch, f"{self.name}.mountinfo.{self.starts}"))
        return (f"sed 's/ - fuse.glusterfs / - fuse.disguised /' /proc/$$/mountinfo > {fake} && "
                f"mount --bind {fake} /proc/$$/mountinfo && ")

    def start(self, argv, log):
        """Starts `argv` (the daemon) on this host, its output to the file object `log`; returns
        the Popen. The previous one must have ended (stop() or kill())."""
        assert self.process is None or self.process.poll() is not None, "the host's command still runs"
        self._forget_namespace()
        wrapped, ns_file = self._wrapped(argv)
        self.process = subprocess.Popen(wrapped, stdout=log, stderr=log, stdin=subprocess.DEVNULL,
                                        preexec_fn=_die_with_parent)
        self.namespace = self._wait_namespace(ns_file, self.process)
        if self.namespace:
            self._check_client()
        return self.process

    def _check_client(self):
        """The client in the namespace runs with the options asked for: a layout said to have its
        caches off must not be measured on a client that caches."""
        found = clients(self.volume.name, self.namespace)
        if len(found) != 1:
            raise RuntimeError(f"host {self.name}: {len(found)} glusterfs clients in its namespace, not 1")
        arguments = [a.decode() for a in _cmdline(found[0])]
        for option in filter(None, self.volume.mount_options.split(",")):
            if f"--{option}" not in arguments:
                raise RuntimeError(f"host {self.name}: the client runs without --{option}: {' '.join(arguments)}")

    def _wait_namespace(self, ns_file, process, timeout=60):
        """The namespace the shell wrote once the mount was up; None when the command ended first
        without it (the mount failed)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ended = process.poll() is not None  # asked first: a command that wrote the file and exited still counts
            namespace = _read(ns_file)
            if namespace or ended:
                return namespace
            time.sleep(0.02)
        raise RuntimeError(f"host {self.name}: the mount did not come up within {timeout} s")

    def run(self, argv, timeout=300):
        """A one-shot command on this host (`pdftrapper undo`, say): in the running daemon's namespace,
        through its mount and client, as a user on that machine would; without a daemon, in a
        namespace and with a client of its own, ended afterwards."""
        if self.process is not None and self.process.poll() is None:
            self.starts += 1
            if self.disguise:
                argv = ["sh", "-c", self._disguise() + 'exec "$@"', "sh", *argv]
            return subprocess.run(["nsenter", f"--target={self.process.pid}", "--mount", *argv],
                                  capture_output=True, text=True, timeout=timeout)
        wrapped, ns_file = self._wrapped(argv)
        try:
            return subprocess.run(wrapped, capture_output=True, text=True, timeout=timeout, preexec_fn=_die_with_parent)
        finally:
            self._end_clients_of(ns_file)

    def kill(self):
        """SIGKILL to the command, as a crash; then its FUSE client ended (a new start mounts anew)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
        self._forget_namespace()

    def stop(self, timeout=120):
        """SIGTERM to the command and its exit code (SIGKILL, and None, when it does not stop in
        time); then its FUSE client ended."""
        code = None
        if self.process is not None:
            if self.process.poll() is None:
                self.process.send_signal(signal.SIGTERM)
            try:
                code = self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.send_signal(signal.SIGKILL)
                self.process.wait()
        self._forget_namespace()
        return code

    def _forget_namespace(self):
        """Ends the FUSE client left in the last namespace (it is the last process there, so the
        namespace and its mount go with it)."""
        if self.namespace:
            end_processes(clients(self.volume.name, self.namespace))
        self.namespace = None

    def _end_clients_of(self, ns_file):
        namespace = _read(ns_file)
        if namespace:
            end_processes(clients(self.volume.name, namespace))


def _read(path):
    try:
        with open(path) as f:
            return f.read().strip() or None
    except FileNotFoundError:
        return None


def mounted_here(volume_name):
    """Whether this namespace sees a mount of the volume (it never should: the hosts' are private)."""
    with open("/proc/self/mountinfo") as f:
        return any(f" {BRICK_HOST}:/{volume_name} " in line for line in f)
