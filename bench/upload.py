#!/usr/bin/env python3
"""Add pages from a phone, timed: from an upload finished (POST /api/upload answered) to the page
visible in the document open in the browser (Chromium, the workspace's own page: the new page's
thumbnail and the page image loaded), with `find_page` and `clean` on, over N uploads of a phone
photo of about 3 MB (12 megapixels, a letter on a table, with a sensor's noise). Beside it, within the same run, the
daemon's own part: from the answer to the target's new length on disk (inbox.settle, claim, the
page steps, the revision). Goal: p50 under 1.5 s. Usage: bench/upload.py PATH/TO/pdftrapper [--rounds N]
"""
import json, os, statistics, subprocess, sys, time

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


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(workspace.ROOT, ".build", "release", "pdftrapper")
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 20
    workspace.BIN = os.path.abspath(binary)
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
