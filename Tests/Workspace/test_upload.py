"""Add pages: uploads from the workspace into the inbox (POST /api/upload), over plain HTTP as an
attacker or a flaky phone connection would send them, and in Chromium in phone emulation through
the file input, as a person adds a photo. Each is checked from outside: the inbox and the state
folder on disk, the readers, `pdftrapper history`.
"""
import hashlib
import io
import json
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import unittest

from PIL import Image

from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.webdriver.common.by import By

from workspace import BIN, ROOT, Client, Daemon, assert_readers_agree, leave_browser, shared_browser, sign_on_pad, text_pdf

SCENE = os.path.join(ROOT, "Tests", "Fixtures", "photo-scenes", "scene.py")


def photo(path, spec=None):
    """A phone photo of a letter on a table (Tests/Fixtures/photo-scenes)."""
    spec = spec or {"angle": 8, "tilt": 20, "shadow": True, "size": [1600, 1200]}
    subprocess.run(["python3", SCENE, path, json.dumps(spec)], check=True, capture_output=True)
    return path


def small_jpeg(number):
    """A small JPEG of its own: `number` drawn in, so every one has bytes (and a digest) of its own."""
    picture = Image.new("RGB", (160, 120), ((number * 37) % 256, (number * 91) % 256, 200))
    picture.paste((0, 0, 0), (10 + number * 5 % 140, 10, 20 + number * 5 % 140, 110))
    out = io.BytesIO()
    picture.save(out, "JPEG", quality=90, comment=f"picture {number}".encode())
    return out.getvalue()


