#!/usr/bin/env python3
"""The revision engine against its peers, in one run, as ratios (absolute times on these machines
are noise). Usage: bench/engine.py PATH/TO/pdftrapper [--runs N] [--large]

1. Append one 300 dpi A4 JPEG page to targets of 10, 1,000 and 5,000 pages (made by img2pdf from
   small JPEGs; with --large, JPEGs of about 480 KB, so the 5,000-page target weighs 2.4 GB): pdftrapper vs `qpdf --pages` and `pdfunite`, which rewrite the whole file.
2. 200 such JPEG pages into a new PDF: pdftrapper vs img2pdf vs a plain copy of the same bytes.
3. Start-up: `pdftrapper help`, and one small JPEG ingested onto a 10-page target, vs `qpdf --version`.
4. One small JPEG appended to a 2,000-page target: pdftrapper vs `qpdf --pages`.
5. A dropped 2,000-page PDF (about 490 MB of JPEG pages) imported into a 10-page target: pdftrapper
   vs `qpdf --pages`, which rewrites both. Skipped with --no-import (it is the slow one).
Peak RSS of each command comes from /usr/bin/time.
"""
import os, shutil, statistics, subprocess, sys, tempfile, time

import img2pdf
from PIL import Image, ImageFilter

def timed(command, prepare=None, runs=5):
    """Median wall time and max peak RSS (KiB) of `command` over `runs` runs; `prepare` runs untimed before each."""
    times, peaks = [], []
    for _ in range(runs):
        if prepare:
            prepare()
        start = time.perf_counter()
        result = subprocess.run(["/usr/bin/time", "-f", "%M"] + command, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True)
        times.append(time.perf_counter() - start)
        if result.returncode != 0:
            sys.exit(f"failed: {' '.join(command)}\n{result.stderr}")
        peaks.append(int(result.stderr.strip().splitlines()[-1]))
    return statistics.median(times), max(peaks)

def started(commands, prepare=None, runs=40):
    """Median wall time of each of `commands`, run in turn in each of `runs` rounds (so that all see
    the same machine: these are a few milliseconds, and this machine's pace drifts between seconds),
    without /usr/bin/time, whose own fork and exec would be much of what is measured. `prepare`
    runs untimed before each round."""
    times = [[] for _ in commands]
    for _ in range(runs):
        if prepare:
            prepare()
        for command, recorded in zip(commands, times):
            start = time.perf_counter()
            result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            recorded.append(time.perf_counter() - start)
            if result.returncode != 0:
                sys.exit(f"failed: {' '.join(command)}\n{result.stderr}")
    return [statistics.median(recorded) for recorded in times]

def scan_like_jpeg(path, seed):
    """An A4 page at 300 dpi with texture, so it weighs what a real scan does (about 1.4 MB)."""
    noise = Image.effect_noise((413, 584), 50 + seed % 7).convert("RGB")
    page = noise.resize((2480, 3508), Image.BICUBIC).filter(ImageFilter.GaussianBlur(2))
    page.save(path, quality=85, dpi=(300, 300))

