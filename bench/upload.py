#!/usr/bin/env python3
"""Add pages from a phone, timed: from an upload finished (POST /api/upload answered) to the page
visible in the document open in the browser (Chromium, the workspace's own page: the new page's
thumbnail and the page image loaded), with `find_page` and `clean` on, over N uploads of a phone
photo of about 3 MB (12 megapixels, a letter on a table, with a sensor's noise). Beside it, within the same run, the
daemon's own part: from the answer to the target's new length on disk (inbox.settle, claim, the
page steps, the revision). Goal: p50 under 1.5 s.

Then memory: four 400 MB uploads at once (each to a document of its own), as a 400 MB JPEG (100
megapixels of noise) and as a 400 MB PDF (367 pages of 1 MB JPEGs). The daemon's peak RSS (VmHWM)
while they are sent, the inbox holding them (inbox.settle of 10 minutes): what the server holds
for them. Goal: under 128 MB. Then the daemon started again with inbox.settle 0.3 s, and its peak
while it ingests the four: what the inbox and the ingest hold, reported beside it.

Usage: bench/upload.py PATH/TO/pdftrapper [--rounds N] [--no-memory | --memory-only]
"""
import http.client, json, os, statistics, subprocess, sys, threading, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Workspace"))
import workspace  # noqa: E402

SCENE = os.path.join(workspace.ROOT, "Tests", "Fixtures", "photo-scenes", "scene.py")


def variants(photo, count):
    """`count` copies of the JPEG that differ by a comment segment after SOI: distinct digests (the
    server stores the same bytes once), the same pixels."""
    with open(photo, "rb") as f:
        data = f.read()
    for index in range(count):
        comment = f"bench upload {index}".encode()
        yield data[:2] + b"\xff\xfe" + (len(comment) + 2).to_bytes(2, "big") + comment + data[2:]


