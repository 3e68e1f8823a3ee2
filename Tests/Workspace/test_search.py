"""Finding and taking out, in Debian's Chromium: the library's search field answers as one types,
a hit opens its document at the page with the words marked over them, find within a document
steps between the pages that hold the words, and Take out downloads the document, a past revision
(byte for byte the file's beginning), some pages (a PDF every reader opens), shares a file where
the browser can and prints. Checked from outside where it can be: the files' bytes, pypdf, the
words' boxes as /api/words gives them.
"""
import base64
import io
import os
import shutil
import subprocess
import unittest
import urllib.parse

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from workspace import BIN, Client, Daemon, leave_browser, shared_browser, text_pdf


class SearchTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.daemon = Daemon()
        cls.browser = shared_browser()
        cls.client = Client(cls.daemon)
        text_pdf(cls.daemon.path("library", "Receipts", "lunch.pdf"), ["Lunch at the Cafe Zeppelin", "Total 12.50 EUR"])
        # Three pages; "overdraft" on pages 1 and 3.
        import pypdf
        writer = pypdf.PdfWriter()
        for number, line in enumerate(["Your overdraft limit", "Statement of account", "Overdraft interest charged"], 1):
            part = cls.daemon.path(f"bank-{number}.pdf")
            text_pdf(part, [f"Page number {number}", line])
            writer.append(part)
        os.makedirs(cls.daemon.path("library", "Letters"), exist_ok=True)
        with open(cls.daemon.path("library", "Letters", "bank.pdf"), "wb") as f:
            writer.write(f)
        cls.browser.get(cls.daemon.login_url)
        # Indexed by the daemon (the library watch told it of both files). The indexer's thread runs
        # at lowered priority, so on a machine busy with other work it may take a while.
        cls.daemon.wait_for(lambda: len(cls.search("overdraft")) == 2 and len(cls.search("zeppelin")) == 1,
                            seconds=60, what="both documents in the index")

    @classmethod
    def tearDownClass(cls):
        leave_browser(cls.browser)
        cls.daemon.stop()

    def tearDown(self):
        errors = [entry for entry in self.browser.get_log("browser") if entry["level"] == "SEVERE" and "favicon" not in entry["message"]]
        self.assertEqual(errors, [], "the page's console has errors")

    @classmethod
    def search(cls, words, **more):
        status, answer = cls.client.json("GET", "/api/search?" + urllib.parse.urlencode({"q": words, **more}))
        return answer["hits"] if status == 200 else []

    def js(self, script, *arguments):
        return self.browser.execute_script(script, *arguments)

    def wait(self, condition, what):
        self.daemon.wait_for(condition, what=what)

    def body(self, name):
        return self.browser.find_element(By.TAG_NAME, "body").get_attribute("data-" + name)

    def open(self, name):
        # From another page: the same document opened again would keep the page it showed.
        self.browser.get("about:blank")
        self.browser.get(self.daemon.base + "/#/doc/" + name)
        self.wait(lambda: self.body("state") == "ready", "the document")

    def fetched(self, url):
        """The bytes the browser gets for `url`, with its session."""
        encoded = self.browser.execute_async_script("""
            const [url, done] = arguments;
            fetch(url, {credentials: 'same-origin'}).then((r) => r.arrayBuffer()).then((buffer) => {
                let text = ''; for (const byte of new Uint8Array(buffer)) text += String.fromCharCode(byte);
                done(btoa(text));
            });""", url)
        return base64.b64decode(encoded)

    def file(self, *parts):
        with open(self.daemon.path("library", *parts), "rb") as f:
            return f.read()

    def type_search(self, text):
        field = self.browser.find_element(By.ID, "search")
        field.clear()
        field.send_keys(text)

    def results(self):
        return self.js("return [...document.querySelectorAll('#search-results .hit')].map((a) => "
                       "[a.dataset.path, a.dataset.page, [...a.querySelectorAll('mark')].map((m) => m.textContent)])")

    # MARK: the library's search field

    def test_1_results_come_as_one_types_and_a_hit_opens_its_page_with_the_words_marked(self):
        self.browser.get(self.daemon.base + "/#/")
        self.wait(lambda: self.body("state") == "ready", "the library")
        self.type_search("interest")
        self.wait(lambda: self.results() == [["Letters/bank.pdf", "3", ["interest"]]], "one hit, on page 3")
        self.assertTrue(self.browser.find_element(By.ID, "library").get_attribute("hidden") is not None,
                        "the list of documents makes way for the results")
        # Accents and case do not matter; a phrase keeps its order.
        self.type_search("café")
        self.wait(lambda: [hit[0] for hit in self.results()] == ["Receipts/lunch.pdf"], "the café, without its accent")
        self.type_search('"charged interest"')
        self.wait(lambda: self.body("search") == "done" and self.results() == [], "nothing for the words out of order")
        self.assertIn("No page holds", self.browser.find_element(By.ID, "search-summary").text)

        self.type_search("overdraft")
        self.wait(lambda: sorted(hit[1] for hit in self.results()) == ["1", "3"], "both pages")
        self.browser.find_element(By.CSS_SELECTOR, '#search-results .hit[data-page="3"]').click()
        self.wait(lambda: self.body("state") == "ready" and
                  self.browser.find_element(By.ID, "page-number").text.startswith("3 / 3"), "page 3 of bank.pdf")
        self.wait(lambda: self.js("return document.getElementById('find-marks').dataset.marks") == "1", "one mark")
        self.assertEqual(self.browser.find_element(By.ID, "find-input").get_attribute("value"), "overdraft")
        # The mark lies over the word as poppler places it on the page.
        _, words = self.client.json("GET", "/api/words?path=Letters/bank.pdf&page=3")
        word = next(w for w in words["words"] if w["text"] == "Overdraft")
        _, info = self.client.json("GET", "/api/document?path=Letters/bank.pdf")
        page = info["pages"][2]
        mark, frame = self.js("""
            const m = document.querySelector('.find-mark').getBoundingClientRect();
            const f = document.getElementById('page-image').getBoundingClientRect();
            return [[m.left, m.top, m.right, m.bottom], [f.left, f.top, f.width, f.height]];""")
        expected = [frame[0] + word["box"][0] * frame[2] / page["width"], frame[1] + word["box"][1] * frame[3] / page["height"],
                    frame[0] + word["box"][2] * frame[2] / page["width"], frame[1] + word["box"][3] * frame[3] / page["height"]]
        for got, want in zip(mark, expected):
            self.assertAlmostEqual(got, want, delta=2, msg=f"mark {mark} over the word at {expected}")
        # Marks are never saved: nothing to save, and the file has no new revision.
        self.assertEqual(self.browser.find_element(By.ID, "unsaved-count").get_attribute("data-count"), "0")

    def test_2_find_in_a_document_steps_between_the_pages_that_hold_the_words(self):
        self.open("Letters/bank.pdf")
        field = self.browser.find_element(By.ID, "find-input")
        field.clear()
        field.send_keys("overdraft")
        count = self.browser.find_element(By.ID, "find-count")
        self.wait(lambda: count.get_attribute("data-hits") == "2", "two pages hold it")
        self.assertEqual(self.js("return [...document.querySelectorAll('#strip .thumb.has-hit')].map((t) => t.dataset.page)"), ["1", "3"])
        number = lambda: self.browser.find_element(By.ID, "page-number").text.split(" ")[0]
        self.assertEqual(number(), "1")
        self.click("find-next")
        self.wait(lambda: number() == "3" and count.text == "2/2", "the next hit, page 3")
        field.send_keys(Keys.ENTER)
        self.wait(lambda: number() == "1" and count.text == "1/2", "round to page 1")
        self.click("find-prev")
        self.wait(lambda: number() == "3", "back to page 3")
        field.clear()
        field.send_keys("statement")
        self.wait(lambda: count.get_attribute("data-hits") == "1", "one page holds it")
        self.click("find-next")
        self.wait(lambda: number() == "2", "page 2")

    # MARK: take out

    def click(self, element_id):
        self.browser.find_element(By.ID, element_id).click()

    def test_3_download_the_document_a_past_revision_and_some_pages(self):
        path = self.daemon.path("library", "Letters", "bank.pdf")
        first = self.file("Letters", "bank.pdf")
        text_pdf(self.daemon.path("extra.pdf"), ["A later page"])
        subprocess.run([BIN, "ingest", "--to", path, self.daemon.path("extra.pdf")], check=True, capture_output=True)
        now = self.file("Letters", "bank.pdf")
        self.open("Letters/bank.pdf")
        self.wait(lambda: self.body("end") == str(len(now)), "the document as it is now")
        self.click("takeout")
        link = self.browser.find_element(By.ID, "takeout-download")
        self.assertEqual(link.get_attribute("download"), "bank.pdf")
        self.assertEqual(self.fetched(link.get_attribute("href")), now)

        # Some pages: a PDF of their own, which pypdf reads with their words.
        pages = self.browser.find_element(By.ID, "takeout-pages")
        pages.send_keys("2-3")
        self.assertEqual(link.get_attribute("download"), "bank pages 2-3.pdf")
        import pypdf
        reader = pypdf.PdfReader(io.BytesIO(self.fetched(link.get_attribute("href"))))
        self.assertEqual(len(reader.pages), 2)
        self.assertIn("Statement of account", reader.pages[0].extract_text())
        self.click("takeout-cancel")

        # The first revision, from the history: exactly the bytes it left.
        self.browser.find_element(By.CSS_SELECTOR, f'#history-list li[data-end="{len(first)}"]').click()
        self.wait(lambda: not self.browser.find_element(By.ID, "revision-banner").get_attribute("hidden"), "revision 1 on screen")
        self.click("takeout")
        self.assertIn("revision 1", self.browser.find_element(By.ID, "takeout-name").text)
        self.assertEqual(self.fetched(link.get_attribute("href")), first)
        self.assertTrue(self.browser.find_element(By.ID, "takeout-pages").get_attribute("disabled"))
        self.click("takeout-cancel")

    def test_4_share_is_offered_only_where_files_can_be_shared_and_hands_over_the_pdf(self):
        self.open("Receipts/lunch.pdf")
        can = self.js("return typeof navigator.canShare === 'function' && navigator.canShare({files: "
                      "[new File(['%'], 'x.pdf', {type: 'application/pdf'})]})")
        self.assertEqual(self.browser.find_element(By.ID, "takeout-share").get_attribute("hidden") is None, bool(can))
        # A phone's share sheet, stood in for before the page's scripts run: what it is handed.
        added = self.browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
            window.shared = [];
            navigator.canShare = (data) => !!(data && data.files && data.files.length);
            navigator.share = async (data) => {
                const file = data.files[0];
                const bytes = new Uint8Array(await file.arrayBuffer());
                let text = ''; for (const byte of bytes) text += String.fromCharCode(byte);
                window.shared.push({name: file.name, type: file.type, bytes: btoa(text)});
            };"""})
        try:
            self.browser.refresh()
            self.wait(lambda: self.body("state") == "ready", "the document again")
            self.click("takeout")
            share = self.browser.find_element(By.ID, "takeout-share")
            self.assertTrue(share.is_displayed())
            share.click()
            self.wait(lambda: self.js("return window.shared.length") == 1, "the file handed to the share sheet")
            shared = self.js("return window.shared[0]")
            self.assertEqual((shared["name"], shared["type"]), ("lunch.pdf", "application/pdf"))
            self.assertEqual(base64.b64decode(shared["bytes"]), self.file("Receipts", "lunch.pdf"))
        finally:
            self.browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": added["identifier"]})
            self.browser.get("about:blank")

    def test_5_print_hands_the_pdf_to_the_browser(self):
        self.open("Receipts/lunch.pdf")
        self.click("takeout")
        self.click("takeout-print")
        self.wait(lambda: self.js("return !!document.getElementById('print-frame')"), "the print frame")
        source = self.js("return document.getElementById('print-frame').src")
        self.assertTrue(source.startswith("blob:"), source)
        self.assertEqual(self.fetched(source), self.file("Receipts", "lunch.pdf"))

    def test_6_without_a_session_search_and_download_give_nothing(self):
        anonymous = Client(self.daemon, login=False)
        for path in ["/api/search?q=overdraft", "/api/download?path=Letters/bank.pdf"]:
            status, headers, data = anonymous.request("GET", path)
            self.assertEqual((status, data), (401, b""), path)
        status, _, _ = self.client.request("GET", "/api/download?path=../config.toml")
        self.assertEqual(status, 404)


if __name__ == "__main__":
    unittest.main()