def peak_memory_mb(daemon):
    """The daemon's peak resident memory so far (VmHWM), in MB."""
    with open(f"/proc/{daemon.process.pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) / 1024


def inbox_files(daemon):
    """Every file below the inbox but the claims: what a sync tool, or an upload, left there."""
    found = []
    for folder, folders, names in os.walk(daemon.path("inbox")):
        folders[:] = [f for f in folders if f != ".pdftrapper-claims"]
        found += [os.path.relpath(os.path.join(folder, name), daemon.path("inbox")) for name in names]
    return found


class UploadHTTPTests(unittest.TestCase):
    """The server's side, the limits of the inbox: 2 MB, 5 megapixels."""

    @classmethod
    def setUpClass(cls):
        cls.daemon = Daemon(extra="[limits]\nmax_input_size = \"2MB\"\nmax_pixels = 5000000\n")
        cls.client = Client(cls.daemon)
        cls.photo = photo(cls.daemon.path("letter.jpg"))
        with open(cls.photo, "rb") as f:
            cls.bytes = f.read()

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()

    def tearDown(self):
        self.assertTrue(self.daemon.alive(), "the daemon ended:\n" + self.daemon.log_text()[-3000:])

    def upload(self, name, body, path=None, headers=None, client=None):
        query = f"/api/upload?name={name}" + (f"&path={path}" if path else "")
        status, _, data = (client or self.client).request("POST", query, body, headers or {"Content-Type": "image/jpeg"})
        return status, json.loads(data) if data else None

    def test_an_upload_lands_in_the_target_once_however_often_it_is_sent(self):
        target = self.daemon.path("library", "Inbox.pdf")
        status, answer = self.upload("IMG_0042.jpg", self.bytes)
        self.assertEqual(status, 200, answer)
        self.assertEqual((answer["name"], answer["duplicate"]), ("workspace/IMG_0042.jpg", False))
        self.daemon.wait_for(lambda: os.path.exists(target) and self.daemon.history("Inbox.pdf"), what="the upload's revision")
        # A retry after a lost answer: the same bytes again, known by their digest.
        status, again = self.upload("IMG_0042.jpg", self.bytes)
        self.assertEqual((status, again["duplicate"], again["sha256"]), (200, True, answer["sha256"]))
        history = self.daemon.history("Inbox.pdf")
        self.assertEqual(len(history), 1, history)
        self.assertIn("uploaded in the workspace", history[0])
        self.assertIn(answer["sha256"][:12], history[0])
        assert_readers_agree(target, 1)
        self.daemon.wait_for(lambda: inbox_files(self.daemon) == [], what="the inbox to be empty")

    def test_added_from_an_open_document_it_goes_to_that_document(self):
        document = self.daemon.path("library", "Letters", "Bank.pdf")
        os.makedirs(os.path.dirname(document), exist_ok=True)
        text_pdf(document, ["Statement, page one"])
        other = photo(self.daemon.path("other.jpg"), {"angle": -12, "tilt": 15, "size": [1200, 900]})
        with open(other, "rb") as f:
            status, answer = self.upload("photo.jpg", f.read(), path="Letters/Bank.pdf")
        self.assertEqual((status, answer["target"]), (200, "Letters/Bank.pdf"), answer)
        self.daemon.wait_for(lambda: len(self.daemon.history("Letters/Bank.pdf")) == 2, what="the page in Bank.pdf")
        assert_readers_agree(document, 2)
        # Its request did its work and is gone; the inbox is empty.
        uploads = self.daemon.path("state", "uploads")
        self.daemon.wait_for(lambda: not [n for n in os.listdir(uploads) if n.endswith(".json")], what="the request removed")

    def test_the_inboxs_limits_are_checked_before_anything_is_stored(self):
        before = inbox_files(self.daemon)
        # Too large by its length: refused before a byte is read.
        status, answer = self.upload("big.jpg", b"\xff\xd8" + b"\0" * (3 << 20))
        self.assertEqual(status, 413, answer)
        self.assertIn("big.jpg: larger than limits.max_input_size", answer["error"])
        # Far too large to be a mistake: answered from its headers alone, before any of it is sent.
        connection = socket.create_connection(("127.0.0.1", self.daemon.port))
        connection.sendall((f"POST /api/upload?name=huge.jpg HTTP/1.1\r\nHost: {self.daemon.host}\r\n"
                            f"Cookie: pdftrapper_session={self.client.cookie}\r\nX-PDFTrapper-CSRF: 1\r\n"
                            f"Content-Length: {100 << 20}\r\n\r\n").encode())
        self.assertTrue(connection.recv(4096).startswith(b"HTTP/1.1 413"))
        connection.close()
        # Not a type the inbox takes.
        status, answer = self.upload("notes.jpg", b"just some text, not a picture\n" * 100)
        self.assertEqual(status, 415, answer)
        self.assertIn("notes.jpg: not a PDF or an image the inbox takes", answer["error"])
        # More pixels than limits.max_pixels, said from the header (a 3000 x 2000 JPEG is 6 megapixels).
        large = self.daemon.path("large.jpg")
        subprocess.run(["convert", "-size", "3000x2000", "xc:white", "-quality", "50", large], check=True)
        with open(large, "rb") as f:
            status, answer = self.upload("large.jpg", f.read())
        self.assertEqual(status, 422, answer)
        self.assertIn("large.jpg", answer["error"])
        self.assertIn("3000 x 2000 pixels, over the limit of 5 megapixels (limits.max_pixels)", answer["error"])
        # Compared with what was there before: an earlier test's upload may still be on its way in.
        self.assertEqual(set(inbox_files(self.daemon)) - set(before), set(), "nothing reached the inbox")

    def test_names_and_paths_cannot_lead_out(self):
        outside = self.daemon.path("secret.pdf")
        text_pdf(outside, ["not in the library"])
        # Refused from the headers: a small body, so the early answer is not taken for a broken pipe.
        head = self.bytes[:4096]
        status, _ = self.upload("x.jpg", head, path="../secret.pdf")
        self.assertEqual(status, 404)
        small = self.daemon.path("small.jpg")
        subprocess.run(["convert", "-size", "300x200", "xc:white", "-fill", "black", "-draw", "rectangle 20,20 120,80", small], check=True)
        with open(small, "rb") as f:
            status, answer = self.upload("..%2F..%2Fescape.jpg", f.read())
        self.assertEqual(status, 200, answer)
        self.assertEqual(answer["name"], "workspace/escape.jpg")
        self.assertFalse(os.path.exists(self.daemon.path("escape.jpg")))
        anonymous = Client(self.daemon, login=False)
        self.assertEqual(self.upload("y.jpg", head, client=anonymous)[0], 401)
        self.assertEqual(anonymous.request("POST", "/api/upload?name=y.jpg", head, {"X-PDFTrapper-CSRF": ""})[0], 401)
        status, _, _ = self.client.request("POST", "/api/upload?name=y.jpg", head, {"X-PDFTrapper-CSRF": ""})
        self.assertEqual(status, 403)

    def test_an_upload_cut_off_leaves_nothing_behind(self):
        before = inbox_files(self.daemon)
        connection = socket.create_connection(("127.0.0.1", self.daemon.port))
        head = (f"POST /api/upload?name=cut.jpg HTTP/1.1\r\nHost: {self.daemon.host}\r\n"
                f"Cookie: pdftrapper_session={self.client.cookie}\r\nX-PDFTrapper-CSRF: 1\r\n"
                f"Content-Type: image/jpeg\r\nContent-Length: {len(self.bytes)}\r\n\r\n")
        connection.sendall(head.encode() + self.bytes[:len(self.bytes) // 2])
        connection.close()
        # The half written under a hidden name goes when the server sees the connection gone.
        self.daemon.wait_for(lambda: not set(inbox_files(self.daemon)) - set(before), what="the cut-off upload's file removed")
        if os.path.exists(self.daemon.path("library", "Inbox.pdf")):
            self.assertFalse(any("cut.jpg" in line for line in self.daemon.history("Inbox.pdf")))


    def test_uploads_of_one_name_at_once_each_go_to_the_document_they_were_sent_to(self):
        # Twenty phones send IMG_0001.jpg at the same moment, half of them to each of two documents.
        for name in ("Trip.pdf", "Work.pdf"):
            text_pdf(self.daemon.path("library", name), [f"{name}, page one"])
        sent = {"Trip.pdf": set(), "Work.pdf": set()}
        answers = []
        def send(number):
            document = "Trip.pdf" if number % 2 else "Work.pdf"
            status, answer = self.upload("IMG_0001.jpg", small_jpeg(number), path=document)
            answers.append((status, answer, document))
        threads = [threading.Thread(target=send, args=(number,)) for number in range(20)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        for status, answer, document in answers:
            self.assertEqual((status, answer.get("duplicate"), answer.get("target")), (200, False, document), answer)
            sent[document].add(answer["sha256"][:12])
        # Each upload got a name of its own.
        self.assertEqual(len({answer["name"] for _, answer, _ in answers}), 20, answers)
        # Uploads that arrive together may share a revision: each history line names its inputs' digests.
        for document, digests in sent.items():
            history = lambda: "\n".join(self.daemon.history(document))
            self.daemon.wait_for(lambda: all(digest in history() for digest in digests), seconds=60, what=f"ten pages in {document}")
            other = sent["Work.pdf" if document == "Trip.pdf" else "Trip.pdf"]
            self.assertEqual([digest for digest in other if digest in history()], [], history())
            assert_readers_agree(self.daemon.path("library", document), 11)

    def test_a_page_undone_may_be_uploaded_again_at_once(self):
        text_pdf(self.daemon.path("library", "Undone.pdf"), ["Undone, page one"])
        body = small_jpeg(99)
        status, first = self.upload("IMG_0500.jpg", body, path="Undone.pdf")
        self.assertEqual((status, first["duplicate"]), (200, False), first)
        self.daemon.wait_for(lambda: len(self.daemon.history("Undone.pdf")) == 2, what="the uploaded page")
        _, info = self.client.json("GET", "/api/document?path=Undone.pdf")
        status, answer = self.client.json("POST", "/api/undo", {"path": "Undone.pdf", "base_end": info["end"]})
        self.assertEqual(status, 200, answer)
        self.assertEqual(len(self.daemon.history("Undone.pdf")), 1)
        # The person takes it back, then sends the same photo again: it is a page again.
        status, again = self.upload("IMG_0500.jpg", body, path="Undone.pdf")
        self.assertEqual((status, again["duplicate"], again["sha256"]), (200, False, first["sha256"]), again)
        self.daemon.wait_for(lambda: len(self.daemon.history("Undone.pdf")) == 2, what="the page uploaded again")
        self.assertIn(first["sha256"][:12], self.daemon.history("Undone.pdf")[1])
        # While it is in the document, the same bytes again are a retry, stored once.
        status, retry = self.upload("IMG_0500.jpg", body, path="Undone.pdf")
        self.assertEqual((status, retry["duplicate"]), (200, True), retry)
        assert_readers_agree(self.daemon.path("library", "Undone.pdf"), 2)


class UploadMemoryTests(unittest.TestCase):
    """A large upload is written to disk as it comes: the server never holds it whole."""

    def test_a_large_photo_is_never_held_in_memory(self):
        daemon = Daemon(extra="[limits]\nmax_input_size = \"200MB\"\n")
        try:
            client = Client(daemon)
            text_pdf(daemon.path("library", "Large.pdf"), ["Large, page one"])
            # Noise does not compress: a 16-megapixel JPEG of about 65 MB.
            side = 4000
            picture = Image.frombytes("RGB", (side, side), os.urandom(side * side * 3))
            out = io.BytesIO()
            picture.save(out, "JPEG", quality=100, subsampling=0)
            body = out.getvalue()
            before = peak_memory_mb(daemon)
            status, _, data = client.request("POST", "/api/upload?name=large.jpg&path=Large.pdf", body, {"Content-Type": "image/jpeg"})
            # Read as soon as it is answered, before the inbox (inbox.settle later) reads the photo to ingest it.
            grown = peak_memory_mb(daemon) - before
            self.assertEqual(status, 200, data)
            self.assertLess(grown, len(body) / 1e6 / 4, f"the server grew by {grown:.0f} MB for a {len(body) / 1e6:.0f} MB upload")
        finally:
            daemon.stop()


class LargePhotoIngestTests(unittest.TestCase):
    """A JPEG goes into its PDF as it came, copied from its file a chunk at a time: neither
    `pdftrapper ingest` nor the daemon's inbox ever holds a large one whole (a 410 MB JPEG took the
    daemon to 811 MB when it was read whole and kept as the page's stream)."""

    # Peak resident memory allowed, in MB: a little above what either process needs for a small
    # photo, and far below the photo's own size.
    BOUND_MB = 80

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="pdftrapper-large-")
        cls.jpeg = os.path.join(cls.dir, "large.jpg")
        # Noise does not compress: 36 megapixels at quality 100 are about 150 MB. At 72 dpi, a page
        # rendered at 72 dpi has the photo's pixels one for one.
        side = 6000
        Image.frombytes("RGB", (side, side), os.urandom(side * side * 3)).save(cls.jpeg, quality=100, subsampling=0,
                                                                             dpi=(72, 72))
        cls.size_mb = os.path.getsize(cls.jpeg) / 1e6
        with open(cls.jpeg, "rb") as f:
            cls.digest = hashlib.sha256(f.read()).hexdigest()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def assert_the_photo_is_in(self, target):
        """qpdf finds no fault in the PDF, and its history names the photo by the SHA-256 of its bytes."""
        subprocess.run(["qpdf", "--check", target], check=True, capture_output=True)
        history = subprocess.run([BIN, "history", target], check=True, capture_output=True, text=True).stdout
        self.assertIn(f"large.jpg (sha256 {self.digest[:12]})", history)

    def assert_the_page_renders_as_the_photo(self, target):
        """Poppler (through cairo, which draws an image at 1:1 without resampling it) renders the page
        pixel for pixel as Pillow decodes the JPEG."""
        subprocess.run(["pdftocairo", "-r", "72", "-tiff", "-tiffcompression", "none", "-singlefile", target,
                        os.path.join(self.dir, "render")], check=True)
        rendered = Image.open(os.path.join(self.dir, "render.tif")).convert("RGB")
        self.assertTrue(rendered.tobytes() == Image.open(self.jpeg).convert("RGB").tobytes(),
                        "the page does not render as the JPEG decodes")

    def test_ingest_copies_it_without_holding_it(self):
        target = os.path.join(self.dir, "Ingested.pdf")
        # GNU time's %M: the command's own peak resident memory, in KB. (Not this process's
        # wait4: a child's peak counts the memory of the process it was forked from.)
        peak_file = os.path.join(self.dir, "peak")
        subprocess.run(["/usr/bin/time", "-f", "%M", "-o", peak_file, BIN, "ingest", "--to", target, "--state-dir",
                        os.path.join(self.dir, "state"), self.jpeg], check=True, capture_output=True)
        with open(peak_file) as f:
            peak = int(f.read().split()[-1]) / 1024
        self.assertLess(peak, self.BOUND_MB, f"pdftrapper ingest peaked at {peak:.0f} MB for a {self.size_mb:.0f} MB JPEG")
        self.assert_the_photo_is_in(target)
        self.assert_the_page_renders_as_the_photo(target)

    def test_the_daemon_ingests_it_without_holding_it(self):
        # Everything the daemon does with an inbox file on the way counts: the completeness gate,
        # the type by its first bytes, the claim, its digest, the revision, the follow-ups.
        daemon = Daemon()
        try:
            daemon.drop("large.jpg", self.jpeg)
            target = daemon.path("library", "Inbox.pdf")
            # Its revision is whole when the history, read from the file's end, names it.
            daemon.wait_for(lambda: "large.jpg" in subprocess.run([BIN, "history", target], capture_output=True, text=True).stdout,
                            seconds=120, what="the photo ingested")
            peak = peak_memory_mb(daemon)
            self.assertLess(peak, self.BOUND_MB, f"the daemon peaked at {peak:.0f} MB for a {self.size_mb:.0f} MB JPEG")
            # The page is made the same way as by `pdftrapper ingest`, whose render is compared above.
            self.assert_the_photo_is_in(target)
        finally:
            daemon.stop()


class UploadBrowserTests(unittest.TestCase):
    """In Chromium as a phone (390 x 844, touch): the file input a phone opens its camera from."""

    @classmethod
    def setUpClass(cls):
        cls.daemon = Daemon(rule='find_page = true\nclean = "auto"')
        cls.browser = shared_browser()
        cls.browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True})
        cls.browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
        cls.browser.get(cls.daemon.login_url)

    @classmethod
    def tearDownClass(cls):
        cls.browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        cls.browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
        leave_browser(cls.browser)
        cls.daemon.stop()

    def js(self, script, *arguments):
        return self.browser.execute_script(script, *arguments)

    def wait_ready(self):
        self.daemon.wait_for(lambda: self.js("return document.body.dataset.state") == "ready", what="the workspace ready")

    def wait_upload(self):
        self.daemon.wait_for(lambda: self.js("return document.getElementById('upload-status').dataset.state") in ("done", "error"),
                             what="the upload to end")
        return self.js("const s = document.getElementById('upload-status'); return [s.dataset.state, s.textContent];")

    def test_a_photo_added_to_the_open_document_appears_in_it_live(self):
        document = self.daemon.path("library", "Receipts.pdf")
        text_pdf(document, ["Receipts, page one"])
        self.browser.get(self.daemon.base + "/#/doc/Receipts.pdf")
        self.wait_ready()
        self.js("window.notReloaded = true")
        shot = photo(self.daemon.path("IMG_0007.jpg"))
        self.browser.find_element(By.ID, "add-pages-input").send_keys(shot)
        state, text = self.wait_upload()
        self.assertEqual(state, "done", text)
        self.daemon.wait_for(lambda: self.js("const i = document.querySelector('.thumb[data-page=\"2\"] img');"
                                             "return !!i && i.complete && i.naturalWidth > 0"), what="page 2 in the strip")
        self.daemon.wait_for(lambda: self.js("return document.getElementById('page-number').textContent.startsWith('2 / 2')"),
                             what="the view to follow to the new page")
        self.assertTrue(self.js("return window.notReloaded === true"), "the page was reloaded")
        history = self.daemon.history("Receipts.pdf")
        self.assertEqual(len(history), 2, history)
        self.assertIn("IMG_0007.jpg", history[1])
        self.assertIn("uploaded in the workspace", history[1])
        self.assertIn("find_page: A4 sheet found", history[1])
        assert_readers_agree(document, 2)
        # A clean page: the sheet alone, A4.
        info = subprocess.run(["pdfinfo", "-f", "2", "-l", "2", document], check=True, capture_output=True, text=True).stdout
        self.assertRegex(info, r"Page\s+2 size:\s+595\.\d+ x 841\.\d+ pts")
        # And signed with a finger: a signature drawn on the pad with a finger, then placed by a tap,
        # saved as one revision.
        self.wait_ready()
        self.browser.find_element(By.ID, "tool-signature").click()
        self.daemon.wait_for(lambda: self.browser.find_element(By.ID, "new-signature").is_displayed(), what="the menu")
        self.browser.find_element(By.ID, "new-signature").click()
        pad = self.browser.find_element(By.ID, "signature-pad")
        self.daemon.wait_for(pad.is_displayed, what="the signature pad")
        sign_on_pad(self.browser, PointerInput(interaction.POINTER_TOUCH, "finger"))
        self.browser.find_element(By.ID, "signature-name").send_keys("thumb")
        self.browser.find_element(By.ID, "signature-save").click()
        self.daemon.wait_for(lambda: os.path.exists(self.daemon.path("signatures", "thumb.json")), what="the finger's signature")
        with open(self.daemon.path("signatures", "thumb.json")) as f:
            self.assertGreaterEqual(len(json.load(f)["strokes"][0]), 5, "the finger's stroke was drawn on the pad")
        self.daemon.wait_for(lambda: self.browser.find_elements(By.CSS_SELECTOR, '.signature-item[data-name="thumb"]'),
                             what="the new signature in the menu")
        if not self.browser.find_element(By.CSS_SELECTOR, '.signature-item[data-name="thumb"]').is_displayed():
            self.browser.find_element(By.ID, "tool-signature").click()
        self.browser.find_element(By.CSS_SELECTOR, '.signature-item[data-name="thumb"]').click()
        # The page's middle, brought into the phone's view.
        box = self.js("const c = document.getElementById('page-canvas'); c.scrollIntoView({block: 'center'});"
                      "const r = c.getBoundingClientRect(); return [r.left, r.top, r.width, r.height];")
        finger = PointerInput(interaction.POINTER_TOUCH, "finger")
        actions = ActionBuilder(self.browser, mouse=finger, duration=10)
        actions.pointer_action.move_to_location(round(box[0] + box[2] * 0.5), round(box[1] + box[3] * 0.5)).pointer_down().pointer_up()
        actions.perform()
        self.daemon.wait_for(lambda: self.js("return document.getElementById('unsaved-count').dataset.count") == "1",
                             what="the signature placed")
        self.browser.find_element(By.ID, "save").click()
        self.daemon.wait_for(lambda: len(self.daemon.history("Receipts.pdf")) == 3, what="the signature's revision")
        signed = [a for a in self.daemon.annotations("Receipts.pdf") if a["kind"] in ("Stamp", "Ink") and a["page"] == 2]
        self.assertEqual(len(signed), 1, self.daemon.annotations("Receipts.pdf"))
        assert_readers_agree(document, 2)
        self.wait_ready()
        # The page came from a photo: its crop dialog opens, and fits the phone's width.
        self.browser.find_element(By.ID, "page-reframe").click()
        self.daemon.wait_for(lambda: self.js("return document.getElementById('reframe-dialog').dataset.ready === 'true'"),
                             what="the photo in the crop dialog")
        fits = self.js("const d = document.getElementById('reframe-dialog').getBoundingClientRect(),"
                       " p = document.getElementById('reframe-photo').getBoundingClientRect();"
                       "return [d.left >= 0 && d.right <= innerWidth, p.left >= d.left && p.right <= d.right, p.width > 200];")
        self.assertEqual(fits, [True, True, True])
        self.browser.find_element(By.ID, "reframe-cancel").click()
        # The same photo again (a retry, a double tap): one page, and the page says so.
        self.browser.find_element(By.ID, "add-pages-input").send_keys(shot)
        state, text = self.wait_upload()
        self.assertEqual(state, "done", text)
        self.assertIn("stored once", text)
        self.assertEqual(len(self.daemon.history("Receipts.pdf")), 3)

    def test_from_the_library_the_rules_route_it_and_a_refusal_is_shown(self):
        self.browser.get(self.daemon.base + "/#/")
        self.wait_ready()
        shot = photo(self.daemon.path("IMG_0100.jpg"), {"angle": 5, "tilt": 10, "size": [1200, 900]})
        self.browser.find_element(By.ID, "library-add-pages-input").send_keys(shot)
        state, text = self.wait_upload()
        self.assertEqual(state, "done", text)
        target = self.daemon.path("library", "Inbox.pdf")
        self.daemon.wait_for(lambda: os.path.exists(target) and any("IMG_0100.jpg" in line for line in self.daemon.history("Inbox.pdf")),
                             what="the rule's target")
        bad = self.daemon.path("notes.png")
        with open(bad, "w") as f:
            f.write("not a picture at all\n" * 50)
        self.js("document.getElementById('upload-status').dataset.state = ''")
        self.browser.find_element(By.ID, "library-add-pages-input").send_keys(bad)
        state, text = self.wait_upload()
        self.assertEqual(state, "error")
        self.assertIn("notes.png: not a PDF or an image the inbox takes", text)


if __name__ == "__main__":
    unittest.main()
