"""The library view of a library of hundreds of PDFs, in Debian's Chromium: listed a page at a
time, the next page loaded as the list is scrolled to its end, and no PDF opened but those of the
pages listed (the daemon's file opens counted by strace while the browser lists the library).
"""
import os
import re
import shutil
import subprocess
import unittest

from selenium.webdriver.common.by import By

from workspace import Client, Daemon, LiveFeed, leave_browser, shared_browser, text_pdf

DOCUMENTS = 300
PAGE = 100   # the browser asks for this many at a time (LIBRARY_PAGE in web/app.js)


class LibraryTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.daemon = Daemon()
        cls.browser = shared_browser()
        # Logged in (the login lands in the library view) and off to a blank page before the
        # library is filled: the test counts every PDF the daemon opens from the first listing on.
        cls.browser.get(cls.daemon.login_url)
        cls.browser.get("about:blank")
        one = cls.daemon.path("One.pdf")
        text_pdf(one, ["a document of the library"])
        cls.names = sorted(f"Folder{n % 3}/Doc{n:03}.pdf" for n in range(DOCUMENTS))
        # The daemon reads each new PDF's end once to tell open pages of it (LibraryWatch), and its
        # words for the search index; that is over before the count of opens begins, which is
        # about the listing.
        feed = LiveFeed(cls.daemon, Client(cls.daemon))
        for name in cls.names:
            os.makedirs(os.path.dirname(cls.daemon.path("library", name)), exist_ok=True)
            shutil.copy(one, cls.daemon.path("library", name))
        feed.until_all(cls.names)
        feed.close()
        # The search index reads each new PDF once too, on a thread of its own: over before the count.
        client = Client(cls.daemon)
        cls.daemon.wait_for(lambda: len(client.json("GET", "/api/search?q=library&limit=1000")[1].get("hits", [])) == DOCUMENTS,
                            seconds=60, what="every document in the search index")

    @classmethod
    def tearDownClass(cls):
        leave_browser(cls.browser)
        cls.daemon.stop()

    # Read in one script: the list is drawn again whenever documents it showed as pending are read.
    def listed(self):
        return self.browser.execute_script("return [...document.querySelectorAll('.doc-link')].map((a) => a.dataset.path)")

    def pages_column(self):
        return self.browser.execute_script(
            "return [...document.querySelectorAll('.doc-table tbody tr td:nth-child(2)')].map((td) => td.textContent)")

    def test_a_large_library_is_listed_in_pages_opening_only_the_pdfs_listed(self):
        log = self.daemon.path("opens.strace")
        # Every open the daemon's threads make, from before the browser asks for the library.
        tracer = subprocess.Popen(["strace", "-f", "-e", "trace=open,openat", "-o", log, "-p", str(self.daemon.process.pid)],
                                  stderr=subprocess.PIPE, text=True)
        try:
            self.assertIn("attached", tracer.stderr.readline())
            self.browser.get(self.daemon.base + "/#/")
            self.daemon.wait_for(lambda: self.browser.find_element(By.TAG_NAME, "body").get_attribute("data-state") == "ready",
                                 what="the library view")
            first = self.listed()
            self.assertEqual(len(first), PAGE, "the first page of the list")
            self.assertEqual(self.browser.find_element(By.ID, "library-count").get_attribute("data-total"), str(DOCUMENTS))
            # The pages of each listed document are read after the list was answered, and shown once read.
            self.daemon.wait_for(lambda: self.pages_column() == ["1"] * PAGE, what="the listed documents' page counts")
        finally:
            tracer.terminate()
            tracer.wait(10)
            tracer.stderr.close()
        with open(log) as f:
            opened = set(re.findall(r'"' + re.escape(self.daemon.path("library")) + r'/([^"]+\.pdf)"', f.read()))
        self.assertTrue(opened, "strace saw no PDF opened at all")
        self.assertLessEqual(opened, set(first), "PDFs the list did not show were opened")

        # Scrolled to its end, the list grows a page at a time, to every document.
        while len(self.listed()) < DOCUMENTS:
            count = len(self.listed())
            self.browser.execute_script("document.getElementById('library-more').scrollIntoView()")
            self.daemon.wait_for(lambda: len(self.listed()) > count, what="the next page of the list")
            self.assertEqual(len(self.listed()) - count, min(PAGE, DOCUMENTS - count))
        self.assertEqual(sorted(self.listed()), self.names)
        self.daemon.wait_for(lambda: self.pages_column() == ["1"] * DOCUMENTS, what="every document's page count")

    def test_the_list_answers_in_pages_with_the_next_offset(self):
        from workspace import Client
        client = Client(self.daemon)
        status, first = client.json("GET", "/api/library?offset=0&limit=120")
        self.assertEqual(status, 200)
        self.assertEqual((first["total"], first["offset"], first["next"], len(first["documents"])), (DOCUMENTS, 0, 120, 120))
        status, last = client.json("GET", "/api/library?offset=240&limit=120")
        self.assertEqual((last["offset"], len(last["documents"]), "next" in last), (240, 60, False))
        self.assertEqual([d["path"] for d in first["documents"] + last["documents"]], self.names[:120] + self.names[240:])


if __name__ == "__main__":
    unittest.main()