def main():
    binary = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 5
    work = tempfile.mkdtemp(prefix="pdftrapper-bench-")
    state = os.path.join(work, "state")
    try:
        page = os.path.join(work, "page.jpg")
        scan_like_jpeg(page, 0)
        page_pdf = os.path.join(work, "page.pdf")
        with open(page_pdf, "wb") as f:
            f.write(img2pdf.convert(page))
        small = os.path.join(work, "small.jpg")
        if "--large" in sys.argv:
            # The 2.4 GB, 5,000-page target: pages of about 480 KB.
            Image.effect_noise((827, 1169), 40).convert("RGB").save(small, quality=80, dpi=(100, 100))
        else:
            Image.effect_noise((200, 280), 40).convert("RGB").save(small, quality=80, dpi=(25, 25))

        print(f"# append one 300 dpi JPEG page ({os.path.getsize(page) / 1e6:.1f} MB); median of {runs} runs")
        print(f"{'pages':>6} {'size MB':>8} {'pdftrapper ms':>14} {'qpdf ms':>9} {'pdfunite ms':>12} "
              f"{'qpdf/ours':>10} {'pdfunite/ours':>14} {'RSS ours MB':>12} {'RSS qpdf MB':>12}")
        ours = {}
        for pages in (10, 1000, 5000):
            base = os.path.join(work, f"base-{pages}.pdf")
            with open(base, "wb") as f:
                f.write(img2pdf.convert([small] * pages))
            target = os.path.join(work, "target.pdf")
            out = os.path.join(work, "out.pdf")
            def fresh():
                # A fresh copy, flushed, so that no run pays for writing back the previous copy.
                shutil.copyfile(base, target)
                os.sync()
            t_ours, rss_ours = timed([binary, "ingest", "--to", target, page, "--state-dir", state], fresh, runs)
            t_qpdf, rss_qpdf = timed(["qpdf", base, "--pages", base, page_pdf, "--", out], None, runs)
            t_unite, _ = timed(["pdfunite", base, page_pdf, out], None, max(1, runs // 2))
            ours[pages] = t_ours
            print(f"{pages:>6} {os.path.getsize(base) / 1e6:>8.1f} {t_ours * 1e3:>14.1f} {t_qpdf * 1e3:>9.1f} "
                  f"{t_unite * 1e3:>12.1f} {t_qpdf / t_ours:>10.1f} {t_unite / t_ours:>14.1f} "
                  f"{rss_ours / 1024:>12.1f} {rss_qpdf / 1024:>12.1f}")
        print(f"append to 5,000 pages / append to 10 pages (pdftrapper): {ours[5000] / ours[10]:.2f} (goal <= 1.5)")

        count = 200
        print(f"\n# {count} JPEG pages into a new PDF; median of {runs} runs")
        jpegs = []
        for i in range(count):
            path = os.path.join(work, f"scan-{i:03}.jpg")
            if i < 8:
                scan_like_jpeg(path, i)
            else:
                shutil.copyfile(jpegs[i % 8], path)
            jpegs.append(path)
        total = sum(os.path.getsize(p) for p in jpegs)
        new = os.path.join(work, "new.pdf")
        def remove_new():
            if os.path.exists(new):
                os.remove(new)
        t_ours, rss_ours = timed([binary, "ingest", "--to", new, *jpegs, "--state-dir", state], remove_new, runs)
        size_ours = os.path.getsize(new)
        t_img2pdf, rss_img2pdf = timed(["img2pdf", "-o", new, *jpegs], remove_new, runs)
        size_img2pdf = os.path.getsize(new)
        copy = os.path.join(work, "copy.bin")
        t_copy, _ = timed(["sh", "-c", 'cat "$@" > ' + copy + " && sync " + copy, "cat", *jpegs], None, runs)
        print(f"input {total / 1e6:.0f} MB; pdftrapper {t_ours * 1e3:.0f} ms (RSS {rss_ours / 1024:.0f} MB), "
              f"img2pdf {t_img2pdf * 1e3:.0f} ms (RSS {rss_img2pdf / 1024:.0f} MB), copy+fsync {t_copy * 1e3:.0f} ms")
        print(f"img2pdf / pdftrapper: {t_img2pdf / t_ours:.2f} (goal >= 3)")
        print(f"pdftrapper / copy: {t_ours / t_copy:.2f} (goal <= 1.5)")
        print(f"size pdftrapper / img2pdf: {size_ours / size_img2pdf:.4f} (goal <= 1.01)")

        target = os.path.join(work, "target.pdf")
        out = os.path.join(work, "out.pdf")
        def fresh(base):
            def prepare():
                shutil.copyfile(base, target)
                os.sync()
            return prepare
        base_10 = os.path.join(work, "base-10.pdf")

        starts = 100
        print(f"\n# start-up; median of {starts} rounds, each command once a round after the same preparation")
        t_version, t_help, t_ingest = started(
            [["qpdf", "--version"], [binary, "help"], [binary, "ingest", "--to", target, small, "--state-dir", state]],
            fresh(base_10), starts)
        print(f"pdftrapper help {t_help * 1e3:.1f} ms, qpdf --version {t_version * 1e3:.1f} ms: "
              f"{t_help / t_version:.2f} (goal <= 2)")
        print(f"pdftrapper ingest of one small JPEG onto 10 pages {t_ingest * 1e3:.1f} ms, qpdf --version "
              f"{t_version * 1e3:.1f} ms: {t_ingest / t_version:.2f} (goal <= 2)")

        pages = 2000
        base = os.path.join(work, f"base-{pages}.pdf")
        with open(base, "wb") as f:
            f.write(img2pdf.convert([small] * pages))
        small_pdf = os.path.join(work, "small.pdf")
        with open(small_pdf, "wb") as f:
            f.write(img2pdf.convert(small))
        print(f"\n# one small JPEG onto a {pages:,}-page target ({os.path.getsize(base) / 1e6:.1f} MB); median of {runs} runs")
        t_ours, rss_ours = timed([binary, "ingest", "--to", target, small, "--state-dir", state], fresh(base), runs)
        t_qpdf, rss_qpdf = timed(["qpdf", base, "--pages", base, small_pdf, "--", out], os.sync, runs)
        print(f"pdftrapper {t_ours * 1e3:.1f} ms (RSS {rss_ours / 1024:.0f} MB), qpdf --pages {t_qpdf * 1e3:.0f} ms "
              f"(RSS {rss_qpdf / 1024:.0f} MB): qpdf/ours {t_qpdf / t_ours:.0f} (goal >= 100)")

        if "--no-import" not in sys.argv:
            big = os.path.join(work, "big.pdf")
            dropped = []
            for i in range(8):
                # About 245 KB each: blurred noise, as a photographed page weighs.
                path = os.path.join(work, f"dropped-{i}.jpg")
                noise = Image.effect_noise((500, 700), 50 + i).convert("RGB")
                noise.resize((1000, 1400), Image.BICUBIC).filter(ImageFilter.GaussianBlur(1.7)).save(path, quality=85, dpi=(100, 100))
                dropped.append(path)
            with open(big, "wb") as f:
                f.write(img2pdf.convert([dropped[i % 8] for i in range(pages)]))
            print(f"\n# a dropped {pages:,}-page PDF ({os.path.getsize(big) / 1e6:.0f} MB) into a 10-page target; "
                  f"median of {runs} runs")
            t_ours, rss_ours = timed([binary, "ingest", "--to", target, big, "--state-dir", state], fresh(base_10), runs)
            t_qpdf, rss_qpdf = timed(["qpdf", base_10, "--pages", ".", big, "--", out], os.sync, runs)
            print(f"pdftrapper {t_ours:.2f} s (RSS {rss_ours / 1024:.0f} MB), qpdf --pages {t_qpdf:.2f} s "
                  f"(RSS {rss_qpdf / 1024:.0f} MB): ours/qpdf {t_ours / t_qpdf:.2f} (goal <= 1)")
    finally:
        shutil.rmtree(work, ignore_errors=True)

if __name__ == "__main__":
    main()
