#!/usr/bin/env python3
"""`pdftrapper scan` against bare scanimage, in one run, as ratios (absolute times on these machines
are noise). Usage: bench/scan.py PATH/TO/pdftrapper [--runs N] [--delays 1000,10000]

A 10-sheet ADF batch, colour A4 at 300 dpi (26 MB a page), from SANE's `test` scanner:
- pdftrapper scan: every page encoded to JPEG while the next scans, spooled with fsync, then all
  appended to a new PDF as one revision;
- scanimage --batch --format=pnm: the raw pages written to files, the least any frontend does;
- scanimage --batch --format=jpeg: the same JPEG encoding work as pdftrapper (the profile asks for
  quality 75, libjpeg's default, which scanimage uses), without the PDF.
pdftrapper also fsyncs each page and the PDF; scanimage leaves its files in the page cache.

The test scanner runs at two paces, set by its read-delay (a pause after each buffer): 1000 us
(fast, about 0.15 s a page here) and 10000 us (about 1.2 s a page, an office feeder's pace). Without a
delay pdftrapper cannot be run: the test backend cancels its reader thread asynchronously and, with a
fast frontend, the next sane_start can hang for ever (see Tests/EndToEndTests/ScanCommandTests.swift);
scanimage gets the same options. The runs alternate (pdftrapper, pnm, jpeg, pdftrapper, ...), and
the table gives medians and the peak RSS from /usr/bin/time. Goal: pdftrapper at most 1.10x scanimage.
"""
import os, shutil, statistics, subprocess, sys, tempfile, time

SHEETS = 10  # the test scanner's feeder holds ten sheets

def run_timed(command, env, cwd, timeout):
    """Wall time and peak RSS (KiB) of one run; exits on failure or a hang."""
    start = time.perf_counter()
    try:
        result = subprocess.run(["/usr/bin/time", "-f", "%M"] + command, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        sys.exit(f"hung for {timeout} s (the test backend's sane_start hang?): {' '.join(command)}")
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"failed ({result.returncode}): {' '.join(command)}\n{result.stderr}")
    return elapsed, int(result.stderr.strip().splitlines()[-1])

def main():
    binary = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 5
    delays = [int(d) for d in (sys.argv[sys.argv.index("--delays") + 1] if "--delays" in sys.argv else "1000,10000").split(",")]
    work = tempfile.mkdtemp(prefix="pdftrapper-bench-scan-")
    try:
        sane = os.path.join(work, "sane")
        os.makedirs(sane)
        with open(os.path.join(sane, "dll.conf"), "w") as f:
            f.write("test\n")
        with open(os.path.join(sane, "test.conf"), "w") as f:
            f.write("geometry_max 300\n")  # the default area stops short of A4
        # No trailing ":" in SANE_CONFIG_DIR: only the test backend is loaded.
        env = dict(os.environ, SANE_CONFIG_DIR=sane)
        env.pop("PDFTRAPPER_CONFIG", None)
        docs, out = os.path.join(work, "docs"), os.path.join(work, "out")

        print(f"# {SHEETS}-sheet ADF batch, colour A4 at 300 dpi, SANE test scanner; median of {runs} runs, alternating")
        print(f"{'delay us':>8} {'s/page':>7} {'pdftrapper s':>13} {'pnm s':>7} {'jpeg s':>7} {'ours/pnm':>9} {'ours/jpeg':>10} "
              f"{'RSS ours MB':>12} {'RSS jpeg MB':>12}")
        for delay in delays:
            with open(os.path.join(work, "config.toml"), "w") as f:
                f.write(f"""[daemon]
state_dir = "state"
[library]
root = "docs"
[inbox]
path = "inbox"

[profile.bench]
device = "test:0"
source = "adf"
mode = "color"
resolution = 300
page_size = "A4"
jpeg_quality = 75
target = "Bench.pdf"
[profile.bench.options]
# Without a delay the test backend can hang in sane_start (see the docstring).
read-delay = true
read-delay-duration = {delay}
test-picture = "Color pattern"
""")
            ours_cmd = [binary, "scan", "--profile", "bench", "--config", "config.toml"]
            area = ["-d", "test:0", "--source", "Automatic Document Feeder", "--mode", "Color", "--resolution", "300",
                    "-l", "0", "-t", "0", "-x", "210", "-y", "297", "--test-picture", "Color pattern",
                    "--read-delay=yes", f"--read-delay-duration={delay}"]
            pnm_cmd = ["scanimage"] + area + ["--batch=" + os.path.join(out, "p%d.pnm"), "--format=pnm"]
            jpeg_cmd = ["scanimage"] + area + ["--batch=" + os.path.join(out, "p%d.jpg"), "--format=jpeg"]
            timeout = 60 + SHEETS * delay * 1e-6 * 600 * 5  # about 500 buffers a page; generous

            def fresh():
                # Untimed: a new target and empty folders, flushed so no run pays for the last one's writes.
                for folder in (docs, out, os.path.join(work, "state"), os.path.join(work, "inbox")):
                    shutil.rmtree(folder, ignore_errors=True)
                    os.makedirs(folder)
                os.sync()

            times = {"ours": [], "pnm": [], "jpeg": []}
            peaks = {"ours": [], "pnm": [], "jpeg": []}
            for _ in range(runs):
                for name, command in (("ours", ours_cmd), ("pnm", pnm_cmd), ("jpeg", jpeg_cmd)):
                    fresh()
                    elapsed, peak = run_timed(command, env, work, timeout)
                    times[name].append(elapsed)
                    peaks[name].append(peak)
                    if name == "ours":
                        pages = subprocess.run(["pdfinfo", os.path.join(docs, "Bench.pdf")], capture_output=True, text=True).stdout
                        if f"Pages:           {SHEETS}\n" not in pages:
                            sys.exit(f"pdftrapper scan did not make a {SHEETS}-page PDF:\n{pages}")
                    elif len(os.listdir(out)) != SHEETS:
                        sys.exit(f"scanimage wrote {sorted(os.listdir(out))}, not {SHEETS} pages")
            ours, pnm, jpeg = (statistics.median(times[k]) for k in ("ours", "pnm", "jpeg"))
            print(f"{delay:>8} {pnm / SHEETS:>7.2f} {ours:>13.2f} {pnm:>7.2f} {jpeg:>7.2f} {ours / pnm:>9.3f} {ours / jpeg:>10.3f} "
                  f"{max(peaks['ours']) / 1024:>12.1f} {max(peaks['jpeg']) / 1024:>12.1f}", flush=True)
        print("goal: pdftrapper at most 1.10x scanimage (ours/pnm and ours/jpeg)")
    finally:
        shutil.rmtree(work, ignore_errors=True)

if __name__ == "__main__":
    main()
