"""The workspace on a phone: the same Chromium as test_browser.py (workspace.shared_browser()),
made a 390 × 844 CSS px touch screen at 3 device pixels a CSS pixel by Chrome's DevTools emulation
for this class, and made a desktop again afterwards. Real touch and pen pointers through WebDriver
actions; each scenario is checked from outside the browser where it can be: `pdftrapper
annotations --json`, the ink's /BS width as pypdf reads it, pdftoppm renders, the manifest and its
icons over HTTP.

PDFTRAPPER_SCREENSHOTS=DIR also saves DIR/workspace-phone.png.
"""
import json
import os
import unittest

from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.webdriver.common.by import By

from workspace import Client, Daemon, changed_pixels, leave_browser, render, shared_browser, text_pdf

PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": True}
PAGE = (612, 792)   # text_pdf's pages, in points


def changed_outside(before, after, box):
    """Whether any pixel outside `box` (pixel coordinates) differs between two renders."""
    from PIL import ImageChops
    a, b = before.copy(), after.copy()
    for image in (a, b):
        image.paste((255, 255, 255), box)
    return ImageChops.difference(a, b).getbbox() is not None


class PhoneTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.daemon = Daemon()
        cls.client = Client(cls.daemon)
        cls.browser = shared_browser()
        cls.browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
        cls.browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
        cls.browser.get(cls.daemon.login_url)

    @classmethod
    def tearDownClass(cls):
        # Seen here: after a two-finger gesture on a document's page, the next class's emulated
        # touches reached no page at all (no pointer or touch event) unless the tab showed another
        # page of the workspace (the library) before the emulation was switched off.
        cls.browser.get(cls.daemon.base + "/")
        cls.daemon.wait_for(lambda: cls.browser.execute_script("return document.body.dataset.state") == "ready", what="the library")
        leave_browser(cls.browser)
        cls.browser.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
        cls.browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        cls.daemon.stop()

    def tearDown(self):
        errors = [entry for entry in self.browser.get_log("browser")
                  if entry["level"] == "SEVERE" and "favicon" not in entry["message"]]
        self.assertEqual(errors, [], "the page's console has errors")

    # MARK: helpers

    def js(self, script, *arguments):
        return self.browser.execute_script(script, *arguments)

    def document(self, name, lines=("The quick brown fox jumps", "over the lazy dog")):
        path = self.daemon.path("library", name)
        text_pdf(path, list(lines))
        return path

    def wait_ready(self, end=None):
        def ready():
            state, at = self.js("return [document.body.dataset.state, document.body.dataset.end]")
            return state == "ready" and (end is None or at == str(end))
        self.daemon.wait_for(ready, what="the workspace to be ready")

    def open(self, name):
        self.browser.get(self.daemon.base + "/#/doc/" + name)
        self.wait_ready()

    def save(self, name):
        path = self.daemon.path("library", name)
        before = os.path.getsize(path)
        self.browser.find_element(By.ID, "save").click()
        self.daemon.wait_for(lambda: os.path.getsize(path) != before, what="the save's revision")
        self.wait_ready(end=os.path.getsize(path))

    def rect(self, element_id):
        return self.js("const r = document.getElementById(arguments[0]).getBoundingClientRect();"
                       "return [r.left, r.top, r.right, r.bottom];", element_id)

    def viewport(self, point):
        """A point of the page (points, y down) in viewport CSS pixels, from the canvas's place."""
        left, top, right, bottom = self.rect("page-canvas")
        return (round(left + point[0] * (right - left) / PAGE[0]), round(top + point[1] * (bottom - top) / PAGE[1]))

    def page_point(self, xy):
        left, top, right, bottom = self.rect("page-canvas")
        return ((xy[0] - left) * PAGE[0] / (right - left), (xy[1] - top) * PAGE[1] / (bottom - top))

    def assert_in_view(self, xy):
        """On the page and inside the page area's visible part (else a pointer there would miss)."""
        for element_id in ("page-canvas", "page-area"):
            left, top, right, bottom = self.rect(element_id)
            self.assertTrue(left <= xy[0] <= right and top <= xy[1] <= bottom, f"{xy} is outside #{element_id}")

    def stroke(self, kind, points, pressure=None):
        """One pointer of `kind` (touch or pen) down at the first viewport point, through the rest, up."""
        for xy in points:
            self.assert_in_view(xy)
        pointer = PointerInput(kind, kind)
        actions = ActionBuilder(self.browser, mouse=pointer, duration=10)
        actions.pointer_action.move_to_location(*points[0]).pointer_down(pressure=pressure)
        for xy in points[1:]:
            actions.pointer_action.move_to_location(*xy, pressure=pressure)
        actions.pointer_action.pointer_up()
        actions.perform()

    def two_fingers(self, first, second):
        """Two touch pointers down together, moving tick by tick along their paths (viewport points), up."""
        self.assert_in_view(first[0])
        self.assert_in_view(second[0])
        actions = ActionBuilder(self.browser, duration=30)
        fingers = [actions.add_pointer_input(interaction.POINTER_TOUCH, name) for name in ("thumb", "index")]
        for finger, path in zip(fingers, (first, second)):
            finger.create_pointer_move(x=path[0][0], y=path[0][1])
            finger.create_pointer_down(button=0)
            for x, y in path[1:]:
                finger.create_pointer_move(duration=30, x=round(x), y=round(y))
            finger.create_pointer_up(0)
        actions.perform()

    def unsaved(self):
        return self.js("return document.getElementById('unsaved-count').dataset.count")

    def zoom(self):
        return float(self.js("return document.body.dataset.zoom"))

    def scroll(self):
        return self.js("const a = document.getElementById('page-area'); return [a.scrollLeft, a.scrollTop];")

    def inks(self, path):
        """The ink annotations of page 1 as pypdf reads them: (rect, /BS /W)."""
        import pypdf
        found = []
        for reference in pypdf.PdfReader(path).pages[0].get("/Annots", []):
            annotation = reference.get_object()
            if annotation["/Subtype"] == "/Ink":
                found.append(([float(v) for v in annotation["/Rect"]], float(annotation["/BS"]["/W"])))
        return found

    def assert_ink_where_drawn(self, before, after, box):
        """Pixels changed in `box` (points = pixels at 72 dpi, y down) and nowhere else."""
        self.assertGreater(changed_pixels(before, after, box), 30, "no ink where the stroke was drawn")
        padded = (box[0] - 8, box[1] - 8, box[2] + 8, box[3] + 8)
        self.assertFalse(changed_outside(before, after, padded), "ink away from where the stroke was drawn")

    # MARK: scenarios

    def test_a_the_library_and_a_document_fit_a_phone(self):
        self.document("Letters/A rather long name for a letter from the tax office.pdf")
        self.browser.get(self.daemon.base + "/")
        self.daemon.wait_for(lambda: self.js("return document.body.dataset.state") == "ready"
                             and self.browser.find_elements(By.CSS_SELECTOR, ".doc-link"), what="the library")
        self.assertEqual(self.js("return innerWidth"), 390)
        self.assertLessEqual(self.js("return document.documentElement.scrollWidth"), 390, "the library scrolls sideways")
        self.assert_fingertip_sized("#topbar nav a, #logout, .doc-link")

        self.open("Letters/A%20rather%20long%20name%20for%20a%20letter%20from%20the%20tax%20office.pdf")
        self.assertLessEqual(self.js("return document.documentElement.scrollWidth"), 390, "the document scrolls sideways")
        tools = self.browser.find_elements(By.CSS_SELECTOR, "#tools [data-tool]")
        self.assertEqual(len(tools), 17)
        self.assert_fingertip_sized("#toolbar button, #toolbar input, #page-nav button")
        # The strip is a row above the page, the history below it.
        strip, area, history = self.rect("strip"), self.rect("page-area"), self.rect("history")
        self.assertGreater(strip[2] - strip[0], 3 * (strip[3] - strip[1]), "the strip is not a row")
        self.assertLessEqual(strip[3], area[1] + 1)
        self.assertGreaterEqual(history[1], area[3] - 1)
        # A finger draws on the canvas; with no tool it scrolls the area natively.
        self.assertEqual(self.js("return getComputedStyle(document.getElementById('page-canvas')).touchAction"), "none")
        self.assertEqual(self.js("return getComputedStyle(document.getElementById('page-area')).touchAction"), "pan-x pan-y")
        # The signature menu opens within the screen.
        self.browser.find_element(By.ID, "tool-signature").click()
        self.daemon.wait_for(lambda: self.browser.find_element(By.ID, "new-signature").is_displayed(), what="the menu")
        menu = self.rect("signature-menu")
        self.assertTrue(0 <= menu[0] and menu[2] <= 390, menu)
        self.assertLessEqual(self.js("return document.documentElement.scrollWidth"), 390, "the open menu scrolls sideways")
        self.browser.find_element(By.ID, "tool-signature").click()
        # Nothing shows only under hover.
        hover_only = self.js("""
            const found = [];
            for (const sheet of document.styleSheets) for (const rule of sheet.cssRules) {
                const style = rule.style;
                if (rule.selectorText && rule.selectorText.includes(':hover')
                    && (style.display || style.visibility || style.opacity || style.pointerEvents)) found.push(rule.selectorText);
            }
            return found;""")
        self.assertEqual(hover_only, [])

    def assert_fingertip_sized(self, selector):
        """Every visible element the selector finds is at least 40 × 40 CSS px and inside the screen across."""
        boxes = self.js("""
            return [...document.querySelectorAll(arguments[0])].filter((e) => e.checkVisibility()).map((e) => {
                const r = e.getBoundingClientRect();
                return [e.id || e.className || e.tagName, r.left, r.right, r.width, r.height];
            });""", selector)
        self.assertTrue(boxes, selector)
        for name, left, right, width, height in boxes:
            self.assertGreaterEqual(min(width, height), 40 - 0.01, f"{name} is {width:.1f} × {height:.1f}")
            self.assertTrue(left >= 0 and right <= 390, f"{name} is off the screen ({left:.0f}..{right:.0f})")

    def test_b_one_finger_draws_with_the_pen(self):
        path = self.document("Finger.pdf")
        before = render(path)
        self.open("Finger.pdf")
        self.browser.find_element(By.ID, "tool-pen").click()
        scrolled = self.scroll()
        points = [(150, 300), (210, 330), (270, 300), (330, 340), (390, 310)]
        self.stroke(interaction.POINTER_TOUCH, [self.viewport(p) for p in points])
        self.assertEqual(self.unsaved(), "1")
        self.assertEqual(self.scroll(), scrolled, "the finger scrolled instead of drawing")
        self.save("Finger.pdf")
        inks = [a for a in self.daemon.annotations("Finger.pdf") if a["kind"] == "Ink"]
        self.assertEqual(len(inks), 1, self.daemon.annotations("Finger.pdf"))
        x0, y0, x1, y1 = inks[0]["rect"]   # y up
        self.assertLessEqual(x0, 150 + 3); self.assertGreaterEqual(x1, 390 - 3)
        self.assertLessEqual(y0, 792 - 340 + 3); self.assertGreaterEqual(y1, 792 - 300 - 3)
        self.assertEqual([width for _, width in self.inks(path)], [2], "a finger keeps the chosen width")
        self.assert_ink_where_drawn(before, render(path), (148, 298, 392, 342))

    def test_c_two_fingers_zoom_and_pan_and_draw_nothing(self):
        path = self.document("Pinch.pdf")
        before = render(path)
        self.open("Pinch.pdf")
        self.browser.find_element(By.ID, "tool-pen").click()
        self.assertEqual(self.zoom(), 1)
        centre = self.viewport((306, 200))
        under = self.page_point(centre)
        spread = [(40 + 20 * step) for step in range(7)]   # half the fingers' distance, 40 → 160 px
        self.two_fingers([(centre[0] - s, centre[1]) for s in spread], [(centre[0] + s, centre[1]) for s in spread])
        self.wait_ready()
        self.assertGreater(self.zoom(), 1.5)
        self.assertEqual(self.unsaved(), "0", "the pinch drew")
        # The page's point under the fingers' centre stayed under it.
        after = self.page_point(centre)
        self.assertLess(abs(after[0] - under[0]) + abs(after[1] - under[1]), 6, (under, after))
        # Image and canvas grew alike, and the image was asked for at the zoomed width.
        image, canvas = self.rect("page-image"), self.rect("page-canvas")
        self.assertEqual([round(v) for v in image], [round(v) for v in canvas])
        self.assertGreater(self.js("return document.getElementById('page-image').naturalWidth"), 2000)
        nav = self.rect("page-nav")   # the paging buttons follow the page across
        self.assertTrue(0 <= nav[0] and nav[2] <= 390, nav)

        # A finger at the zoomed size draws where it touches the page.
        points = [(270, 190), (290, 205), (310, 190), (335, 210)]
        self.stroke(interaction.POINTER_TOUCH, [self.viewport(p) for p in points])
        self.assertEqual(self.unsaved(), "1")
        self.save("Pinch.pdf")
        self.assert_ink_where_drawn(before, render(path), (268, 188, 337, 212))

        # Two fingers moving together pan the page, and draw nothing either.
        zoom, scrolled = self.zoom(), self.scroll()
        centre = self.viewport((306, 200))
        steps = range(6)
        self.two_fingers([(centre[0] - 40 - 12 * i, centre[1] - 15 * i) for i in steps],
                         [(centre[0] + 40 - 12 * i, centre[1] - 15 * i) for i in steps])
        self.wait_ready()
        moved = self.scroll()
        self.assertGreater(moved[0], scrolled[0], "no pan across")
        self.assertGreater(moved[1], scrolled[1], "no pan down")
        self.assertAlmostEqual(self.zoom(), zoom, delta=0.05)
        self.assertEqual(self.unsaved(), "0", "the pan drew")
        self.assertEqual(len([a for a in self.daemon.annotations("Pinch.pdf") if a["kind"] == "Ink"]), 1)

    def test_c_with_no_tool_a_finger_scrolls_and_two_zoom(self):
        self.document("Scroll.pdf")
        self.open("Scroll.pdf")
        self.browser.find_element(By.ID, "tool-none").click()
        self.assertEqual(self.scroll(), [0, 0])
        start = self.viewport((306, 200))
        self.stroke(interaction.POINTER_TOUCH, [(start[0], start[1] - 20 * i) for i in range(5)])
        self.daemon.wait_for(lambda: self.scroll()[1] > 20, what="the page area to scroll under the finger")
        self.assertEqual(self.unsaved(), "0")
        # The middle of what the page area shows now (where the page is after the scroll).
        left, top, right, bottom = self.rect("page-area")
        bottom = min(bottom, self.js("return window.innerHeight"))
        centre = (round((left + right) / 2), round((top + bottom) / 2))
        spread = [(40 + 10 * step) for step in range(7)]
        self.two_fingers([(centre[0] - s, centre[1]) for s in spread], [(centre[0] + s, centre[1]) for s in spread])
        self.wait_ready()
        self.assertGreater(self.zoom(), 1.5)
        self.assertEqual(self.unsaved(), "0")

    def test_d_pen_pressure_widens_the_stroke(self):
        path = self.document("Pressure.pdf")
        before = render(path, dpi=144)
        self.open("Pressure.pdf")
        self.browser.find_element(By.ID, "tool-pen").click()
        firm = [(150, 300), (250, 300), (350, 300)]
        light = [(150, 360), (250, 360), (350, 360)]
        self.stroke(interaction.POINTER_PEN, [self.viewport(p) for p in firm], pressure=0.9)
        self.stroke(interaction.POINTER_PEN, [self.viewport(p) for p in light], pressure=0.1)
        self.assertEqual(self.unsaved(), "2")
        self.save("Pressure.pdf")
        widths = {round(792 - rect[3]): width for rect, width in self.inks(path)}   # by the stroke's top, y down
        self.assertEqual(len(widths), 2, widths)
        firm_width = next(w for top, w in widths.items() if top < 330)
        light_width = next(w for top, w in widths.items() if top > 330)
        # Pen strokes: the chosen 2 pt times 0.5 + mean pressure.
        self.assertAlmostEqual(firm_width, 2.8, delta=0.05)
        self.assertAlmostEqual(light_width, 1.2, delta=0.05)
        # And in a render (144 dpi: 2 pixels a point), the firm stroke covers more pixels across.
        after = render(path, dpi=144)
        self.assertGreater(changed_pixels(before, after, (300, 580, 700, 620)),
                           changed_pixels(before, after, (300, 700, 700, 740)), "the firm stroke is not wider in the render")

    def test_e_installable_without_a_service_worker(self):
        status, headers, body = self.client.request("GET", "/static/manifest.webmanifest")
        self.assertEqual(status, 200)
        self.assertEqual(headers["content-type"], "application/manifest+json")
        manifest = json.loads(body)
        self.assertEqual(manifest["name"], "PDFTrapper")
        self.assertTrue(manifest["short_name"])
        self.assertEqual((manifest["start_url"], manifest["display"]), ("/", "standalone"))
        from io import BytesIO
        from PIL import Image
        pngs = [icon for icon in manifest["icons"] if icon["type"] == "image/png"]
        self.assertEqual(sorted(icon["sizes"] for icon in pngs), ["192x192", "512x512"])
        for icon in manifest["icons"]:
            status, headers, data = self.client.request("GET", icon["src"])
            self.assertEqual((status, headers["content-type"]), (200, icon["type"]), icon["src"])
            if icon["type"] == "image/png":
                self.assertEqual("%dx%d" % Image.open(BytesIO(data)).size, icon["sizes"], icon["src"])
        # The browser fetched and took it (it needs the session cookie: crossorigin="use-credentials").
        self.browser.get(self.daemon.base + "/")
        self.daemon.wait_for(lambda: self.js("return document.body.dataset.state") == "ready", what="the library")
        seen = self.browser.execute_cdp_cmd("Page.getAppManifest", {})
        self.assertEqual(seen["errors"], [])
        self.assertEqual(json.loads(seen["data"]), manifest)
        self.assertEqual(self.browser.execute_cdp_cmd("Page.getInstallabilityErrors", {})["installabilityErrors"], [])
        self.assertEqual(self.js("return document.querySelector('meta[name=theme-color]').content"), manifest["theme_color"])
        registrations = self.browser.execute_async_script("""
            const done = arguments[arguments.length - 1];
            if (!navigator.serviceWorker) done(0);
            else navigator.serviceWorker.getRegistrations().then((r) => done(r.length), () => done(-1));""")
        self.assertEqual(registrations, 0, "a service worker is registered")

    def test_f_a_finger_picks_up_a_saved_mark_and_moves_it(self):
        path = self.document("Pick.pdf")
        status, answer = self.client.json("POST", "/api/save", {"path": "Pick.pdf", "base_end": os.path.getsize(path), "edits": [
            {"op": "oval", "page": 1, "box": [120, 200, 220, 260], "width": 3, "color": "#e61919"}]})
        self.assertEqual(status, 200, answer)
        [oval] = self.daemon.annotations("Pick.pdf")
        before = render(path)
        self.open("Pick.pdf")
        self.browser.find_element(By.ID, "tool-lasso").click()
        count = lambda: self.js("return document.getElementById('sel-count').textContent")
        self.daemon.wait_for(lambda: self.stroke(interaction.POINTER_TOUCH, [self.viewport((170, 201))]) or count() == "1 selected",
                             what="the oval picked up by a tap")
        self.assert_fingertip_sized("#selection-bar button:not([hidden])")
        scrolled = self.scroll()
        self.stroke(interaction.POINTER_TOUCH, [self.viewport(p) for p in [(170, 230), (200, 250), (230, 280), (250, 300)]])
        self.assertEqual(self.scroll(), scrolled, "the finger scrolled instead of moving the selection")
        self.assertEqual(self.unsaved(), "1")
        self.save("Pick.pdf")
        [moved] = self.daemon.annotations("Pick.pdf")
        self.assertEqual(moved["id"], oval["id"])
        self.assertEqual([round(v - w) for v, w in zip(moved["rect"], oval["rect"])], [80, -70, 80, -70], moved["rect"])
        after = render(path)
        self.assertGreater(changed_pixels(before, after, (195, 265, 305, 335)), 100, "the oval where it was moved")

    def test_g_two_fingers_turn_the_ruler_and_draw_nothing(self):
        import math
        self.document("Rule.pdf")
        self.open("Rule.pdf")
        self.browser.find_element(By.ID, "tool-pen").click()
        self.browser.find_element(By.ID, "tool-ruler").click()
        left, top, right, bottom = self.rect("ruler")
        cx, cy = (left + right) / 2, (top + bottom) / 2
        self.assert_in_view((cx, cy))
        zoom = self.zoom()
        # Both fingers on the ruler, 120 px apart; they turn about its middle by 20°.
        turn = [math.radians(d) for d in (0, 5, 10, 15, 20)]
        self.two_fingers([(cx - 60 * math.cos(a), cy - 60 * math.sin(a)) for a in turn],
                         [(cx + 60 * math.cos(a), cy + 60 * math.sin(a)) for a in turn])
        angle = int(self.js("return document.getElementById('ruler').dataset.angle"))
        self.assertTrue(15 <= angle <= 25, f"the ruler turned {angle}°, not about 20°")
        self.assertEqual(self.unsaved(), "0", "two fingers on the ruler drew something")
        self.assertEqual(self.zoom(), zoom, "the fingers on the ruler zoomed the page")
        # One finger then moves it.
        left, top, right, bottom = self.rect("ruler")
        self.stroke(interaction.POINTER_TOUCH, [(round((left + right) / 2), round((top + bottom) / 2)),
                                                (round((left + right) / 2), round((top + bottom) / 2) + 30)])
        self.assertAlmostEqual(self.rect("ruler")[1], top + 30, delta=2)
        self.assertEqual(self.unsaved(), "0")
        self.browser.find_element(By.ID, "tool-ruler").click()
        self.browser.find_element(By.ID, "tool-none").click()

    def test_h_a_finger_holds_a_star_and_taps_a_loupe(self):
        import math
        path = self.document("Star.pdf")
        self.open("Star.pdf")
        self.browser.find_element(By.ID, "tool-pen").click()
        # A pentagram drawn with a finger and held still at its end becomes a star.
        tips = [(300 + 80 * math.cos(-math.pi / 2 + k * 4 * math.pi / 5), 250 + 80 * math.sin(-math.pi / 2 + k * 4 * math.pi / 5)) for k in range(6)]
        points = [self.viewport((a[0] + (b[0] - a[0]) * i / 6, a[1] + (b[1] - a[1]) * i / 6)) for a, b in zip(tips, tips[1:]) for i in range(6)]
        points.append(self.viewport(tips[-1]))
        for xy in points:
            self.assert_in_view(xy)
        finger = PointerInput(interaction.POINTER_TOUCH, "touch")
        actions = ActionBuilder(self.browser, mouse=finger, duration=10)
        actions.pointer_action.move_to_location(*points[0]).pointer_down()
        for xy in points[1:]:
            actions.pointer_action.move_to_location(*xy)
        actions.pointer_action.pause(1.0)
        actions.pointer_action.pointer_up()
        actions.perform()
        self.assertEqual(self.js("return document.getElementById('unsaved-count').title"), "Star on page 1")
        # A tap with the loupe places one, 40 points round.
        self.browser.find_element(By.ID, "tool-loupe").click()
        self.stroke(interaction.POINTER_TOUCH, [self.viewport((150, 120))])
        self.assertEqual(self.unsaved(), "2")
        self.save("Star.pdf")
        kinds = sorted((a["kind"], a.get("contents", "")) for a in self.daemon.annotations("Star.pdf"))
        self.assertEqual(kinds, [("Polygon", ""), ("Stamp", "Loupe ×2")])
        loupe = [a for a in self.daemon.annotations("Star.pdf") if a["kind"] == "Stamp"][0]
        x0, y0, x1, y1 = loupe["rect"]
        self.assertAlmostEqual((x0 + x1) / 2, 150, delta=3)
        self.assertAlmostEqual(x1 - x0, 80, delta=1)
        self.browser.find_element(By.ID, "tool-none").click()

    def test_z_screenshot(self):
        """The README's phone picture (only with PDFTRAPPER_SCREENSHOTS): a marked-up document in the phone layout."""
        folder = os.environ.get("PDFTRAPPER_SCREENSHOTS")
        if not folder:
            self.skipTest("PDFTRAPPER_SCREENSHOTS is not set")
        os.makedirs(folder, exist_ok=True)
        name = "Letters/2026-12 Invoice.pdf"
        path = self.document(name, lines=["Invoice 2026-117", "Total due: 240.00 EUR", "Please pay within thirty days"])
        _, words = self.client.json("GET", "/api/words?path=Letters/2026-12%20Invoice.pdf&page=1")
        total = [w["box"] for w in words["words"] if w["text"] in ("240.00", "EUR")]
        edits = [{"op": "highlight", "page": 1, "rects": [[total[0][0], total[0][1], total[-1][2], total[-1][3]]]},
                 {"op": "ink", "page": 1, "strokes": [[[70, 200], [160, 215], [250, 205], [330, 220]]], "width": 2, "color": "#1a3a9e"},
                 {"op": "note", "page": 1, "at": [470, 60], "contents": "Paid on the 3rd"}]
        status, answer = self.client.json("POST", "/api/save", {"path": name, "base_end": os.path.getsize(path), "edits": edits})
        self.assertEqual(status, 200, answer)
        self.open("Letters/2026-12%20Invoice.pdf")
        self.browser.find_element(By.ID, "tool-pen").click()
        self.daemon.wait_for(lambda: self.js("const i = document.querySelector('.thumb img'); return !!i && i.complete && i.naturalWidth > 0"),
                             what="the thumbnail")
        # Taken at 3 device pixels a CSS pixel, kept at 2: sharp enough, half the bytes.
        from PIL import Image
        shot = os.path.join(folder, "workspace-phone.png")
        self.browser.save_screenshot(shot)
        image = Image.open(shot)
        image.resize((image.width * 2 // 3, image.height * 2 // 3), Image.LANCZOS).save(shot, optimize=True)


if __name__ == "__main__":
    unittest.main()