def peak_mb(daemon):
    with open(f"/proc/{daemon.process.pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024


def settle(daemon, duration):
    """The daemon started again with inbox.settle = `duration`."""
    with open(daemon.config) as f:
        text = f.read()
    with open(daemon.config, "w") as f:
        f.write(text.replace('settle = "0.3s"', f'settle = "{duration}"').replace('settle = "10m"', f'settle = "{duration}"'))
    daemon.restart()


def large_jpeg(path):
    """About 400 MB: 10,500 x 9,500 pixels of colour noise at quality 100 (noise does not compress)."""
    from PIL import Image
    width, height = 10500, 9500
    Image.frombytes("RGB", (width, height), os.urandom(width * height * 3)).save(path, quality=100, subsampling=0)


def large_pdf(path):
    """About 400 MB: img2pdf pages of one 1 MB JPEG of noise."""
    import img2pdf
    from PIL import Image
    page = path + ".jpg"
    Image.frombytes("RGB", (1000, 1400), os.urandom(1000 * 1400 * 3)).save(page, quality=92, dpi=(100, 100))
    with open(path, "wb") as f:
        f.write(img2pdf.convert([page] * (400_000_000 // os.path.getsize(page))))
    os.remove(page)


def memory(kind, make):
    """Four uploads of one 400 MB file at once, each to a document of its own."""
    daemon = workspace.Daemon()
    try:
        source = daemon.path("large." + kind)
        make(source)
        size = os.path.getsize(source)
        for index in range(4):
            workspace.text_pdf(daemon.path("library", f"Doc{index}.pdf"), [f"document {index}"])
        settle(daemon, "10m")
        client = workspace.Client(daemon)
        before = peak_mb(daemon)
        answers = []
        def send(index):
            connection = http.client.HTTPConnection("127.0.0.1", daemon.port, timeout=600)
            with open(source, "rb") as f:
                connection.request("POST", f"/api/upload?name=large{index}.{kind}&path=Doc{index}.pdf", body=f,
                                   headers={"Host": daemon.host, "Cookie": "pdftrapper_session=" + client.cookie,
                                            "X-PDFTrapper-CSRF": "1", "Content-Length": str(size)})
            response = connection.getresponse()
            answers.append((response.status, response.read()))
        start = time.perf_counter()
        threads = [threading.Thread(target=send, args=(index,)) for index in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - start
        assert all(status == 200 for status, _ in answers), answers
        print(f"   {kind.upper()}, 4 x {size / 1e6:.0f} MB at once: answered in {elapsed:.1f} s; daemon peak RSS "
              f"{peak_mb(daemon):.0f} MB ({before:.0f} MB before) while they were sent (goal < 128 MB)")
        lengths = [os.path.getsize(daemon.path("library", f"Doc{index}.pdf")) for index in range(4)]
        settle(daemon, "0.3s")
        start = time.perf_counter()
        daemon.wait_for(lambda: all(os.path.getsize(daemon.path("library", f"Doc{index}.pdf")) > lengths[index] + size // 2
                                    for index in range(4)), seconds=900, what="the four ingested")
        print(f"   then ingested by the inbox in {time.perf_counter() - start:.1f} s: peak RSS {peak_mb(daemon):.0f} MB")
    finally:
        daemon.stop()


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(workspace.ROOT, ".build", "release", "pdftrapper")
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 20
    workspace.BIN = os.path.abspath(binary)
    if "--memory-only" not in sys.argv:
        latency(rounds, binary)
    if "--no-memory" not in sys.argv:
        print("memory: four 400 MB uploads at once")
        memory("jpg", large_jpeg)
        memory("pdf", large_pdf)


def latency(rounds, binary):
    daemon = workspace.Daemon(rule='find_page = true\nclean = "auto"')
    browser = workspace.shared_browser()
    try:
        photo = daemon.path("letter.jpg")
        subprocess.run(["python3", SCENE, photo, json.dumps({"angle": 10, "tilt": 20, "shadow": True, "size": [4032, 3024]})],
                       check=True, capture_output=True)
        # A camera's sensor noise makes a phone's JPEG about 3 MB at 12 megapixels; the drawn scene is smoother.
        subprocess.run(["convert", photo, "-attenuate", "0.3", "+noise", "Gaussian", "-quality", "90", photo], check=True)
        print(f"photo: {os.path.getsize(photo) / 1e6:.1f} MB, 4032 x 3024; {rounds} uploads; {binary}")
        document = daemon.path("library", "Letters.pdf")
        workspace.text_pdf(document, ["Letters, page one"])
        client = workspace.Client(daemon)
        browser.get(daemon.login_url)
        browser.get(daemon.base + "/#/doc/Letters.pdf")
        daemon.wait_for(lambda: browser.execute_script("return document.body.dataset.state") == "ready", what="the document")
        visible, durable = [], []
        for index, body in enumerate(variants(photo, rounds)):
            pages = index + 2
            length = os.path.getsize(document)
            status, _, answer = client.request("POST", "/api/upload?name=IMG_%04d.jpg&path=Letters.pdf" % index, body,
                                               {"Content-Type": "image/jpeg"})
            answered = time.perf_counter()
            assert status == 200, answer
            on_disk = None
            while True:
                if on_disk is None and os.path.getsize(document) != length:
                    on_disk = time.perf_counter()
                if browser.execute_script(
                        f"const i = document.querySelector('.thumb[data-page=\"{pages}\"] img'), p = document.getElementById('page-image');"
                        f"return !!i && i.complete && i.naturalWidth > 0 && document.body.dataset.state === 'ready'"
                        f" && document.getElementById('page-number').textContent.startsWith('{pages} /') && p.complete;"):
                    break
                if time.perf_counter() - answered > 30:
                    raise SystemExit(f"upload {index}: the page never showed\n" + daemon.log_text()[-2000:])
                time.sleep(0.01)
            shown = time.perf_counter()
            visible.append((shown - answered) * 1000)
            durable.append(((on_disk or shown) - answered) * 1000)
        p50v, p50d = statistics.median(visible), statistics.median(durable)
        print(f"upload answered -> page visible in the open document: p50 {p50v:.0f} ms, max {max(visible):.0f} ms (goal < 1500)")
        print(f"upload answered -> revision durable on disk:          p50 {p50d:.0f} ms ({p50d / p50v:.0%} of it)")
        print(f"the browser's share (event, document, thumbnail, page): p50 {statistics.median(v - d for v, d in zip(visible, durable)):.0f} ms")
    finally:
        daemon.stop()


if __name__ == "__main__":
    main()
