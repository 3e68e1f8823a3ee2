#!/usr/bin/env python3
"""A library on GlusterFS, timed. Usage: bench/multihost.py PATH/TO/pdftrapper [--runs N] [--drops N]

1. Append through the mount: a one-shot `pdftrapper ingest --to` of one small JPEG onto a target
   on a GlusterFS volume, through its FUSE client with the caches off (attribute-timeout=0,
   entry-timeout=0, performance.stat-prefetch off: what the daemon requires), against the same onto
   a target in a local folder; runs alternate, both started the same way (nsenter into the
   namespace that holds the mount). p50 of N runs each, and the ratio.
2. Cross-host delay: daemons on two hosts (mount namespaces with a client each) share the volume;
   a JPEG renamed into host A's inbox, until its page is in Shared.pdf (its bytes there and a whole
   revision after them) read through host B's mount, against the same read through host A's own
   mount. p50 and p99 of N drops, and the ratio.

Needs root, /dev/fuse and glusterfs-server/-client (Tests/MultiHost/gluster.py makes the volume on
127.0.0.2 and removes it); without them it says why and exits 0.
"""
import os, random, shutil, statistics, subprocess, sys, tempfile, time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "Tests", "MultiHost"))
import gluster  # noqa: E402
from multihost import make_jpeg  # noqa: E402  (the tests' inputs: small, each its own bytes)

# Runs in host B's (or A's) namespace: prints "ready", then the monotonic time at which PATH holds
# NEEDLE's bytes with a %%EOF after them (the revision that added them whole). A fresh open and a
# whole read each time, as another program on that host would read the file: not only when the
# size changes, since a reader without the lock may see the new length before all of its bytes.
# CLOCK_MONOTONIC is shared by namespaces.
POLLER = r"""
import sys, time
path, needle = sys.argv[1], open(sys.argv[2], "rb").read()
print("ready", flush=True)
while True:
    try:
        with open(path, "rb") as f:
            data = f.read()
        at = data.find(needle)
        if at >= 0 and data.rfind(b"%%EOF") > at:
            print(time.monotonic(), flush=True)
            break
    except FileNotFoundError:
        pass
    time.sleep(0.002)
"""


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def write_jpeg(path, rng):
    with open(path, "wb") as f:
        f.write(make_jpeg(rng))


def appends(binary, work, volume, runs, rng):
    """p50 of `ingest --to` onto the mount and onto a local folder, alternating, in one namespace."""
    mount, local = os.path.join(work, "append-mount"), os.path.join(work, "append-local")
    os.makedirs(mount)
    os.makedirs(local)
    holder = gluster.Host(volume, "bench", mount, work)
    holder.start(["sleep", "infinity"], subprocess.DEVNULL)
    try:
        times = {"mount": [], "local": []}
        for i in range(runs + 1):  # the first of each makes the target and its state: not timed
            order = [("mount", mount), ("local", local)]
            if i % 2:
                order.reverse()
            for kind, folder in order:
                jpeg = os.path.join(work, f"append-{kind}-{i}.jpg")
                write_jpeg(jpeg, rng)
                start = time.perf_counter()
                done = holder.run([binary, "ingest", "--to", os.path.join(folder, "Target.pdf"), jpeg])
                elapsed = time.perf_counter() - start
                if done.returncode != 0:
                    sys.exit(f"ingest --to onto the {kind} target failed ({done.returncode}): {done.stderr.strip()}")
                if i:
                    times[kind].append(elapsed)
        return statistics.median(times["mount"]), statistics.median(times["local"])
    finally:
        holder.stop()


CONFIG = """[daemon]
state_dir = "{host}/state"
[library]
root = "{library}"
[inbox]
path = "{host}/inbox"
settle = "0s"
[[rule]]
name = "all"
target = "Shared.pdf"
archive_as = "{{name}}"
compress = "keep"
"""


