#!/usr/bin/env python3
"""Events out, timed. Usage: bench/events.py PATH/TO/pdftrapper [--events N] [--drops N]

1. Commit to delivery: N small pictures renamed into the inbox one at a time, each one revision
   whose event goes to a webhook receiver on loopback (Tests/Fixtures/webhook-receiver). From the
   moment the target reaches the revision's end (its bytes written, before the fsync that makes
   them durable: a watcher thread polls the length every 0.2 ms) to the receiver having the event:
   p50 and p99, an upper bound. Beside it, in the same run,
   the floor: the same body POSTed to the same receiver over a new connection by a plain socket.
2. Capture with a slow subscriber: drop-to-durable latency of M pictures (rename into the inbox
   until archived) with no subscriber, with one whose receiver answers at once, and with one whose
   receiver takes 2 s an event. Goal: slow against fast unchanged within noise (ratio about 1),
   since delivery never holds a capture back; fast against none is what queueing the event costs.
"""
import json, os, shutil, signal, socket, statistics, subprocess, sys, tempfile, threading, time

from PIL import Image

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
RECEIVER = os.path.join(ROOT, "Tests", "Fixtures", "webhook-receiver", "receiver.py")


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def start_receiver(work, name, slow=2.0):
    log = os.path.join(work, name + ".jsonl")
    process = subprocess.Popen(["python3", RECEIVER, "--log", log, "--slow", str(slow)], stdout=subprocess.PIPE, text=True)
    port = int(process.stdout.readline())
    return process, port, log


def start_daemon(binary, work, name, notify=""):
    root = os.path.join(work, name)
    os.makedirs(os.path.join(root, "inbox"))
    config = os.path.join(root, "config.toml")
    with open(config, "w") as f:
        f.write('[daemon]\nstate_dir = "state"\n[library]\nroot = "library"\n[inbox]\npath = "inbox"\nsettle = "0s"\n'
                '[[rule]]\nname = "all"\ntarget = "All.pdf"\narchive_as = "{name}"\n' + notify)
    process = subprocess.Popen([binary, "run", "--config", config], stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    return process, root


def length(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def drop_and_wait(root, index, picture):
    """Renames a copy of `picture` into the inbox as p{index}.png; returns (when it was archived, seconds it took)."""
    staging = os.path.join(root, f"staging-{index}.png")
    shutil.copyfile(picture, staging)
    # A distinct file each time (the duplicate check would skip a copy).
    with open(staging, "ab") as f:
        f.write(b"\0" * (index + 1))
    archived = os.path.join(root, "archive", f"p{index}.png")
    start = time.perf_counter()
    os.rename(staging, os.path.join(root, "inbox", f"p{index}.png"))
    deadline = start + 30
    while not os.path.exists(archived):
        if time.perf_counter() > deadline:
            sys.exit(f"timed out waiting for page {index}")
        time.sleep(0.0005)
    done = time.perf_counter()
    return done, done - start


def floor_posts(port, body, count):
    """The same POST over a new connection each time, written in one piece, read to its end."""
    request = (f"POST /ok HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
               f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body
    times = []
    for _ in range(count):
        start = time.perf_counter()
        with socket.create_connection(("127.0.0.1", port)) as connection:
            connection.sendall(request)
            while connection.recv(65536):
                pass
        times.append(time.perf_counter() - start)
    return times


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "release", "pdftrapper"))
    events = int(sys.argv[sys.argv.index("--events") + 1]) if "--events" in sys.argv else 1000
    drops = int(sys.argv[sys.argv.index("--drops") + 1]) if "--drops" in sys.argv else 40
    work = tempfile.mkdtemp(prefix="bench-events-")
    picture = os.path.join(work, "page.png")
    Image.new("L", (64, 80), 200).save(picture)
    processes = []
    try:
        # 1. Commit to delivery.
        receiver, port, log = start_receiver(work, "fast")
        processes.append(receiver)
        daemon, root = start_daemon(binary, work, "delivery",
                                    f'[[notify]]\nname = "hook"\nevents = ["revision"]\nurl = "http://127.0.0.1:{port}/ok"\n'
                                    'secret = "bench"\n')
        processes.append(daemon)
        # When the target first reached each length, on the wall clock the receiver's records use.
        lengths, watching = [], [True]
        target = os.path.join(root, "library", "All.pdf")

        def watch():
            last = 0
            while watching[0]:
                size = length(target)
                if size != last:
                    lengths.append((size, time.time()))
                    last = size
                time.sleep(0.0002)

        watcher = threading.Thread(target=watch)
        watcher.start()
        for index in range(events):
            drop_and_wait(root, index, picture)
        deadline = time.time() + 60
        while True:
            with open(log) as f:
                records = [json.loads(line) for line in f]
            if len(records) >= events or time.time() > deadline:
                break
            time.sleep(0.1)
        watching[0] = False
        watcher.join()

        def reached(end):
            return next((moment for size, moment in lengths if size >= end), None)

        latencies = [record["time"] - reached(json.loads(record["body"])["end"]) for record in records
                     if reached(json.loads(record["body"])["end"]) is not None]
        body = records[0]["body"].encode() if records else b"{}"
        floor = floor_posts(port, body, 200)
        p50, p99, f50 = percentile(latencies, 0.5), percentile(latencies, 0.99), statistics.median(floor)
        print(f"commit to delivery, {len(latencies)} of {events} events: p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms; "
              f"a bare POST to the same receiver: p50 {f50 * 1000:.2f} ms (ratio {p50 / f50:.1f}x)")
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=30)

        # 2. Capture latency without a subscriber, with a fast one, and with a slow one.
        results = {}
        slow, slow_port, slow_log = start_receiver(work, "slow", slow=2.0)
        processes.append(slow)
        for name, notify in [("none", ""),
                             ("fast", f'[[notify]]\nname = "fast"\nevents = ["revision"]\nurl = "http://127.0.0.1:{port}/ok"\n'),
                             ("slow", f'[[notify]]\nname = "slow"\nevents = ["revision"]\nurl = "http://127.0.0.1:{slow_port}/slow"\n'
                                      'timeout = "5s"\n')]:
            daemon, root = start_daemon(binary, work, "capture-" + name, notify)
            processes.append(daemon)
            results[name] = [drop_and_wait(root, index, picture)[1] for index in range(drops)]
            daemon.send_signal(signal.SIGTERM)
            daemon.wait(timeout=30)
        none, fast, with_slow = (statistics.median(results[name]) for name in ("none", "fast", "slow"))
        with open(slow_log) as f:
            delivered = sum(1 for _ in f)
        print(f"capture, drop to durable, {drops} drops, p50: {with_slow * 1000:.1f} ms with a subscriber that takes 2 s "
              f"an event ({delivered} delivered meanwhile), {fast * 1000:.1f} ms with one that answers at once: "
              f"ratio {with_slow / fast:.2f} (goal: about 1); {none * 1000:.1f} ms with none "
              f"(queueing the event, a file written and fsynced: {fast / none:.2f}x)")
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
