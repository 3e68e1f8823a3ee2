#!/usr/bin/env python3
"""OCR: PDFTrapper's text layer against OCRmyPDF (PyPI) on the same 10 pages with the same tesseract,
and the daemon's capture latency with OCR on against OCR off, in one run.
Usage: bench/ocr.py PATH/TO/pdftrapper [--runs N]

1. Throughput: ten A4 pages of English text at 300 dpi (JPEG), made into a picture-only PDF by
   `pdftrapper ingest`. Timed: `pdftrapper ocr` (one tesseract a core, pages read side by side; the
   daemon uses one fewer, leaving a core to capture) against `ocrmypdf --jobs 1` and `ocrmypdf` with
   its default jobs (one per core), both with
   --output-type pdf (no PDF/A conversion) and --optimize 0, so the work compared is rendering,
   tesseract and the text layer. Each output is checked: pdftotext must find at least 95% of the
   words drawn on the pages.
2. Capture latency: a page renamed into the inbox until the original is archived (its page is then
   durable in the target), with a rule that OCRs and one that does not; medians of 5 drops each.
   OCR runs after, in its own revision; the latency must not wait for it.
"""
import os, random, shutil, statistics, subprocess, sys, tempfile, time

from PIL import Image, ImageDraw, ImageFont

WORDS = ("the quick brown fox jumps over the lazy dog while invoices and letters arrive "
         "in the morning post for the office").split()

def text_page(path, seed, dpi=300):
    w, h = int(8.27 * dpi), int(11.69 * dpi)
    im = Image.new("L", (w, h), 255)
    d = ImageDraw.Draw(im)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf", int(dpi * 11 / 72))
    rnd = random.Random(seed)
    lines, y = [], int(dpi * 1.0)
    for _ in range(40):
        line = " ".join(rnd.choice(WORDS) for _ in range(11))
        lines.append(line)
        d.text((int(dpi * 0.8), y), line, font=font, fill=0)
        y += int(dpi * 0.22)
    im.save(path, quality=85, dpi=(dpi, dpi))
    return " ".join(lines)

def words_found(pdf, truth):
    text = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, check=True).stdout.lower()
    found = {}
    for word in "".join(c if c.isalpha() else " " for c in text).split():
        found[word] = found.get(word, 0) + 1
    hits = 0
    for word in truth.lower().split():
        if found.get(word, 0) > 0:
            found[word] -= 1
            hits += 1
    return hits / len(truth.split())

def timed(command):
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{result.stdout}{result.stderr}")
    return time.perf_counter() - start

def capture_latency(binary, work, ocr, drops=5):
    root = os.path.join(work, "daemon-ocr" if ocr else "daemon-plain")
    for folder in ("inbox", "archive", "library"):
        os.makedirs(os.path.join(root, folder))
    config = os.path.join(root, "config.toml")
    with open(config, "w") as f:
        f.write('[daemon]\nstate_dir = "state"\n[library]\nroot = "library"\n[inbox]\npath = "inbox"\n'
                'settle = "0s"\n[[rule]]\nname = "all"\ntarget = "All.pdf"\narchive_as = "{name}"\n'
                + ('ocr = ["eng"]\n' if ocr else ""))
    process = subprocess.Popen([binary, "run", "--config", config], stderr=subprocess.DEVNULL)
    try:
        time.sleep(1.0)
        latencies = []
        for n in range(drops):
            source = os.path.join(work, f"drop-{n}.jpg")
            staged = os.path.join(root, f"drop-{n}.jpg")
            shutil.copyfile(source, staged)
            archived = os.path.join(root, "archive", f"drop-{n}.jpg")
            start = time.perf_counter()
            os.rename(staged, os.path.join(root, "inbox", f"drop-{n}.jpg"))
            while not os.path.exists(archived):
                if time.perf_counter() - start > 60:
                    sys.exit("timed out waiting for a capture")
                time.sleep(0.0005)
            latencies.append(time.perf_counter() - start)
            # The next drop lands while this page's OCR is still running.
            time.sleep(0.3)
        return statistics.median(latencies)
    finally:
        process.terminate()
        process.wait()

def main():
    binary = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 3
    work = tempfile.mkdtemp(prefix="pdftrapper-bench-ocr-")
    try:
        pages, truth = [], []
        for n in range(10):
            path = os.path.join(work, f"page-{n}.jpg")
            truth.append(text_page(path, n))
            pages.append(path)
        for n in range(5):
            text_page(os.path.join(work, f"drop-{n}.jpg"), 100 + n)
        base = os.path.join(work, "pictures.pdf")
        subprocess.run([binary, "ingest", "--to", base] + pages, check=True, stdout=subprocess.DEVNULL)
        state = os.path.join(work, "state")
        cases = {
            "pdftrapper ocr": lambda out: [binary, "ocr", out, "--state-dir", state],
            "ocrmypdf --jobs 1": lambda out: ["ocrmypdf", "--jobs", "1", "--output-type", "pdf", "--optimize", "0",
                                              "-q", base, out],
            f"ocrmypdf --jobs {os.cpu_count()}": lambda out: ["ocrmypdf", "--output-type", "pdf", "--optimize", "0",
                                                             "-q", base, out],
        }
        times = {name: [] for name in cases}
        for round_ in range(runs):
            for name, command in (cases.items() if round_ % 2 == 0 else reversed(list(cases.items()))):
                out = os.path.join(work, f"out-{len(times[name])}-{name.split()[0]}.pdf")
                if name.startswith("pdftrapper"):
                    shutil.copyfile(base, out)
                    shutil.rmtree(state, ignore_errors=True)
                os.sync()
                times[name].append(timed(command(out)))
                found = words_found(out, " ".join(truth))
                if found < 0.95:
                    sys.exit(f"{name}: pdftotext finds only {found:.1%} of the words")
        median = {name: statistics.median(values) for name, values in times.items()}
        ours = median["pdftrapper ocr"]
        print(f"# OCR of 10 A4 pages of text at 300 dpi, same tesseract ({subprocess.run(['tesseract', '--version'], capture_output=True, text=True).stdout.split()[1]}); median of {runs} alternating runs")
        for name, value in median.items():
            print(f"{name:>22}: {value:6.2f} s  {10 / value:5.2f} pages/s  ({value / ours:.2f} x pdftrapper's time)")
        plain = capture_latency(binary, work, ocr=False)
        with_ocr = capture_latency(binary, work, ocr=True)
        print(f"capture latency (drop to durable, median of 5): OCR off {plain * 1000:.0f} ms, OCR on {with_ocr * 1000:.0f} ms "
              f"(ratio {with_ocr / plain:.2f})")
        print("outputs checked: pdftotext finds >= 95% of the words drawn, for every run of every tool")
    finally:
        shutil.rmtree(work, ignore_errors=True)

if __name__ == "__main__":
    main()
