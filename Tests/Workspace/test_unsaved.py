"""Unsaved edits and large drawings, in Debian's Chromium and over plain HTTP: strokes drawn and not
yet saved survive a reload of the page and a refused save, and are saved after; a stale tab's undo
or save names the revision it was made on, and a 409 reloads the document with the edits kept; a
drawing of a million ink points, sent as the workspace sends it, is saved as one revision that
qpdf checks and poppler draws.
"""
import json
import os
import random
import subprocess
import unittest

from selenium.webdriver.common.actions import interaction
from selenium.webdriver.common.actions.action_builder import ActionBuilder
from selenium.webdriver.common.actions.pointer_input import PointerInput
from selenium.webdriver.common.by import By

from workspace import Client, Daemon, changed_pixels, leave_browser, render, shared_browser, text_pdf

# Records each POST's body, and hands the page a revision id for every document that has none yet
# (before the server sends `revision`), so that what the page sends back can be checked either way.
RECORD_POSTS = """
window.posted = [];
const realFetch = window.fetch;
window.fetch = async (url, init) => {
  if (init && init.method === 'POST') window.posted.push({url: String(url), body: JSON.parse(init.body)});
  const response = await realFetch(url, init);
  if (!String(url).startsWith('/api/document') || !response.ok) return response;
  const doc = await response.json();
  if (!doc.revision) doc.revision = 'given-' + doc.end;
  return new Response(JSON.stringify(doc), {status: response.status, headers: response.headers});
};
"""


class UnsavedTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.daemon = Daemon()
        cls.browser = shared_browser()
        cls.client = Client(cls.daemon)
        cls.browser.get(cls.daemon.login_url)

    @classmethod
    def tearDownClass(cls):
        leave_browser(cls.browser)
        cls.daemon.stop()

    def tearDown(self):
        errors = [entry for entry in self.browser.get_log("browser")
                  if entry["level"] == "SEVERE" and "favicon" not in entry["message"] and "409" not in entry["message"]]
        self.assertEqual(errors, [], "the page's console has errors")

    # MARK: helpers

    def document(self, name):
        path = self.daemon.path("library", name)
        text_pdf(path, ["The quick brown fox jumps", "over the lazy dog"])
        return path

    def js(self, script, *arguments):
        return self.browser.execute_script(script, *arguments)

    def body(self, attribute):
        return self.browser.find_element(By.TAG_NAME, "body").get_attribute(attribute)

    def wait_ready(self, end=None):
        self.daemon.wait_for(lambda: self.body("data-state") == "ready" and (end is None or self.body("data-end") == str(end)),
                             what="the workspace to be ready")

    def open(self, name):
        self.browser.get(self.daemon.base + "/#/doc/" + name)
        self.wait_ready()

    def unsaved(self):
        return int(self.browser.find_element(By.ID, "unsaved-count").get_attribute("data-count") or 0)

    def stroke(self, y):
        """A pen stroke across the page at `y` points from its top, in real pointer events."""
        self.browser.find_element(By.ID, "tool-pen").click()
        left, top, width, height = self.js("const r = document.getElementById('page-canvas').getBoundingClientRect();"
                                           "return [r.left, r.top, r.width, r.height];")
        scale = width / 612
        actions = ActionBuilder(self.browser, mouse=PointerInput(interaction.POINTER_MOUSE, "mouse"), duration=10)
        actions.pointer_action.move_to_location(round(left + 100 * scale), round(top + y * scale)).pointer_down()
        for step in range(1, 11):
            actions.pointer_action.move_to_location(round(left + (100 + 20 * step) * scale), round(top + (y + 3 * (step % 2)) * scale))
        actions.pointer_action.pointer_up()
        actions.perform()

    def kept(self, name):
        """How many edits of `name` the browser keeps in IndexedDB, asked of IndexedDB itself."""
        return self.browser.execute_async_script("""
            const [name, done] = arguments;
            const request = indexedDB.open('pdftrapper-unsaved');
            request.onsuccess = () => {
              const count = request.result.transaction('edits').objectStore('edits')
                .count(IDBKeyRange.bound([name, -Infinity], [name, Infinity]));
              count.onsuccess = () => { request.result.close(); done(count.result); };
            };
            request.onerror = () => done(-1);""", name)

    def save_and_wait(self, name):
        before = os.path.getsize(self.daemon.path("library", name))
        self.browser.find_element(By.ID, "save").click()
        self.daemon.wait_for(lambda: os.path.getsize(self.daemon.path("library", name)) != before, what="the save's revision")
        self.wait_ready(end=os.path.getsize(self.daemon.path("library", name)))

    def inks(self, name):
        return [a for a in self.daemon.annotations(name) if a["kind"] == "Ink"]

    # MARK: scenarios

    def test_strokes_survive_a_reload_and_are_saved_after(self):
        self.document("Reloaded.pdf")
        self.open("Reloaded.pdf")
        self.stroke(150)
        self.stroke(250)
        self.assertEqual(self.unsaved(), 2)
        self.daemon.wait_for(lambda: self.kept("Reloaded.pdf") == 2, what="the strokes kept in the browser")
        # The page reloaded (a crash of the tab, a slip of F5): the strokes are back, undoable one by one.
        self.browser.refresh()
        self.wait_ready()
        self.daemon.wait_for(lambda: self.unsaved() == 2, what="the strokes restored")
        self.assertIn("restored", self.browser.find_element(By.ID, "message-text").text)
        self.browser.find_element(By.ID, "undo").click()
        self.assertEqual(self.unsaved(), 1)
        self.browser.find_element(By.ID, "redo").click()
        self.assertEqual(self.unsaved(), 2)
        self.save_and_wait("Reloaded.pdf")
        self.assertEqual(len(self.inks("Reloaded.pdf")), 2)
        # Saved (answered 200): nothing is kept any more, and a reload restores nothing.
        self.daemon.wait_for(lambda: self.kept("Reloaded.pdf") == 0, what="the saved strokes forgotten")
        self.browser.refresh()
        self.wait_ready()
        self.assertEqual(self.unsaved(), 0)

    def test_a_refused_save_keeps_the_strokes_and_reloads_the_document(self):
        path = self.document("Refused.pdf")
        self.open("Refused.pdf")
        self.stroke(150)
        self.stroke(250)
        # Another program's revision (here a rotation saved over HTTP) lands meanwhile.
        status, answer = self.client.json("POST", "/api/save", {"path": "Refused.pdf", "base_end": os.path.getsize(path),
                                                                 "edits": [{"op": "rotate", "pages": [1], "degrees": 180}]})
        self.assertEqual(status, 200, answer)
        moved = os.path.getsize(path)
        self.browser.find_element(By.ID, "save").click()
        # Refused (409), never merged: the tab shows the document as it is now, the strokes still unsaved.
        self.wait_ready(end=moved)
        self.assertEqual(os.path.getsize(path), moved)
        self.assertEqual(self.unsaved(), 2)
        message = self.browser.find_element(By.ID, "message-text").text
        self.assertIn("changed", message)
        self.assertIn("kept", message)
        # Kept across a reload too, and saved on the new revision.
        self.browser.refresh()
        self.wait_ready(end=moved)
        self.daemon.wait_for(lambda: self.unsaved() == 2, what="the strokes restored")
        self.save_and_wait("Refused.pdf")
        self.assertEqual(len(self.inks("Refused.pdf")), 2)
        self.assertEqual(len(self.daemon.history("Refused.pdf")), 3)

    def test_a_stale_tab_names_the_revision_it_shows_and_a_409_reloads_it(self):
        path = self.document("Stale.pdf")
        self.open("Stale.pdf")
        stale = self.browser.current_window_handle
        self.js(RECORD_POSTS)
        self.js("location.hash = '#/'")                       # the fetch wrapper stays: same page, new view
        self.js("location.hash = '#/doc/Stale.pdf'")
        self.wait_ready()
        shown = int(self.body("data-end"))
        # A stroke not saved yet: the tab stays on the revision it shows while another tab saves.
        self.stroke(300)
        self.browser.switch_to.new_window("tab")
        self.open("Stale.pdf")
        self.stroke(200)
        self.save_and_wait("Stale.pdf")
        saved = os.path.getsize(path)
        self.browser.close()
        self.browser.switch_to.window(stale)
        self.browser.find_element(By.ID, "save").click()
        # Refused, not merged: the tab is reloaded with its stroke kept and says so in one line.
        self.wait_ready(end=saved)
        posted = self.js("return window.posted")
        self.assertEqual((posted[-1]["url"], posted[-1]["body"]["base_end"]), ("/api/save", shown))
        stale_revision = posted[-1]["body"]["base_revision"]
        self.assertTrue(stale_revision)
        self.assertEqual(os.path.getsize(path), saved, "the stale save changed the file")
        self.assertEqual(self.unsaved(), 1, "the refused stroke is kept")
        self.assertIn("changed", self.browser.find_element(By.ID, "message-text").text)
        # The next save names the revision now shown, and goes through; so does the undo after it.
        self.save_and_wait("Stale.pdf")
        posted = self.js("return window.posted")
        self.assertEqual(posted[-1]["body"]["base_end"], saved)
        self.assertNotIn(posted[-1]["body"]["base_revision"], ["", None, stale_revision])
        after = os.path.getsize(path)
        self.assertEqual(len(self.inks("Stale.pdf")), 2)
        self.browser.find_element(By.ID, "undo").click()
        self.wait_ready(end=saved)
        posted = self.js("return window.posted")
        self.assertEqual((posted[-1]["url"], posted[-1]["body"]["base_end"]), ("/api/undo", after))
        self.assertNotIn(posted[-1]["body"]["base_revision"], ["", None, stale_revision])
        self.assertEqual(len(self.inks("Stale.pdf")), 1)

    def test_a_million_ink_points_are_saved_as_one_revision(self):
        """A page of dense handwriting several times over, as the workspace sends it: each stroke
        an ink edit of its own, its points one string "x y x y …"."""
        path = self.document("Dense.pdf")
        before = render(path)
        rng = random.Random(40)
        strokes, points = 2000, 500
        edits = []
        for _ in range(strokes):
            x, y = rng.uniform(60, 520), rng.uniform(60, 700)
            line = " ".join(f"{x + 40 * i / points:.2f} {y + 6 * ((i * 7) % 11) / 11:.2f}" for i in range(points))
            edits.append({"op": "ink", "page": 1, "strokes": [line], "width": 1, "color": "#1a33cc", "opacity": 1})
        body = json.dumps({"path": "Dense.pdf", "base_end": os.path.getsize(path), "edits": edits})
        import http.client
        connection = http.client.HTTPConnection("127.0.0.1", self.daemon.port, timeout=300)
        connection.request("POST", "/api/save", body=body, headers={
            "Host": self.daemon.host, "Cookie": "pdftrapper_session=" + self.client.cookie,
            "X-PDFTrapper-CSRF": "1", "Content-Type": "application/json"})
        response = connection.getresponse()
        answer = json.loads(response.read())
        connection.close()
        self.assertEqual(response.status, 200, answer)
        self.assertEqual(len(answer["operations"]), strokes)
        self.assertEqual(len(self.daemon.history("Dense.pdf")), 2, "one revision")
        subprocess.run(["qpdf", "--check", path], check=True, capture_output=True)
        after = render(path)
        self.assertGreater(changed_pixels(before, after, (60, 60, 560, 700)), 20_000, "the ink is not drawn")


if __name__ == "__main__":
    unittest.main()
