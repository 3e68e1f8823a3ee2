#!/usr/bin/env python3
"""The inbox daemon against a shell loop around inotifywait + img2pdf + qpdf doing the same job, in
one run. Usage: bench/daemon.py PATH/TO/pdftrapper [--drops N] [--burst N]

1. Drop-to-durable latency: a 300 dpi JPEG (about 1.4 MB) renamed into the inbox, until the
   original is archived (which happens only once its page is fsynced in the target); p50 and p99.
   The daemon runs with settle = 0: a rename-in is complete when it appears.
2. A burst of N small files renamed in at once: files per second, and the daemon's peak RSS.
"""
import os, shutil, signal, statistics, subprocess, sys, tempfile, time

from PIL import Image, ImageFilter

def scan_like_jpeg(path, seed):
    noise = Image.effect_noise((413, 584), 50 + seed % 7).convert("RGB")
    page = noise.resize((2480, 3508), Image.BICUBIC).filter(ImageFilter.GaussianBlur(2))
    page.save(path, quality=85, dpi=(300, 300))

def wait_for(path, timeout=60):
    deadline = time.perf_counter() + timeout
    while not os.path.exists(path):
        if time.perf_counter() > deadline:
            sys.exit(f"timed out waiting for {path}")
        time.sleep(0.0005)
    return time.perf_counter()

class Setup:
    def __init__(self, work, name):
        self.root = os.path.join(work, name)
        self.inbox, self.archive = os.path.join(self.root, "inbox"), os.path.join(self.root, "archive")
        self.library = os.path.join(self.root, "library")
        for folder in (self.inbox, self.archive, self.library):
            os.makedirs(folder)

def start_ours(binary, setup):
    config = os.path.join(setup.root, "config.toml")
    with open(config, "w") as f:
        f.write('[daemon]\nstate_dir = "state"\n[library]\nroot = "library"\n[inbox]\npath = "inbox"\n'
                'settle = "0s"\n[[rule]]\nname = "all"\ntarget = "All.pdf"\narchive_as = "{name}"\n')
    process = subprocess.Popen([binary, "run", "--config", config], stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    return process

def start_peer(setup):
    process = subprocess.Popen([os.path.join(os.path.dirname(__file__), "peer-inbox.sh"), setup.inbox,
                                os.path.join(setup.library, "All.pdf"), setup.archive], start_new_session=True)
    time.sleep(1.0)
    return process

def stop(process):
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except (PermissionError, ProcessLookupError):
        process.terminate()
    process.wait()

def latencies(setup, jpegs, drops):
    staging = os.path.join(setup.root, "staging")
    os.makedirs(staging)
    results = []
    for i in range(drops):
        name = f"drop-{i:04}.jpg"
        shutil.copyfile(jpegs[i % len(jpegs)], os.path.join(staging, name))
        start = time.perf_counter()
        os.rename(os.path.join(staging, name), os.path.join(setup.inbox, name))
        results.append(wait_for(os.path.join(setup.archive, name)) - start)
        time.sleep(0.05)
    results.sort()
    return statistics.median(results), results[min(len(results) - 1, int(len(results) * 0.99))]

def burst(setup, count, pid=None):
    staging = os.path.join(setup.root, "burst-staging")
    os.makedirs(staging)
    for i in range(count):
        Image.new("L", (16 + i % 60, 16 + i // 60), i % 256).save(os.path.join(staging, f"b-{i:05}.png"))
    start = time.perf_counter()
    for i in range(count):
        os.rename(os.path.join(staging, f"b-{i:05}.png"), os.path.join(setup.inbox, f"b-{i:05}.png"))
    wait_for(os.path.join(setup.archive, f"b-{count - 1:05}.png"), timeout=600)
    while len([n for n in os.listdir(setup.archive) if n.startswith("b-")]) < count:
        time.sleep(0.01)
    elapsed = time.perf_counter() - start
    rss = None
    if pid:
        with open(f"/proc/{pid}/status") as f:
            rss = next(int(line.split()[1]) for line in f if line.startswith("VmHWM")) / 1024
    return count / elapsed, rss

def main():
    binary = os.path.abspath(sys.argv[1])
    drops = int(sys.argv[sys.argv.index("--drops") + 1]) if "--drops" in sys.argv else 40
    count = int(sys.argv[sys.argv.index("--burst") + 1]) if "--burst" in sys.argv else 1000
    work = tempfile.mkdtemp(prefix="pdftrapper-daemon-bench-")
    try:
        jpegs = []
        for i in range(4):
            jpegs.append(os.path.join(work, f"scan-{i}.jpg"))
            scan_like_jpeg(jpegs[-1], i)
        ours, peer = Setup(work, "ours"), Setup(work, "peer")

        daemon = start_ours(binary, ours)
        p50, p99 = latencies(ours, jpegs, drops)
        rate, rss = burst(ours, count, daemon.pid)
        daemon.send_signal(signal.SIGTERM)
        daemon.wait()

        loop = start_peer(peer)
        peer_p50, peer_p99 = latencies(peer, jpegs, drops)
        peer_rate, _ = burst(peer, min(count, 200))
        stop(loop)

        print(f"# drop-to-durable latency, {drops} drops of a {os.path.getsize(jpegs[0]) / 1e6:.1f} MB JPEG (settle 0)")
        print(f"pdftrapper p50 {p50 * 1e3:.1f} ms, p99 {p99 * 1e3:.1f} ms (goals 20 / 100 ms)")
        print(f"inotifywait+img2pdf+qpdf p50 {peer_p50 * 1e3:.1f} ms, p99 {peer_p99 * 1e3:.1f} ms")
        print(f"peer p50 / ours: {peer_p50 / p50:.1f}")
        print(f"\n# burst: {count} small PNGs renamed in at once (the peer gets {min(count, 200)})")
        print(f"pdftrapper {rate:.0f} files/s, peak RSS {rss:.0f} MB (goal <= 64 MB); peer {peer_rate:.1f} files/s")
        print(f"ours / peer throughput: {rate / peer_rate:.1f}")
    finally:
        shutil.rmtree(work, ignore_errors=True)

if __name__ == "__main__":
    main()