def start_host(binary, work, volume, name):
    folder = os.path.join(work, f"host{name}")
    library = os.path.join(folder, "lib")
    for sub in ("inbox", "state", "lib"):
        os.makedirs(os.path.join(folder, sub))
    config = os.path.join(folder, "config.toml")
    with open(config, "w") as f:
        f.write(CONFIG.format(host=folder, library=library))
    host = gluster.Host(volume, name, library, work)
    log = open(os.path.join(folder, "daemon.log"), "ab")
    host.start([binary, "run", "--config", config], log)
    deadline = time.monotonic() + 60
    while "watching" not in open(log.name, errors="replace").read():
        if host.process.poll() is not None or time.monotonic() > deadline:
            sys.exit(f"host {name}: the daemon did not start: {open(log.name, errors='replace').read()[-500:]}")
        time.sleep(0.05)
    return host, folder, library


def poll_through(host, path, needle):
    """A poller in the host's namespace; returns once it is reading."""
    poller = subprocess.Popen(["nsenter", f"--target={host.process.pid}", "--mount", sys.executable, "-c", POLLER,
                               path, needle], stdout=subprocess.PIPE, text=True)
    if poller.stdout.readline().strip() != "ready":
        sys.exit("a poller did not start")
    return poller


def delays(binary, work, volume, drops, rng):
    """Drop into host A's inbox -> visible through B's mount, and through A's own, per drop."""
    a, a_dir, a_lib = start_host(binary, work, volume, "A")
    b = None
    try:
        b, _, b_lib = start_host(binary, work, volume, "B")
        seen = {"A": [], "B": []}
        for i in range(drops + 1):  # the first makes Shared.pdf: not timed
            jpeg = os.path.join(work, f"drop-{i}.jpg")
            write_jpeg(jpeg, rng)
            pollers = {"A": poll_through(a, os.path.join(a_lib, "Shared.pdf"), jpeg),
                       "B": poll_through(b, os.path.join(b_lib, "Shared.pdf"), jpeg)}
            staged = os.path.join(a_dir, f"drop-{i}.jpg")
            shutil.copyfile(jpeg, staged)
            start = time.monotonic()
            os.rename(staged, os.path.join(a_dir, "inbox", f"drop-{i}.jpg"))
            for name, poller in pollers.items():
                try:
                    line, _ = poller.communicate(timeout=60)
                except subprocess.TimeoutExpired:
                    poller.kill()
                    log = open(os.path.join(a_dir, "daemon.log"), errors="replace").read()[-1000:]
                    sys.exit(f"drop {i}: not visible through host {name}'s mount after 60 s "
                             f"(the brick's Shared.pdf: {os.path.getsize(volume.path('Shared.pdf'))} bytes); host A's log:\n{log}")
                if i:
                    seen[name].append(float(line) - start)
            time.sleep(0.05)
        return seen
    finally:
        a.stop()
        if b:
            b.stop()


def main():
    binary = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 30
    drops = int(sys.argv[sys.argv.index("--drops") + 1]) if "--drops" in sys.argv else 20
    reason = gluster.why_unavailable()
    if reason:
        print(f"# multihost: skipped: {reason}")
        return
    rng = random.Random(43)
    work = tempfile.mkdtemp(prefix="pdftrapper-multihost-bench-")
    try:
        with gluster.Volume(work, caches="off") as volume:
            mount, local = appends(binary, work, volume, runs, rng)
            seen = delays(binary, work, volume, drops, rng)
        print(f"# one JPEG page, `ingest --to`, p50 of {runs} runs each (GlusterFS through FUSE, caches off)")
        print(f"through the mount {mount * 1e3:.1f} ms, local folder {local * 1e3:.1f} ms")
        print(f"mount / local: {mount / local:.1f}")
        print(f"\n# cross-host delay: dropped into host A's inbox until its page is in Shared.pdf, {drops} drops")
        for name, label in (("A", "read on host A (the writer)"), ("B", "read on host B")):
            print(f"{label}: p50 {statistics.median(seen[name]) * 1e3:.0f} ms, p99 {percentile(seen[name], 0.99) * 1e3:.0f} ms")
        print(f"host B / host A (p50): {statistics.median(seen['B']) / statistics.median(seen['A']):.2f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
