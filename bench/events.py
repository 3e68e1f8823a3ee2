#!/usr/bin/env python3
"""Events out, timed. Usage: bench/events.py PATH/TO/pdftrapper [--events N] [--drops N]

1. Commit to delivery: N small pictures renamed into the inbox one at a time, each one revision
   whose event goes to a webhook receiver on loopback (Tests/Fixtures/webhook-receiver). From the
   moment the target's new length is seen on disk (the revision is durable; polled every 0.5 ms)
   to the receiver having the event: p50 and p99. Beside it, in the same run, the floor: the same
   body POSTed by Python's http.client on a kept-open connection to the same receiver.
2. Capture with a slow subscriber: drop-to-durable latency of M pictures (rename into the inbox
   until the target grows) with no subscriber, then with one whose receiver takes 2 s per event.
   Goal: unchanged within noise (ratio about 1), since delivery never holds a capture back.
"""
import http.client, json, os, shutil, signal, statistics, subprocess, sys, tempfile, time

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
    """Renames a copy of `picture` into the inbox; returns (seconds until the target grew, its new length)."""
    target = os.path.join(root, "library", "All.pdf")
    before = length(target)
    staging = os.path.join(root, f"staging-{index}.png")
    shutil.copyfile(picture, staging)
    # A distinct file each time (the duplicate check would skip a copy).
    with open(staging, "ab") as f:
        f.write(b"\0" * (index + 1))
    start = time.perf_counter()
    os.rename(staging, os.path.join(root, "inbox", f"p{index}.png"))
    deadline = start + 30
    while length(target) <= before:
        if time.perf_counter() > deadline:
            sys.exit(f"timed out waiting for page {index}")
        time.sleep(0.0005)
    return time.perf_counter(), time.perf_counter() - start, length(target)


def floor_posts(port, body, count):
    connection = http.client.HTTPConnection("127.0.0.1", port)
    times = []
    for _ in range(count):
        start = time.perf_counter()
        connection.request("POST", "/ok", body=body, headers={"Content-Type": "application/json"})
        connection.getresponse().read()
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
        # The wall clock, which the receiver's records use, for each revision's end.
        committed = {}
        offset = time.time() - time.perf_counter()
        for index in range(events):
            seen, _, end = drop_and_wait(root, index, picture)
            committed[end] = seen + offset
        deadline = time.time() + 60
        while True:
            with open(log) as f:
                records = [json.loads(line) for line in f]
            if len(records) >= events or time.time() > deadline:
                break
            time.sleep(0.1)
        latencies = [record["time"] - committed[json.loads(record["body"])["end"]] for record in records
                     if json.loads(record["body"])["end"] in committed]
        body = records[0]["body"].encode() if records else b"{}"
        floor = floor_posts(port, body, 200)
        p50, p99, f50 = percentile(latencies, 0.5), percentile(latencies, 0.99), statistics.median(floor)
        print(f"commit to delivery, {len(latencies)} of {events} events: p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms; "
              f"a bare POST to the same receiver: p50 {f50 * 1000:.2f} ms (ratio {p50 / f50:.1f}x)")
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=30)

        # 2. Capture latency without and with a slow subscriber.
        results = {}
        slow, slow_port, slow_log = start_receiver(work, "slow", slow=2.0)
        processes.append(slow)
        for name, notify in [("none", ""),
                             ("slow", f'[[notify]]\nname = "slow"\nevents = ["revision"]\nurl = "http://127.0.0.1:{slow_port}/slow"\n'
                                      'timeout = "5s"\n')]:
            daemon, root = start_daemon(binary, work, "capture-" + name, notify)
            processes.append(daemon)
            results[name] = [drop_and_wait(root, index, picture)[1] for index in range(drops)]
            daemon.send_signal(signal.SIGTERM)
            daemon.wait(timeout=30)
        none, with_slow = statistics.median(results["none"]), statistics.median(results["slow"])
        with open(slow_log) as f:
            delivered = sum(1 for _ in f)
        print(f"capture, drop to durable, {drops} drops: p50 {none * 1000:.1f} ms with no subscriber, "
              f"{with_slow * 1000:.1f} ms with one that takes 2 s an event ({delivered} delivered meanwhile); "
              f"ratio {with_slow / none:.2f} (goal: about 1)")
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
