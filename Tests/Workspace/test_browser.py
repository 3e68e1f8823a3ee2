"""The workspace in Debian's Chromium, driven through WebDriver with real pointer events, one
browser for every scenario. Each is checked from outside the browser: the six readers agree,
`pdftrapper annotations --json` lists what was drawn, a pdftoppm render has the stroke's pixels
where it was drawn, and history shows one revision per save.

PDFTRAPPER_SCREENSHOTS=DIR saves the README's screenshots there.
"""
import json
import os
import pathlib
import re
import subprocess
import time
import unittest

from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from workspace import (BIN, ROOT, Client, Daemon, assert_readers_agree, changed_pixels, leave_browser, render, sign_on_pad, shared_browser,
                       text_pdf)


class BrowserTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.daemon = Daemon()
        cls.browser = shared_browser()
        cls.client = Client(cls.daemon)
        # A saved signature, as pen strokes.
        with open(cls.daemon.path("signatures", "jane.toml"), "w") as f:
            f.write('width = 3\nstrokes = [[[0, 40], [15, 5], [30, 40], [45, 10], [60, 35], [90, 20]]]\n')
        # Log in the way a user does: the address web-url printed.
        cls.browser.get(cls.daemon.login_url)

    @classmethod
    def tearDownClass(cls):
        leave_browser(cls.browser)   # shared: workspace.py quits it at exit
        cls.daemon.stop()

    def tearDown(self):
        errors = [entry for entry in self.browser.get_log("browser")
                  if entry["level"] == "SEVERE" and "favicon" not in entry["message"] and "409" not in entry["message"]]
        self.assertEqual(errors, [], "the page's console has errors")

    # MARK: helpers

    def document(self, name, lines=("The quick brown fox jumps", "over the lazy dog"), **shape):
        path = self.daemon.path("library", name)
        text_pdf(path, list(lines), **shape)
        return path

    def numbered_pages(self, name, count):
        """A document of `count` pages saying "Page number N", joined by pypdf."""
        import pypdf
        path = self.daemon.path("library", name)
        writer = pypdf.PdfWriter()
        for number in range(1, count + 1):
            part = self.daemon.path(f"{name}.part{number}.pdf")
            text_pdf(part, [f"Page number {number}"])
            writer.append(part)
        with open(path, "wb") as f:
            writer.write(f)
        return path

    def open(self, name):
        self.browser.get(self.daemon.base + "/#/doc/" + name)
        self.wait_ready()

    def wait_ready(self, end=None):
        def ready():
            body = self.browser.find_element(By.TAG_NAME, "body")
            if body.get_attribute("data-state") != "ready":
                return False
            return end is None or body.get_attribute("data-end") == str(end)
        self.daemon.wait_for(ready, what="the workspace to be ready")

    def js(self, script, *arguments):
        return self.browser.execute_script(script, *arguments)

    def page_box(self):
        """The page image's place in the viewport, and its size in points (as /api/document says)."""
        rect = self.js("const r = document.getElementById('page-canvas').getBoundingClientRect();"
                       "return [r.left, r.top, r.width, r.height];")
        return rect

    def viewport(self, name, point):
        """A point of the page as shown (points, y down) in viewport pixels."""
        _, info = self.client.json("GET", "/api/document?path=" + name)
        page = info["pages"][int(self.js("return document.getElementById('page-number').value || 1") or 1) - 1]
        left, top, width, height = self.page_box()
        return (round(left + point[0] * width / page["width"]), round(top + point[1] * height / page["height"]))

    def drag(self, name, points, hold=0):
        mouse = PointerInput(interaction.POINTER_MOUSE, "mouse")
        actions = ActionBuilder(self.browser, mouse=mouse, duration=10)
        first = self.viewport(name, points[0])
        actions.pointer_action.move_to_location(*first).pointer_down()
        for point in points[1:]:
            actions.pointer_action.move_to_location(*self.viewport(name, point))
        if hold:
            actions.pointer_action.pause(hold)
        actions.pointer_action.pointer_up()
        actions.perform()

    def tap(self, name, point):
        self.drag(name, [point])

    def held_stroke(self, name, points):
        """A mouse stroke through the points, held still at its end for a second before it is let go."""
        self.drag(name, points, hold=1.0)

    def marked_pixels(self):
        """Pixels of the shown page image, in the region 100..300 x 100..104 pt, that are not paper-white."""
        return self.js("""
            const img = document.getElementById('page-image');
            const canvas = document.createElement('canvas');
            canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
            const context = canvas.getContext('2d');
            context.drawImage(img, 0, 0);
            const scale = img.naturalWidth / 612;
            const data = context.getImageData(Math.round(100 * scale), Math.round(99 * scale), Math.round(200 * scale),
                                              Math.max(2, Math.round(4 * scale))).data;
            let marked = 0;
            for (let i = 0; i < data.length; i += 4) if (Math.min(data[i], data[i + 1], data[i + 2]) < 200) marked++;
            return marked;""")

    def drag_thumbnail(self, page, onto):
        """HTML5 drag and drop of one strip thumbnail onto another, event by event as a browser fires them."""
        source = self.browser.find_element(By.CSS_SELECTOR, f'.thumb[data-page="{page}"]')
        target = self.browser.find_element(By.CSS_SELECTOR, f'.thumb[data-page="{onto}"]')
        self.js("""
            const [source, target] = arguments;
            const data = new DataTransfer();
            for (const [element, type] of [[source, 'dragstart'], [target, 'dragenter'], [target, 'dragover'], [target, 'drop'], [source, 'dragend']]) {
                element.dispatchEvent(new DragEvent(type, {bubbles: true, cancelable: true, dataTransfer: data}));
            }""", source, target)

    def click(self, element_id):
        self.browser.find_element(By.ID, element_id).click()

    def save(self, name):
        before = os.path.getsize(self.daemon.path("library", name))
        self.click("save")
        self.daemon.wait_for(lambda: os.path.getsize(self.daemon.path("library", name)) != before, what="the save's revision")
        self.wait_ready(end=os.path.getsize(self.daemon.path("library", name)))

    def annotations(self, name, kind=None):
        found = self.daemon.annotations(name)
        return [a for a in found if kind is None or a["kind"] == kind]

    # MARK: scenarios

    def test_01_log_in_and_open_a_document(self):
        self.document("Letters/Welcome.pdf")
        self.browser.get(self.daemon.base + "/")
        self.daemon.wait_for(lambda: self.browser.find_elements(By.CSS_SELECTOR, '.doc-link[data-path="Letters/Welcome.pdf"]'),
                             what="the library to list the document")
        self.browser.find_element(By.CSS_SELECTOR, '.doc-link[data-path="Letters/Welcome.pdf"]').click()
        self.wait_ready()
        self.assertEqual(self.js("return document.getElementById('strip').dataset.pages"), "1")
        self.assertTrue(self.js("const i = document.getElementById('page-image'); return i.complete && i.naturalWidth > 0"))

    def test_02_a_pen_stroke_lands_where_it_was_drawn(self):
        path = self.document("Pen.pdf")
        before = render(path)
        self.open("Pen.pdf")
        self.click("tool-pen")
        points = [(200, 400), (260, 430), (320, 400), (380, 440), (440, 410)]
        self.drag("Pen.pdf", points)
        self.assertEqual(self.js("return document.getElementById('unsaved-count').textContent").strip()[:1], "1")
        self.save("Pen.pdf")
        inks = self.annotations("Pen.pdf", "Ink")
        self.assertEqual(len(inks), 1)
        # The annotation's rect (user space, y up) holds the points drawn (page 792 high).
        x0, y0, x1, y1 = inks[0]["rect"]
        self.assertLessEqual(x0, 200); self.assertGreaterEqual(x1, 440)
        self.assertLessEqual(y0, 792 - 440); self.assertGreaterEqual(y1, 792 - 400)
        after = render(path)
        self.assertGreater(changed_pixels(before, after, (195, 395, 445, 445)), 100, "the stroke's pixels are not where it was drawn")
        self.assertEqual(changed_pixels(before, after, (50, 600, 550, 780)), 0, "pixels changed away from the stroke")
        self.assertEqual(len(self.daemon.history("Pen.pdf")), 2)
        assert_readers_agree(path, 1)

    def test_03_highlight_a_phrase_by_dragging_across_it(self):
        path = self.document("Highlight.pdf")
        self.open("Highlight.pdf")
        self.click("tool-highlight")
        _, words = self.client.json("GET", "/api/words?path=Highlight.pdf&page=1")
        boxes = {w["text"]: w["box"] for w in words["words"]}
        quick, brown = boxes["quick"], boxes["brown"]
        self.drag("Highlight.pdf", [(quick[0] + 2, (quick[1] + quick[3]) / 2), (brown[2] - 2, (brown[1] + brown[3]) / 2)])
        # The highlight is added once the page's words have come (GET /api/words): Save waits for it.
        self.daemon.wait_for(lambda: self.browser.find_element(By.ID, "unsaved-count").get_attribute("data-count") == "1",
                             what="the highlight")
        self.save("Highlight.pdf")
        highlights = self.annotations("Highlight.pdf", "Highlight")
        self.assertEqual(len(highlights), 1)
        x0, y0, x1, y1 = highlights[0]["rect"]
        # It covers "quick brown" and not "The" or "fox".
        self.assertLessEqual(x0, quick[0] + 1); self.assertGreaterEqual(x1, brown[2] - 1)
        self.assertGreater(x0, boxes["The"][2] - 1); self.assertLess(x1, boxes["fox"][0] + 1)
        self.assertLessEqual(y0, 792 - quick[3] + 1); self.assertGreaterEqual(y1, 792 - quick[1] - 1)
        assert_readers_agree(path, 1)

    def test_04_place_a_saved_signature(self):
        path = self.document("Sign.pdf")
        self.open("Sign.pdf")
        self.click("tool-signature")
        self.daemon.wait_for(lambda: self.browser.find_elements(By.CSS_SELECTOR, '.signature-item[data-name="jane"]'),
                             what="the saved signature in the menu")
        self.browser.find_element(By.CSS_SELECTOR, '.signature-item[data-name="jane"]').click()
        self.drag("Sign.pdf", [(300, 500), (450, 560)])
        self.save("Sign.pdf")
        stamps = [a for a in self.annotations("Sign.pdf") if a["kind"] in ("Stamp", "Ink")]
        self.assertEqual(len(stamps), 1, self.annotations("Sign.pdf"))
        x0, y0, x1, y1 = stamps[0]["rect"]
        self.assertGreaterEqual(x0, 299); self.assertLessEqual(x1, 451)
        self.assertGreaterEqual(y0, 792 - 561); self.assertLessEqual(y1, 792 - 499)
        assert_readers_agree(path, 1)

    def test_05_draw_and_save_a_new_signature_then_place_it(self):
        path = self.document("NewSign.pdf")
        self.open("NewSign.pdf")
        self.click("tool-signature")
        self.daemon.wait_for(lambda: self.browser.find_element(By.ID, "new-signature").is_displayed(), what="the menu")
        self.click("new-signature")
        pad = self.browser.find_element(By.ID, "signature-pad")
        self.daemon.wait_for(pad.is_displayed, what="the signature pad")
        sign_on_pad(self.browser, PointerInput(interaction.POINTER_MOUSE, "mouse"))
        self.browser.find_element(By.ID, "signature-name").send_keys("mine")
        self.click("signature-save")
        # In the menu once the save is answered, which is after the file is written and synced (the
        # file exists, empty, a moment before: it is made with O_EXCL, then written).
        self.daemon.wait_for(lambda: self.browser.find_elements(By.CSS_SELECTOR, '.signature-item[data-name="mine"]'),
                             what="the new signature in the menu")
        with open(self.daemon.path("signatures", "mine.json")) as f:
            self.assertGreaterEqual(len(json.load(f)["strokes"][0]), 5)
        if not self.browser.find_element(By.CSS_SELECTOR, '.signature-item[data-name="mine"]').is_displayed():
            self.click("tool-signature")
        self.browser.find_element(By.CSS_SELECTOR, '.signature-item[data-name="mine"]').click()
        self.drag("NewSign.pdf", [(100, 600), (260, 660)])
        self.save("NewSign.pdf")
        self.assertEqual(len([a for a in self.annotations("NewSign.pdf") if a["kind"] in ("Stamp", "Ink")]), 1)
        assert_readers_agree(path, 1)

    def test_06_erase_one_annotation(self):
        path = self.document("Erase.pdf")
        self.open("Erase.pdf")
        self.click("tool-rect")
        self.drag("Erase.pdf", [(100, 300), (200, 360)])
        self.click("tool-oval")
        self.drag("Erase.pdf", [(300, 300), (400, 360)])
        self.save("Erase.pdf")
        self.assertEqual(sorted(a["kind"] for a in self.annotations("Erase.pdf")), ["Circle", "Square"])
        self.click("tool-eraser")
        # Tap on the rectangle's edge.
        self.tap("Erase.pdf", (100, 330))
        self.daemon.wait_for(lambda: self.js("return document.getElementById('unsaved-count').textContent").strip()[:1] == "1",
                             what="the erase to be queued")
        self.save("Erase.pdf")
        self.assertEqual([a["kind"] for a in self.annotations("Erase.pdf")], ["Circle"])
        self.assertEqual(len(self.daemon.history("Erase.pdf")), 3)
        assert_readers_agree(path, 1)

    def test_07_undo_and_redo_a_revision(self):
        path = self.document("Undo.pdf")
        with open(path, "rb") as f:
            original = f.read()
        self.open("Undo.pdf")
        self.click("tool-pen")
        self.drag("Undo.pdf", [(100, 100), (200, 150)])
        self.save("Undo.pdf")
        with open(path, "rb") as f:
            edited = f.read()
        self.assertNotEqual(edited, original)
        self.click("undo")
        self.daemon.wait_for(lambda: os.path.getsize(path) == len(original), what="the undo")
        self.wait_ready(end=len(original))
        with open(path, "rb") as f:
            self.assertEqual(f.read(), original)
        self.click("redo")
        self.daemon.wait_for(lambda: os.path.getsize(path) == len(edited), what="the redo")
        self.wait_ready(end=len(edited))
        with open(path, "rb") as f:
            self.assertEqual(f.read(), edited)
        assert_readers_agree(path, 1)

    def test_08_rotate_and_move_a_page(self):
        import pypdf
        path = self.numbered_pages("Pages.pdf", 3)
        self.open("Pages.pdf")
        self.click("page-rotate")
        self.save("Pages.pdf")
        self.assertEqual(pypdf.PdfReader(path).pages[0].rotation, 90)
        # Drag page 3's thumbnail onto page 1's: page 3 comes first.
        self.drag_thumbnail(3, onto=1)
        self.save("Pages.pdf")
        texts = [page.extract_text().strip() for page in pypdf.PdfReader(path).pages]
        self.assertEqual([t[-1] for t in texts], ["3", "1", "2"], texts)
        self.assertEqual([page.rotation for page in pypdf.PdfReader(path).pages], [0, 90, 0])
        self.assertEqual(len(self.daemon.history("Pages.pdf")), 3)
        assert_readers_agree(path, 3)

    def test_09_a_page_appears_while_a_file_is_dropped_into_the_inbox(self):
        first = self.daemon.path("first.pdf")
        text_pdf(first, ["The first page"])
        self.daemon.drop("first.pdf", first)
        target = self.daemon.path("library", "Inbox.pdf")
        self.daemon.wait_for(lambda: os.path.exists(target), what="Inbox.pdf")
        self.open("Inbox.pdf")
        pages = int(self.js("return document.getElementById('strip').dataset.pages"))
        self.js("window.notReloaded = true")
        second = self.daemon.path("second.pdf")
        text_pdf(second, ["A second page, dropped while the document is open"])
        self.daemon.drop("second.pdf", second)
        self.daemon.wait_for(lambda: self.browser.find_elements(By.CSS_SELECTOR, f'.thumb[data-page="{pages + 1}"] img'),
                             what="the new page's thumbnail, without a reload")
        self.daemon.wait_for(lambda: self.js(f"const i = document.querySelector('.thumb[data-page=\"{pages + 1}\"] img');"
                                             "return !!i && !!i.currentSrc && i.complete && i.naturalWidth > 0"),
                             what="the new thumbnail's picture")
        self.assertTrue(self.js("return window.notReloaded === true"), "the page was reloaded")
        assert_readers_agree(target, pages + 1)

    def test_10_two_tabs_saving_over_each_other(self):
        path = self.document("Tabs.pdf")
        # The first tab draws and does not save yet.
        self.open("Tabs.pdf")
        first = self.browser.current_window_handle
        self.click("tool-oval")
        self.drag("Tabs.pdf", [(300, 300), (400, 400)])
        # A second tab saves meanwhile.
        self.browser.switch_to.new_window("tab")
        self.open("Tabs.pdf")
        self.click("tool-rect")
        self.drag("Tabs.pdf", [(100, 100), (200, 200)])
        self.save("Tabs.pdf")
        saved = os.path.getsize(path)
        self.browser.close()
        self.browser.switch_to.window(first)
        # The first tab's save is refused, not merged: the tab shows the document as it is now,
        # with its mark kept unsaved, and says so.
        self.click("save")
        self.wait_ready(end=saved)
        self.assertIn("changed", self.browser.find_element(By.ID, "message").text.lower())
        self.assertEqual(self.browser.find_element(By.ID, "unsaved-count").get_attribute("data-count"), "1")
        self.assertEqual(os.path.getsize(path), saved, "the second save was merged")
        self.assertEqual([a["kind"] for a in self.annotations("Tabs.pdf")], ["Square"])
        self.assertEqual(len(self.daemon.history("Tabs.pdf")), 2)
        # Saved again, on the revision it shows now: both marks, each in a revision of its own.
        self.save("Tabs.pdf")
        self.assertEqual(sorted(a["kind"] for a in self.annotations("Tabs.pdf")), ["Circle", "Square"])
        self.assertEqual(len(self.daemon.history("Tabs.pdf")), 3)
        assert_readers_agree(path, 1)

    def test_11_a_turned_cropped_page_is_marked_where_it_shows(self):
        path = self.document("Turned.pdf", rotate=90, crop=[50, 100, 562, 742])
        self.open("Turned.pdf")
        _, info = self.client.json("GET", "/api/document?path=Turned.pdf")
        self.assertEqual((info["pages"][0]["width"], info["pages"][0]["height"]), (642, 512))
        self.click("tool-rect")
        self.drag("Turned.pdf", [(100, 50), (200, 100)])
        self.save("Turned.pdf")
        squares = self.annotations("Turned.pdf", "Square")
        self.assertEqual(len(squares), 1)
        # Shown (x, y down) on a page turned 90 degrees and cropped: user x = crop x0 + y, user y = crop y0 + x.
        x0, y0, x1, y1 = squares[0]["rect"]
        self.assertAlmostEqual(x0, 50 + 50, delta=3); self.assertAlmostEqual(x1, 50 + 100, delta=3)
        self.assertAlmostEqual(y0, 100 + 100, delta=3); self.assertAlmostEqual(y1, 100 + 200, delta=3)
        assert_readers_agree(path, 1)

    def test_12_every_other_tool_makes_its_annotation(self):
        path = self.document("Tools.pdf")
        self.open("Tools.pdf")
        _, words = self.client.json("GET", "/api/words?path=Tools.pdf&page=1")
        boxes = {w["text"]: w["box"] for w in words["words"]}
        def across(word):
            box = boxes[word]
            return [(box[0] + 1, (box[1] + box[3]) / 2), (box[2] - 1, (box[1] + box[3]) / 2)]
        for tool, points in [("tool-marker", [(80, 300), (200, 320), (300, 300)]), ("tool-pencil", [(80, 350), (200, 370)]),
                             ("tool-underline", across("lazy")), ("tool-strikeout", across("dog")),
                             ("tool-line", [(80, 450), (300, 450)]), ("tool-arrow", [(80, 500), (300, 560)])]:
            self.click(tool)
            self.drag("Tools.pdf", points)
        self.click("tool-textbox")
        self.drag("Tools.pdf", [(320, 600), (560, 660)])
        self.daemon.wait_for(lambda: self.browser.find_element(By.ID, "text-input").is_displayed(), what="the text box's input")
        self.browser.find_element(By.ID, "text-input").send_keys("Checked by hand")
        self.js("document.getElementById('text-input').dispatchEvent(new KeyboardEvent('keydown', "
                "{key: 'Enter', ctrlKey: true, bubbles: true}))")
        self.click("tool-note")
        self.tap("Tools.pdf", (500, 100))
        self.daemon.wait_for(lambda: self.browser.find_element(By.ID, "text-input").is_displayed(), what="the note's input")
        self.browser.find_element(By.ID, "text-input").send_keys("Call back")
        self.js("document.getElementById('text-input').dispatchEvent(new KeyboardEvent('keydown', "
                "{key: 'Enter', ctrlKey: true, bubbles: true}))")
        self.save("Tools.pdf")
        kinds = sorted(a["kind"] for a in self.annotations("Tools.pdf"))
        self.assertEqual(kinds, ["FreeText", "Ink", "Ink", "Line", "Line", "StrikeOut", "Text", "Underline"])
        contents = {a["kind"]: a.get("contents") for a in self.annotations("Tools.pdf")}
        self.assertEqual(contents["Text"], "Call back")
        self.assertEqual(contents["FreeText"], "Checked by hand")
        self.assertEqual(len(self.daemon.history("Tools.pdf")), 2, "one revision for the whole save")
        assert_readers_agree(path, 1)

    def test_13_unsaved_strokes_undo_and_redo_in_the_page(self):
        path = self.document("Local.pdf")
        self.open("Local.pdf")
        self.click("tool-pen")
        self.drag("Local.pdf", [(100, 300), (200, 320)])
        self.drag("Local.pdf", [(100, 400), (200, 420)])
        self.drag("Local.pdf", [(100, 500), (200, 520)])
        body = self.browser.find_element(By.TAG_NAME, "body")
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys
        ActionChains(self.browser).key_down(Keys.CONTROL).send_keys("z").send_keys("z").key_up(Keys.CONTROL).perform()
        ActionChains(self.browser).key_down(Keys.CONTROL).key_down(Keys.SHIFT).send_keys("z").key_up(Keys.SHIFT).key_up(Keys.CONTROL).perform()
        del body
        self.save("Local.pdf")
        inks = self.annotations("Local.pdf", "Ink")
        self.assertEqual(len(inks), 2, "three strokes, two undone, one redone")
        tops = sorted(792 - a["rect"][3] for a in inks)
        self.assertAlmostEqual(tops[0], 300, delta=5)
        self.assertAlmostEqual(tops[1], 400, delta=5)
        assert_readers_agree(path, 1)

    def test_14_delete_and_insert_pages(self):
        import pypdf
        path = self.numbered_pages("Ops.pdf", 2)
        self.open("Ops.pdf")
        self.click("page-insert")
        self.save("Ops.pdf")
        self.assertEqual(len(pypdf.PdfReader(path).pages), 3)
        self.assertEqual(pypdf.PdfReader(path).pages[1].extract_text().strip(), "", "the blank page follows page 1")
        self.browser.find_element(By.CSS_SELECTOR, '.thumb[data-page="1"]').click()
        self.click("page-delete")
        self.save("Ops.pdf")
        texts = [page.extract_text().strip() for page in pypdf.PdfReader(path).pages]
        self.assertEqual(texts, ["", "Page number 2"])
        self.assertEqual(self.js("return document.getElementById('strip').dataset.pages"), "2")
        assert_readers_agree(path, 2)

    def test_15_history_shows_the_document_as_a_revision_left_it(self):
        path = self.document("History.pdf")
        first = os.path.getsize(path)
        before = render(path)
        self.open("History.pdf")
        self.click("tool-rect")
        self.drag("History.pdf", [(100, 100), (300, 200)])
        self.save("History.pdf")
        self.daemon.wait_for(lambda: len(self.browser.find_elements(By.CSS_SELECTOR, ".revision")) == 2, what="two revisions")
        self.browser.find_element(By.CSS_SELECTOR, f'.revision[data-end="{first}"]').click()
        self.daemon.wait_for(lambda: self.browser.find_element(By.ID, "revision-banner").is_displayed(), what="the banner")
        self.daemon.wait_for(lambda: f"end={first}" in (self.js("return document.getElementById('page-image').currentSrc") or ""),
                             what="the page as the first revision left it")
        self.wait_ready()
        # What the browser shows is the first revision's page: no rectangle in it.
        self.assertEqual(self.marked_pixels(), 0, "the old revision's page shows the rectangle saved after it")
        self.assertFalse(self.browser.find_element(By.ID, "save").is_enabled())
        self.click("back-to-current")
        self.daemon.wait_for(lambda: not self.browser.find_element(By.ID, "revision-banner").is_displayed(), what="the current document")
        self.wait_ready()
        self.daemon.wait_for(lambda: self.marked_pixels() > 100, what="the current page, with its rectangle")
        del before
        assert_readers_agree(path, 1)

    def test_16_the_status_view_shows_a_quarantined_file_without_a_reload(self):
        self.browser.get(self.daemon.base + "/#/status")
        self.daemon.wait_for(lambda: self.browser.find_elements(By.CSS_SELECTOR, "#status"), what="the status view")
        self.js("window.notReloaded = true")
        rows = len(self.browser.find_elements(By.CSS_SELECTOR, ".quarantine-row"))
        with open(self.daemon.path("inbox", "broken.png"), "w") as f:
            f.write("this is not a PNG")
        self.daemon.wait_for(lambda: len(self.browser.find_elements(By.CSS_SELECTOR, ".quarantine-row")) == rows + 1,
                             what="the quarantined file in the status view")
        self.assertIn("broken.png", self.browser.find_element(By.ID, "status").text)
        self.assertTrue(self.js("return window.notReloaded === true"), "the page was reloaded")

    def test_17_queued_page_operations_show_before_saving(self):
        import pypdf
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys
        path = self.numbered_pages("Preview.pdf", 3)
        self.open("Preview.pdf")
        strip = """return [...document.querySelectorAll('#strip .thumb')].map(t => [t.dataset.page, t.dataset.preview || '',
                                                                               t.querySelector('img').style.transform])"""
        self.click("page-rotate")
        self.assertEqual(self.js(strip), [["1", "rotate-90", "rotate(90deg)"], ["2", "", ""], ["3", "", ""]])
        self.assertEqual(self.js("return document.getElementById('page-frame').style.transform"), "rotate(90deg)",
                         "the page shown turns with its thumbnail")
        # A turned thumbnail takes the room of the page as turned: wider than high.
        width, height = self.js("const r = document.querySelector('.thumb[data-page=\"1\"] img').getBoundingClientRect();"
                                "return [r.width, r.height];")
        self.assertGreater(width, height)
        # Drag page 3's thumbnail onto page 1's: the strip shows page 3 first, before Save.
        self.drag_thumbnail(3, onto=1)
        queued = [["3", "", ""], ["1", "rotate-90", "rotate(90deg)"], ["2", "", ""]]
        self.assertEqual(self.js(strip), queued)
        self.assertEqual(self.js("return [...document.querySelectorAll('#strip .thumb')].map(t => t.dataset.position)"), ["1", "2", "3"])
        # Local undo and redo move the preview too.
        ActionChains(self.browser).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform()
        self.assertEqual(self.js(strip), [["1", "rotate-90", "rotate(90deg)"], ["2", "", ""], ["3", "", ""]])
        self.click("redo")
        self.assertEqual(self.js(strip), queued)
        self.save("Preview.pdf")
        texts = [page.extract_text().strip() for page in pypdf.PdfReader(path).pages]
        self.assertEqual([t[-1] for t in texts], ["3", "1", "2"], texts)
        self.assertEqual([page.rotation for page in pypdf.PdfReader(path).pages], [0, 90, 0])
        # After Save the strip is the server's document again, nothing previewed.
        self.assertEqual(self.js(strip), [["1", "", ""], ["2", "", ""], ["3", "", ""]])
        self.assertEqual(self.js("return document.getElementById('page-frame').style.transform"), "")
        self.assertEqual(len(self.daemon.history("Preview.pdf")), 2)
        assert_readers_agree(path, 3)

    def test_18_a_highlight_across_a_line_break_follows_the_text(self):
        import pypdf
        path = self.document("Across.pdf")
        self.open("Across.pdf")
        _, words = self.client.json("GET", "/api/words?path=Across.pdf&page=1")
        boxes = {w["text"]: w["box"] for w in words["words"]}
        jumps, over = boxes["jumps"], boxes["over"]
        self.click("tool-highlight")
        # From the last word of the first line to the first of the second, as one selects a phrase.
        self.drag("Across.pdf", [(jumps[0] + 2, (jumps[1] + jumps[3]) / 2), (over[2] - 2, (over[1] + over[3]) / 2)])
        self.save("Across.pdf")
        annotation = next(a.get_object() for a in pypdf.PdfReader(path).pages[0]["/Annots"]
                          if a.get_object()["/Subtype"] == "/Highlight")
        quads = [float(v) for v in annotation["/QuadPoints"]]
        spans = sorted((min(quads[i:i + 8:2]), max(quads[i:i + 8:2])) for i in range(0, len(quads), 8))
        # One quad for "over" (line 2, starting at the margin), one for "jumps" alone, not the whole first line.
        self.assertEqual(len(spans), 2, quads)
        self.assertAlmostEqual(spans[0][0], over[0], delta=2); self.assertAlmostEqual(spans[0][1], over[2], delta=2)
        self.assertAlmostEqual(spans[1][0], jumps[0], delta=2); self.assertAlmostEqual(spans[1][1], jumps[2], delta=2)
        assert_readers_agree(path, 1)

    def photo_document(self, name, spec):
        """A phone photo of a letter on a table (Tests/Fixtures/photo-scenes), ingested into library/NAME
        with find_page and clean, as a rule of the inbox does; returns the sheet's corners in the photo."""
        photo = self.daemon.path(os.path.basename(name) + ".jpg")
        scene = os.path.join(ROOT, "Tests", "Fixtures", "photo-scenes", "scene.py")
        corners = json.loads(subprocess.run(["python3", scene, photo, json.dumps(spec)], check=True, capture_output=True,
                                            text=True).stdout)["corners"]
        config = self.daemon.path(os.path.basename(name) + ".toml")
        with open(config, "w") as f:
            f.write(f'[daemon]\nstate_dir = "state"\n[library]\nroot = "library"\n[inbox]\npath = "inbox"\n'
                    f'[[rule]]\nname = "phone"\ntarget = "{name}"\nfind_page = true\nclean = "auto"\n')
        subprocess.run([BIN, "ingest", "--config", config, photo], check=True, capture_output=True)
        return corners, photo

    def page_size(self, path):
        info = subprocess.run(["pdfinfo", path], check=True, capture_output=True, text=True).stdout
        width, height = re.search(r"Page size:\s+([0-9.]+) x ([0-9.]+) pts", info).groups()
        return float(width), float(height)

    def crop_again(self, name, corners=None, whole=False, photo_size=None):
        """Open the crop dialog, drag each corner to `corners` (fractions of the photo, or pixels of a
        photo of `photo_size`; None leaves that corner where it is) or press Whole photo, and crop:
        one revision."""
        before = os.path.getsize(self.daemon.path("library", name))
        self.click("page-reframe")
        self.daemon.wait_for(lambda: self.js("return document.getElementById('reframe-dialog').dataset.ready === 'true'"),
                             what="the photo in the crop dialog")
        if whole:
            self.click("reframe-whole")
        for number, corner in enumerate(corners or []):
            if corner is None:
                continue
            x, y = corner
            if photo_size:
                x, y = (x + 0.5) / photo_size[0], (y + 0.5) / photo_size[1]
            handle = self.browser.find_element(By.CSS_SELECTOR, f'.reframe-corner[data-corner="{number}"]')
            start = self.js("const r = arguments[0].getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2];", handle)
            box = self.js("const r = document.getElementById('reframe-photo').getBoundingClientRect(); return [r.left, r.top, r.width, r.height];")
            mouse = PointerInput(interaction.POINTER_MOUSE, "mouse")
            actions = ActionBuilder(self.browser, mouse=mouse, duration=10)
            actions.pointer_action.move_to_location(round(start[0]), round(start[1])).pointer_down()
            target = (box[0] + x * box[2], box[1] + y * box[3])
            for step in (0.5, 1):
                actions.pointer_action.move_to_location(round(start[0] + (target[0] - start[0]) * step),
                                                        round(start[1] + (target[1] - start[1]) * step))
            actions.pointer_action.pointer_up()
            actions.perform()
        self.click("reframe-save")
        path = self.daemon.path("library", name)
        self.daemon.wait_for(lambda: os.path.getsize(path) != before, what="the crop's revision")
        # The file grows while the revision is written: the view is ready at the file's length as it
        # ends, not at a length seen half-way.
        body = lambda: self.browser.find_element(By.TAG_NAME, "body")
        self.daemon.wait_for(lambda: body().get_attribute("data-state") == "ready"
                             and body().get_attribute("data-end") == str(os.path.getsize(path)), what="the cropped page shown")

    def test_19_a_photographed_page_is_cropped_again_by_dragging_its_corners(self):
        # A page with no photo behind it cannot be cropped again.
        self.document("Plain.pdf")
        self.open("Plain.pdf")
        self.assertTrue(self.browser.find_element(By.ID, "page-reframe").get_attribute("disabled"))
        corners, photo = self.photo_document("Photo.pdf", {"angle": 8, "tilt": 22, "shadow": True, "size": [1600, 1200]})
        path = self.daemon.path("library", "Photo.pdf")
        self.open("Photo.pdf")
        self.assertFalse(self.browser.find_element(By.ID, "page-reframe").get_attribute("disabled"))
        # Back to the whole photo, table and all: 1600 x 1200 pixels at 300 dpi.
        self.crop_again("Photo.pdf", whole=True)
        width, height = self.page_size(path)
        self.assertAlmostEqual(width, 384, delta=1)
        self.assertAlmostEqual(height, 288, delta=1)
        # Then each corner dragged onto the sheet's own corner: the letter again, A4.
        self.crop_again("Photo.pdf", corners=[((x + 0.5) / 1600, (y + 0.5) / 1200) for x, y in corners])
        width, height = self.page_size(path)
        self.assertAlmostEqual(width, 595.3, delta=1.5)
        self.assertAlmostEqual(height, 841.9, delta=1.5)
        difference = subprocess.run(["python3", "-c", """
import subprocess, sys
from PIL import Image, ImageChops, ImageFilter, ImageStat
page = Image.open(sys.argv[2]).convert("L")
subprocess.run(["pdftoppm", "-r", "150", "-gray", "-singlefile", "-png", sys.argv[1], sys.argv[1] + ".render"], check=True)
shown = Image.open(sys.argv[1] + ".render.png").convert("L").resize(page.size, Image.BILINEAR)
blur = ImageFilter.GaussianBlur(2)
print(ImageStat.Stat(ImageChops.difference(shown.filter(blur), page.filter(blur))).mean[0])
""", path, photo + ".page.png"], check=True, capture_output=True, text=True).stdout
        self.assertLess(float(difference), 14, "the page cut along the dragged corners looks like the letter as drawn")
        history = self.daemon.history("Photo.pdf")
        self.assertEqual(len(history), 3, history)
        self.assertIn("cut again from its photo along the corners given: A4 sheet", history[-1])
        assert_readers_agree(path, 1)

    def test_20_a_sheet_not_found_opens_the_crop_dialog_at_its_best_candidate(self):
        # The table right of the sheet as white as the paper: find_page finds no convincing sheet and
        # keeps the whole photo, with the best candidate it saw.
        corners, photo = self.photo_document("Board.pdf", {"angle": 10, "tilt": 15, "size": [1600, 1200], "white_right": True})
        path = self.daemon.path("library", "Board.pdf")
        self.assertAlmostEqual(self.page_size(path)[0], 384, delta=1, msg="the page is the whole photo")
        self.open("Board.pdf")
        before = os.path.getsize(path)
        self.click("page-reframe")
        self.daemon.wait_for(lambda: self.js("return document.getElementById('reframe-dialog').dataset.ready === 'true'"),
                             what="the photo in the crop dialog")
        # The corners start at the best candidate, not at the photo's corners: the left ones on the
        # sheet's own (its left side shows an edge), the right ones inside the sheet.
        shown = self.js("const i = document.getElementById('reframe-photo'); return [i.clientWidth, i.clientHeight];")
        for number in (0, 3):
            handle = self.browser.find_element(By.CSS_SELECTOR, f'.reframe-corner[data-corner="{number}"]')
            cx, cy = float(handle.get_attribute("cx")), float(handle.get_attribute("cy"))
            self.assertAlmostEqual(cx / shown[0] * 1600, corners[number][0], delta=25, msg=f"corner {number}")
            self.assertAlmostEqual(cy / shown[1] * 1200, corners[number][1], delta=25, msg=f"corner {number}")
        self.assertEqual(self.browser.find_element(By.ID, "reframe-reset").text, "Best guess")
        self.click("reframe-cancel")
        # Nudged: the two right corners dragged out to the sheet's; the letter, A4.
        self.crop_again("Board.pdf", corners=[None, corners[1], corners[2], None], photo_size=(1600, 1200))
        width, height = self.page_size(path)
        self.assertAlmostEqual(width, 595.3, delta=1.5)
        self.assertAlmostEqual(height, 841.9, delta=1.5)
        assert_readers_agree(path, 1)

    def test_21_desktop_zoom_about_the_pointer_and_drawing_stays_exact(self):
        path = self.document("Zoom.pdf")
        before = render(path)
        self.open("Zoom.pdf")
        zoom = lambda: float(self.js("return document.body.dataset.zoom"))
        width = lambda: self.js("return document.getElementById('page-image').getBoundingClientRect().width")
        # The menu: 200 % of the actual size is the page's 612 points at 96 px an inch, twice.
        from selenium.webdriver.support.ui import Select
        # Zoomed far (300 %: 2,450 pixels across), the part on screen comes first, as sharp as the
        # whole page asked for once it has come.
        self.js("performance.clearResourceTimings()")
        Select(self.browser.find_element(By.ID, "zoom")).select_by_value("3")
        self.wait_ready()
        asked = self.js("""return performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/page?'))
                           .map((e) => [e.name, e.startTime, e.responseEnd])""")
        part = [a for a in asked if "region=" in a[0]]
        whole = [a for a in asked if "region=" not in a[0] and "width=2450" in a[0]]
        self.assertEqual((len(part), len(whole)), (1, 1), asked)
        self.assertIn("width=2450", part[0][0])
        self.assertLessEqual(part[0][2], whole[0][1] + 1, "the whole page was asked for once the part on screen had come")
        self.assertTrue(self.js("return document.getElementById('page-tile').hidden"), "the part goes once the whole page is there")
        Select(self.browser.find_element(By.ID, "zoom")).select_by_value("2")
        self.wait_ready()
        self.assertAlmostEqual(width(), 612 * 96 / 72 * 2, delta=2)
        # Ctrl + wheel zooms about the pointer: the page's point under it stays under it.
        def point_under(x, y):
            left, top, w, h = self.page_box()
            return ((x - left) * 612 / w, (y - top) * 792 / h)
        self.key("0")
        self.daemon.wait_for(lambda: zoom() == 1, what="fitted again")
        x, y = self.viewport("Zoom.pdf", (300, 300))
        was = point_under(x, y)
        self.js("""
            const [x, y] = arguments;
            document.getElementById('page-area').dispatchEvent(new WheelEvent('wheel',
                {deltaY: -300, ctrlKey: true, clientX: x, clientY: y, bubbles: true, cancelable: true}));""", x, y)
        self.daemon.wait_for(lambda: zoom() > 1.5, what="zoomed in about the pointer")
        self.wait_ready()
        now = point_under(x, y)
        self.assertAlmostEqual(now[0], was[0], delta=3)
        self.assertAlmostEqual(now[1], was[1], delta=3)
        # + and − step through the menu's sizes.
        shown = self.js("return document.getElementById('zoom').selectedOptions[0].textContent")
        self.key("+")
        self.daemon.wait_for(lambda: self.js("return document.getElementById('zoom').value") not in ("fit", "between"),
                             what="a size of the menu")
        self.assertNotEqual(self.js("return document.getElementById('zoom').selectedOptions[0].textContent"), shown)
        # A pen stroke at the zoom lands where it is drawn on the page.
        self.js("const area = document.getElementById('page-area'); area.scrollTop = 0; area.scrollLeft = 0;")
        self.click("tool-pen")
        points = [(100, 120), (150, 140), (200, 120)]
        self.drag("Zoom.pdf", points)
        self.save("Zoom.pdf")
        inks = self.annotations("Zoom.pdf", "Ink")
        self.assertEqual(len(inks), 1)
        x0, y0, x1, y1 = inks[0]["rect"]
        self.assertLessEqual(x0, 100); self.assertGreaterEqual(x1, 200)
        self.assertLessEqual(y0, 792 - 140); self.assertGreaterEqual(y1, 792 - 120)
        self.assertLess(x1 - x0, 130, "no wider than drawn")
        after = render(path)
        self.assertGreater(changed_pixels(before, after, (95, 115, 205, 145)), 30, "the stroke's pixels are where it was drawn")
        self.assertEqual(changed_pixels(before, after, (300, 300, 600, 780)), 0, "pixels changed away from the stroke")
        self.key("0")

    def test_22_colours_a_palette_the_recent_ones_and_each_tools_own(self):
        path = self.document("Colours.pdf")
        before = render(path)
        self.open("Colours.pdf")
        self.click("tool-pen")
        self.browser.find_element(By.CSS_SELECTOR, '#swatches .swatch.palette[data-color="#1a3a9e"]').click()
        self.assertEqual(self.js("return document.getElementById('color').value"), "#1a3a9e")
        self.drag("Colours.pdf", [(100, 500), (200, 520), (300, 500)])
        self.save("Colours.pdf")
        after = render(path)
        drawn = [after.getpixel((x, y)) for x in range(95, 305) for y in range(495, 525)
                 if sum(abs(p - q) for p, q in zip(after.getpixel((x, y)), before.getpixel((x, y)))) > 60]
        self.assertGreater(len(drawn), 30)
        # The stroke's core is the colour chosen (its edges blend into the paper).
        core = min(drawn, key=sum)
        self.assertTrue(all(abs(c - want) <= 30 for c, want in zip(core, (0x1a, 0x3a, 0x9e))), f"the stroke is #1a3a9e: {core}")
        self.assertTrue(all(b >= r and b >= g for r, g, b in drawn), f"every changed pixel is bluish: {drawn[:5]}")
        # After a reload: the pen keeps its colour, the marker its own, and blue is the newest recent one.
        self.browser.refresh()
        self.wait_ready()
        self.click("tool-pen")
        self.assertEqual(self.js("return document.getElementById('color').value"), "#1a3a9e")
        self.click("tool-marker")
        self.assertEqual(self.js("return document.getElementById('color').value"), "#ffe619")
        self.assertEqual(self.js("return document.querySelector('#swatches .swatch').dataset.color"), "#1a3a9e")
        self.assertIn("recent", self.js("return document.querySelector('#swatches .swatch').className"))
        self.click("tool-none")

    def test_23_a_stroke_held_at_its_end_becomes_a_shape_and_undo_gives_the_stroke_back(self):
        path = self.document("Shapes.pdf")
        self.open("Shapes.pdf")
        self.click("tool-pen")
        corners = [(150, 450), (350, 452), (348, 600), (152, 598), (153, 455)]
        points = [(a[0] + (b[0] - a[0]) * i / 8, a[1] + (b[1] - a[1]) * i / 8)
                  for a, b in zip(corners, corners[1:]) for i in range(8)] + [corners[-1]]
        self.held_stroke("Shapes.pdf", points)   # held still: the stroke becomes the shape it was drawn as
        labels = lambda: self.js("return document.getElementById('unsaved-count').title")
        self.assertEqual(labels(), "Rectangle on page 1")
        self.key(Keys.CONTROL + "z")
        self.daemon.wait_for(lambda: labels().startswith("Ink"), what="the stroke back after one undo")
        self.key(Keys.CONTROL + Keys.SHIFT + "z")
        self.daemon.wait_for(lambda: labels() == "Rectangle on page 1", what="the shape again")
        self.save("Shapes.pdf")
        squares = self.annotations("Shapes.pdf", "Square")
        self.assertEqual(len(squares), 1)
        self.assertEqual(self.annotations("Shapes.pdf", "Ink"), [])
        x0, y0, x1, y1 = squares[0]["rect"]
        self.assertAlmostEqual(x0, 150, delta=6); self.assertAlmostEqual(x1, 350, delta=6)
        self.assertAlmostEqual(y0, 792 - 600, delta=6); self.assertAlmostEqual(y1, 792 - 450, delta=6)
        self.click("tool-none")

    def test_24_lasso_select_move_recolour_turn_retype_and_delete_what_is_saved(self):
        path = self.document("Select.pdf")
        pristine = render(path)
        edits = [{"op": "rect", "page": 1, "box": [100, 100, 200, 160], "width": 3, "color": "#e61919"},
                 {"op": "ink", "page": 1, "strokes": [[[100, 600], [150, 620], [200, 600]]], "width": 3, "color": "#000000"},
                 {"op": "ink", "page": 1, "strokes": [[[300, 600], [350, 620], [400, 600]]], "width": 3, "color": "#000000"},
                 {"op": "signature", "page": 1, "name": "jane", "box": [350, 400, 470, 460]},
                 {"op": "textbox", "page": 1, "box": [100, 300, 300, 330], "text": "First words", "size": 12}]
        status, answer = self.client.json("POST", "/api/save", {"path": "Select.pdf", "base_end": os.path.getsize(path), "edits": edits})
        self.assertEqual(status, 200, answer)
        listed = self.annotations("Select.pdf")
        ids = {a["kind"] + str(i): a["id"] for i, a in enumerate(listed)}
        with open(path, "rb") as f:
            before_bytes = f.read()
        before = render(path)
        self.open("Select.pdf")
        self.click("tool-lasso")
        count = lambda: self.js("return document.getElementById('sel-count').textContent")
        labels = lambda: self.js("return document.getElementById('unsaved-count').title")

        # A tap takes the rectangle; a drag from inside it moves it 100 pt right and down; a swatch recolours it.
        self.daemon.wait_for(lambda: self.tap("Select.pdf", (150, 102)) or count() == "1 selected", what="the rectangle selected")
        self.drag("Select.pdf", [(150, 130), (200, 180), (250, 230)])
        self.assertEqual(labels(), "Change square on page 1")
        self.browser.find_element(By.CSS_SELECTOR, '#swatches .swatch.palette[data-color="#1a3a9e"]').click()
        self.assertEqual(labels(), "Change square on page 1", "the move and the colour are one change of one annotation")
        # A loop round both strokes takes both; Delete erases them.
        self.drag("Select.pdf", [(80, 560), (420, 560), (420, 650), (80, 650), (80, 565)])
        self.assertEqual(count(), "2 selected")
        self.key(Keys.DELETE)
        self.assertIn("Erase 2 annotations on page 1", labels())
        # The signature turned a quarter by its knob (above its top edge's middle), snapped to 90°.
        self.tap("Select.pdf", (410, 430))
        self.assertEqual(count(), "1 selected")
        sig = listed[3]["rect"]
        centre = ((sig[0] + sig[2]) / 2, 792 - (sig[1] + sig[3]) / 2)
        above = 30 / (self.js("return document.getElementById('page-image').clientWidth") / 612)   # 3 × the 10 px reach
        self.drag("Select.pdf", [(centre[0], 792 - sig[3] - above), (centre[0] + 40, centre[1] - 40), (centre[0] + 120, centre[1] + 1)])
        # The text box's words, retyped.
        self.tap("Select.pdf", (150, 315))
        self.click("sel-text")
        field = self.browser.find_element(By.ID, "text-input")
        self.assertEqual(field.get_attribute("value"), "First words")
        field.send_keys(Keys.CONTROL + "a")
        field.send_keys("Second words, and more of them")
        self.js("document.getElementById('text-input').dispatchEvent(new KeyboardEvent('keydown', "
                "{key: 'Enter', ctrlKey: true, bubbles: true}))")
        # Its size and colour from the controls, still selected: one change of the text box.
        self.js("const w = document.getElementById('width'); w.value = 16; w.dispatchEvent(new Event('input')); w.dispatchEvent(new Event('change'));")
        self.browser.find_element(By.CSS_SELECTOR, '#swatches .swatch.palette[data-color="#1a3a9e"]').click()
        self.assertEqual(len(labels().split("\n")), 4, labels())
        self.save("Select.pdf")

        after_list = self.annotations("Select.pdf")
        by_id = {a["id"]: a for a in after_list}
        self.assertEqual([a["id"] for a in after_list], [ids["Square0"], ids["Stamp3"], ids["FreeText4"]],
                         "the changed keep their ids and places; the erased are gone")
        x0, y0, x1, y1 = by_id[ids["Square0"]]["rect"]
        self.assertAlmostEqual(x0, 200, delta=1.5); self.assertAlmostEqual(x1, 300, delta=1.5)
        self.assertAlmostEqual(y0, 792 - 260, delta=1.5); self.assertAlmostEqual(y1, 792 - 200, delta=1.5)
        sx0, sy0, sx1, sy1 = by_id[ids["Stamp3"]]["rect"]
        old = listed[3]["rect"]
        self.assertAlmostEqual(sx1 - sx0, old[3] - old[1], delta=1.5, msg="turned a quarter: its width is the old height")
        self.assertAlmostEqual(sy1 - sy0, old[2] - old[0], delta=1.5)
        self.assertEqual(by_id[ids["FreeText4"]]["contents"], "Second words, and more of them")
        import pypdf
        [text_box] = [a.get_object() for a in pypdf.PdfReader(path).pages[0]["/Annots"] if a.get_object()["/Subtype"] == "/FreeText"]
        self.assertRegex(str(text_box["/DA"]), r"/Helv 16 Tf 0\.10\d* 0\.22\d* 0\.6\d* rg", "its size and colour")
        assert_readers_agree(path, 1)
        after = render(path)
        self.assertGreater(changed_pixels(before, after, (95, 95, 205, 165)), 300, "the rectangle left its old place")
        self.assertLess(changed_pixels(pristine, after, (95, 95, 205, 165)), 10, "nothing left where it was but the page")
        moved = [after.getpixel((x, 201)) for x in range(205, 295)]
        self.assertTrue(all(abs(c - w) <= 40 for c, w in zip(min(moved, key=sum), (0x1a, 0x3a, 0x9e))), f"blue at its new place: {min(moved, key=sum)}")
        self.assertGreater(changed_pixels(before, after, (95, 590, 405, 630)), 100, "the strokes are erased")
        self.assertEqual(len(self.daemon.history("Select.pdf")), 3, "one revision for the save")
        # Undo gives back the exact bytes.
        self.click("undo")
        self.daemon.wait_for(lambda: pathlib.Path(path).read_bytes() == before_bytes, what="undo to the bytes before the save")
        self.click("tool-none")

    def test_25_held_strokes_become_an_arrow_a_star_and_a_speech_bubble(self):
        import math
        path = self.document("Stars.pdf")
        before = render(path)
        self.open("Stars.pdf")
        self.click("tool-pen")
        along = lambda a, b, n: [(a[0] + (b[0] - a[0]) * i / n, a[1] + (b[1] - a[1]) * i / n) for i in range(n)]
        labels = lambda: self.js("return document.getElementById('unsaved-count').title").split("\n")
        # An arrow in one stroke: out to its tip, back along one side of its head.
        self.held_stroke("Stars.pdf", along((100, 700), (300, 600), 12) + along((300, 600), (278, 625), 4) + [(278, 625)])
        self.assertEqual(labels()[-1], "Arrow on page 1")
        # A pentagram round a centre, tip by tip.
        tips = [(300 + 80 * math.cos(-math.pi / 2 + k * 4 * math.pi / 5), 300 + 80 * math.sin(-math.pi / 2 + k * 4 * math.pi / 5)) for k in range(6)]
        self.held_stroke("Stars.pdf", [p for a, b in zip(tips, tips[1:]) for p in along(a, b, 8)] + [tips[-1]])
        self.assertEqual(labels()[-1], "Star on page 1")
        # An oval with a tail out of its lower left.
        loop = []
        for i in range(37):
            a = i / 36 * 2 * math.pi
            loop.append((300 + 110 * math.cos(a), 500 + 50 * math.sin(a)))
            if i == 11:
                loop += along(loop[-1], (220, 600), 6) + along((220, 600), (300 + 110 * math.cos(a + 0.25), 500 + 50 * math.sin(a + 0.25)), 6)
        self.held_stroke("Stars.pdf", loop)
        self.assertEqual(labels()[-1], "Speech bubble on page 1")
        self.save("Stars.pdf")
        kinds = sorted(a["kind"] for a in self.annotations("Stars.pdf"))
        self.assertEqual(kinds, ["Line", "Polygon", "Polygon"])
        import pypdf
        annots = [a.get_object() for a in pypdf.PdfReader(path).pages[0]["/Annots"]]
        self.assertEqual([a["/LE"][1] for a in annots if a["/Subtype"] == "/Line"], ["/OpenArrow"])
        self.assertEqual(sorted(len(a["/Vertices"]) // 2 for a in annots if a["/Subtype"] == "/Polygon"), [10, 49])
        assert_readers_agree(path, 1)
        after = render(path)
        self.assertGreater(changed_pixels(before, after, (215, 215, 385, 385)), 100, "the star where it was drawn")
        self.assertGreater(changed_pixels(before, after, (180, 440, 420, 610)), 100, "the bubble where it was drawn")
        self.click("tool-none")

    def test_26_the_ruler_turns_moves_and_a_pen_beside_it_draws_straight_along_it(self):
        import math
        import pypdf
        path = self.document("Ruler.pdf")
        self.open("Ruler.pdf")
        self.click("tool-ruler")
        self.assertTrue(self.js("return !document.getElementById('ruler').hidden"))
        self.assertEqual(self.js("return document.getElementById('ruler-angle').textContent"), "0°")
        centre = lambda: self.js("const r = document.getElementById('ruler').getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]")
        knob = self.js("const r = document.getElementById('ruler-turn').getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]")
        cx, cy = centre()
        mouse = PointerInput(interaction.POINTER_MOUSE, "mouse")
        # Turned by its knob to 30° (clockwise on screen).
        actions = ActionBuilder(self.browser, mouse=mouse, duration=10)
        actions.pointer_action.move_to_location(round(knob[0]), round(knob[1])).pointer_down()
        for degrees in (10, 20, 30):
            a = math.radians(degrees)
            actions.pointer_action.move_to_location(round(cx + 150 * math.cos(a)), round(cy + 150 * math.sin(a)))
        actions.pointer_action.pointer_up()
        actions.perform()
        self.assertEqual(self.js("return document.getElementById('ruler-angle').textContent"), "30°")
        # Moved by its body, 100 points up.
        self.drag("Ruler.pdf", [(306, 396), (306, 350), (306, 296)])
        k = self.js("return document.getElementById('page-image').clientWidth") / 612
        self.assertAlmostEqual(centre()[1], cy - 100 * k, delta=2)
        # A wobbly pen stroke begun 8 points below its lower edge lies on that edge.
        self.click("tool-pen")
        u, n = (math.cos(math.radians(30)), math.sin(math.radians(30))), (-math.sin(math.radians(30)), math.cos(math.radians(30)))
        c = (306, 296)
        points = [(c[0] + t * u[0] + (26 + w) * n[0], c[1] + t * u[1] + (26 + w) * n[1])
                  for t, w in zip(range(-100, 101, 20), (0, 3, -3, 4, -2, 3, -4, 2, 0, 3, -1))]
        self.drag("Ruler.pdf", points)
        self.save("Ruler.pdf")
        [ink] = [a.get_object() for a in pypdf.PdfReader(path).pages[0]["/Annots"] if a.get_object()["/Subtype"] == "/Ink"]
        flat = [float(v) for v in ink["/InkList"][0]]
        drawn = list(zip(flat[0::2], flat[1::2]))
        (x0, y0), (x1, y1) = drawn[0], drawn[-1]
        self.assertAlmostEqual(math.degrees(math.atan2(y1 - y0, x1 - x0)), -30, delta=0.5, msg="along the ruler (y up in the PDF)")
        off = max(abs((x1 - x0) * (y0 - y) - (x0 - x) * (y1 - y0)) / math.hypot(x1 - x0, y1 - y0) for x, y in drawn)
        self.assertLess(off, 0.6, f"every point on the edge: {drawn}")
        # On the edge: 18 points (half the ruler's width) from its centre line.
        mid = ((c[0] + 18 * n[0]), 792 - (c[1] + 18 * n[1]))
        self.assertLess(abs((x1 - x0) * (y0 - mid[1]) - (x0 - mid[0]) * (y1 - y0)) / math.hypot(x1 - x0, y1 - y0), 1.5)
        self.click("tool-ruler")
        self.assertTrue(self.js("return document.getElementById('ruler').hidden"))
        self.click("tool-none")

    def test_27_a_loupe_shows_the_page_under_it_magnified(self):
        path = self.document("Loupe.pdf")
        before = render(path)
        self.open("Loupe.pdf")
        self.click("tool-loupe")
        self.assertEqual(self.js("return document.getElementById('width-name').textContent"), "Zoom")
        _, words = self.client.json("GET", "/api/words?path=Loupe.pdf&page=1")
        quick = [w["box"] for w in words["words"] if w["text"] == "quick"][0]
        centre = ((quick[0] + quick[2]) / 2, (quick[1] + quick[3]) / 2)
        self.drag("Loupe.pdf", [centre, (centre[0] + 30, centre[1]), (centre[0] + 50, centre[1])])
        self.assertEqual(self.js("return document.getElementById('unsaved-count').title"), "Loupe on page 1")
        self.save("Loupe.pdf")
        [loupe] = self.annotations("Loupe.pdf")
        self.assertEqual((loupe["kind"], loupe["contents"]), ("Stamp", "Loupe ×2"))
        x0, y0, x1, y1 = loupe["rect"]
        self.assertAlmostEqual(x1 - x0, 100, delta=1)
        self.assertAlmostEqual((x0 + x1) / 2, centre[0], delta=1)
        assert_readers_agree(path, 1)
        after = render(path)
        box = (round(centre[0] - 35), round(centre[1] - 35), round(centre[0] + 35), round(centre[1] + 35))
        self.assertGreater(changed_pixels(before, after, box), 200, "the words under it, larger")
        self.assertLess(changed_pixels(before, after, (0, 700, 612, 792)), 5, "nothing changed away from it")
        self.click("tool-none")

    def key(self, text):
        """A key pressed with nothing focused (a focused menu or field keeps keys to itself)."""
        self.js("document.activeElement && document.activeElement.blur()")
        self.browser.find_element(By.TAG_NAME, "body").send_keys(text)

    def test_99_screenshots(self):
        """The README's pictures (only with PDFTRAPPER_SCREENSHOTS): the library, a search, a marked-up document, the status."""
        folder = os.environ.get("PDFTRAPPER_SCREENSHOTS")
        if not folder:
            self.skipTest("PDFTRAPPER_SCREENSHOTS is not set")
        os.makedirs(folder, exist_ok=True)
        path = self.document("Letters/2026-12 Invoice.pdf", lines=["Invoice 2026-117", "Total due: 240.00 EUR",
                                                                  "Please pay within thirty days"])
        _, words = self.client.json("GET", "/api/words?path=Letters/2026-12%20Invoice.pdf&page=1")
        total = [w["box"] for w in words["words"] if w["text"] in ("240.00", "EUR")]
        edits = [{"op": "highlight", "page": 1, "rects": [[total[0][0], total[0][1], total[-1][2], total[-1][3]]]},
                 {"op": "ink", "page": 1, "strokes": [[[70, 200], [160, 215], [250, 205], [330, 220]]], "width": 2, "color": "#1a3a9e"},
                 {"op": "signature", "page": 1, "name": "jane", "box": [380, 300, 540, 360]},
                 {"op": "note", "page": 1, "at": [470, 60], "contents": "Paid on the 3rd"},
                 {"op": "loupe", "page": 1, "at": [total[0][0] - 20, total[0][3] + 40], "radius": 38, "zoom": 2}]
        status, answer = self.client.json("POST", "/api/save", {"path": "Letters/2026-12 Invoice.pdf",
                                                                 "base_end": os.path.getsize(path), "edits": edits})
        self.assertEqual(status, 200, answer)
        bad = self.daemon.path("inbox", "receipt.jpg")
        with open(bad, "w") as f:
            f.write("not a picture")
        self.daemon.wait_for(lambda: os.path.exists(self.daemon.path("quarantine", "receipt.jpg.why.txt")), what="the quarantine")
        self.browser.get(self.daemon.base + "/")
        self.daemon.wait_for(lambda: self.browser.find_elements(By.CSS_SELECTOR, ".doc-link"), what="the library")
        time.sleep(0.5)
        self.browser.save_screenshot(os.path.join(folder, "workspace-library.png"))
        # Found as one types: the words marked in each page's snippet.
        self.daemon.wait_for(lambda: self.client.json("GET", "/api/search?q=thirty")[1].get("hits"), seconds=60,
                             what="the invoice in the index")
        self.browser.find_element(By.ID, "search").send_keys("pay*")
        self.daemon.wait_for(lambda: self.browser.find_elements(By.CSS_SELECTOR, "#search-results .hit mark"), what="the results")
        time.sleep(0.5)
        self.browser.save_screenshot(os.path.join(folder, "workspace-search.png"))
        self.open("Letters/2026-12%20Invoice.pdf")
        self.click("tool-pen")
        time.sleep(0.5)
        self.browser.save_screenshot(os.path.join(folder, "workspace-document.png"))
        self.browser.get(self.daemon.base + "/#/status")
        self.daemon.wait_for(lambda: self.browser.find_elements(By.CSS_SELECTOR, ".quarantine-row"), what="the quarantine list")
        time.sleep(0.5)
        self.browser.save_screenshot(os.path.join(folder, "workspace-status.png"))
        self.photo_document("Letters/Photographed letter.pdf", {"angle": 8, "tilt": 22, "shadow": True, "size": [1600, 1200]})
        self.open("Letters/Photographed%20letter.pdf")
        self.click("page-reframe")
        self.daemon.wait_for(lambda: self.js("return document.getElementById('reframe-dialog').dataset.ready === 'true'"),
                             what="the photo in the crop dialog")
        time.sleep(0.5)
        # The photo makes a large PNG: the README takes it as a JPEG.
        from PIL import Image
        shot = os.path.join(folder, "workspace-reframe.png")
        self.browser.save_screenshot(shot)
        Image.open(shot).convert("RGB").save(os.path.join(folder, "workspace-reframe.jpg"), quality=80)
        os.remove(shot)
        self.click("reframe-cancel")


class LogoutTests(unittest.TestCase):
    """Log out in the top bar ends the session on the server: the cookie the browser held gets
    nothing afterwards, replayed from outside the browser; other sessions go on."""

    @classmethod
    def setUpClass(cls):
        cls.daemon = Daemon()
        text_pdf(cls.daemon.path("library", "Letter.pdf"), ["Dear reader"])
        cls.browser = shared_browser()

    @classmethod
    def tearDownClass(cls):
        leave_browser(cls.browser)   # the navigation after Log out got its 401 in the console: read out
        cls.daemon.stop()

    def wait_state(self, wanted):
        self.daemon.wait_for(lambda: self.browser.find_element(By.TAG_NAME, "body").get_attribute("data-state") == wanted,
                             what=f"data-state {wanted}")

    def test_log_out_ends_the_session_for_good(self):
        browser = self.browser
        browser.get(self.daemon.login_url)
        self.daemon.wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, '.doc-link[data-path="Letter.pdf"]'), what="the library")
        self.wait_state("ready")
        held = Client(self.daemon, login=False)
        held.cookie = browser.get_cookie("pdftrapper_session")["value"]
        self.assertEqual(held.request("GET", "/api/library")[0], 200)
        other = Client(self.daemon)

        browser.get_log("browser")
        browser.find_element(By.ID, "logout").click()
        self.wait_state("logged-out")
        self.assertEqual([e for e in browser.get_log("browser") if e["level"] == "SEVERE"], [], "the page's console has errors")
        self.assertIn("Logged out", browser.find_element(By.ID, "message-text").text)
        self.assertIsNone(browser.get_cookie("pdftrapper_session"), "the browser still holds the cookie")
        self.assertFalse(browser.find_element(By.ID, "view-library").is_displayed())
        self.assertFalse(browser.find_element(By.ID, "logout").is_displayed())
        # The cookie it held, replayed: nothing. Another login is untouched.
        self.assertEqual(held.request("GET", "/api/library")[0], 401)
        self.assertEqual(held.request("POST", "/api/save", {})[0], 401)
        self.assertEqual(other.request("GET", "/api/library")[0], 200)
        # Going to the app is going to it without a session: 401, no workspace.
        browser.get(self.daemon.base + "/")
        self.assertEqual(browser.find_elements(By.ID, "topbar"), [])
        # The address logs in again, as a new session.
        browser.get(self.daemon.login_url)
        self.daemon.wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, '.doc-link[data-path="Letter.pdf"]'), what="the library")
        self.assertNotEqual(browser.get_cookie("pdftrapper_session")["value"], held.cookie)

    def test_log_out_with_unsaved_marks_asks_first(self):
        browser = self.browser
        browser.get(self.daemon.login_url)
        browser.get(self.daemon.base + "/#/doc/Letter.pdf")
        self.wait_state("ready")
        # One unsaved mark: a queued page rotation.
        browser.find_element(By.ID, "page-rotate").click()
        self.daemon.wait_for(lambda: browser.find_element(By.ID, "unsaved-count").get_attribute("data-count") == "1",
                             what="one unsaved change")
        cookie = browser.get_cookie("pdftrapper_session")["value"]
        browser.find_element(By.ID, "logout").click()
        alert = browser.switch_to.alert
        self.assertIn("unsaved", alert.text)
        alert.dismiss()
        # Stayed: the session and the mark.
        self.assertEqual(browser.find_element(By.ID, "unsaved-count").get_attribute("data-count"), "1")
        held = Client(self.daemon, login=False)
        held.cookie = cookie
        self.assertEqual(held.request("GET", "/api/library")[0], 200)
        browser.find_element(By.ID, "logout").click()
        browser.switch_to.alert.accept()
        self.wait_state("logged-out")
        self.assertEqual(held.request("GET", "/api/library")[0], 401)


if __name__ == "__main__":
    unittest.main()
