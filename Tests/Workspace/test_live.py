"""The live view, from outside: every revision of the library reaches an open page (the
`/api/events` stream) once, whoever made it: the daemon's own capture, a save from the workspace
(an edit worker), `pdftrapper undo` and `ingest` run beside the daemon, another program saving a
PDF anew. Nothing else below the library is told (ARCHITECTURE.md, "The event model")."""
import os
import shutil
import subprocess
import unittest

from workspace import BIN, Client, Daemon, LiveFeed, text_pdf


class LiveTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.daemon = Daemon()
        cls.client = Client(cls.daemon)

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()

    def library(self, *parts):
        return self.daemon.path("library", *parts)

    def make_pdf(self, relative, lines):
        """A PDF another program made (Ghostscript, beside the library), moved in whole."""
        made = self.daemon.path("scratch", os.path.basename(relative))
        text_pdf(made, lines)
        os.rename(made, self.library(relative))

    def size(self, *parts):
        return os.path.getsize(self.library(*parts))

    def test_every_revision_reaches_an_open_page_once_whoever_makes_it(self):
        feed = LiveFeed(self.daemon, self.client)
        self.addCleanup(feed.close)
        self.make_pdf("Letter.pdf", ["Dear reader"])
        first = self.size("Letter.pdf")
        feed.until("Letter.pdf", first)

        # A save from the workspace: an edit worker, another process, makes it.
        status, answer = self.client.json("POST", "/api/save", {"path": "Letter.pdf", "base_end": first,
                                                                 "edits": [{"op": "rotate", "pages": [1], "degrees": 90}]})
        self.assertEqual(status, 200, answer)
        saved = self.size("Letter.pdf")
        feed.until("Letter.pdf", saved)

        # `pdftrapper undo` beside the daemon.
        subprocess.run([BIN, "undo", "--config", self.daemon.config, self.library("Letter.pdf")], check=True,
                       capture_output=True)
        self.assertEqual(self.size("Letter.pdf"), first)
        feed.until("Letter.pdf", first)

        # Another program saves it anew: written beside it, renamed over it.
        beside = self.library(".Letter.pdf.saving")
        subprocess.run(["qpdf", "--object-streams=generate", self.library("Letter.pdf"), beside], check=True)
        os.rename(beside, self.library("Letter.pdf"))
        rewritten = self.size("Letter.pdf")
        feed.until("Letter.pdf", rewritten)

        # The daemon's own capture, from the inbox.
        photo = self.daemon.path("page.jpg")
        subprocess.run(["convert", "-size", "300x200", "xc:white", "-fill", "black", "-draw", "rectangle 20,20 120,80",
                        photo], check=True)
        self.daemon.drop("page.jpg", photo)
        self.daemon.wait_for(lambda: os.path.exists(self.library("Inbox.pdf")), what="the capture")
        captured = self.size("Inbox.pdf")
        feed.until("Inbox.pdf", captured)

        # `pdftrapper ingest` into a folder that did not exist when the daemon started.
        subprocess.run([BIN, "ingest", "--to", self.library("2026", "12", "Receipt.pdf"), "--state-dir",
                        self.daemon.path("cli-state"), photo], check=True, capture_output=True)
        feed.until("2026/12/Receipt.pdf", self.size("2026", "12", "Receipt.pdf"))

        # What is not a document: hidden files, the state folder, other files. Then a last PDF,
        # after which nothing before it can still be on its way.
        self.make_pdf(".hidden.pdf", ["hidden"])
        shutil.copy(self.library("Letter.pdf"), self.library(".pdftrapper", "copy.pdf"))
        with open(self.library("notes.txt"), "w") as f:
            f.write("not a document")
        self.make_pdf("Last.pdf", ["last"])
        feed.until("Last.pdf", self.size("Last.pdf"))

        self.assertEqual(feed.told("Letter.pdf"), [(first, "changed"), (saved, "edit"), (first, "undo"),
                                                   (rewritten, "changed")])
        self.assertEqual(feed.told("Inbox.pdf"), [(captured, "created")])
        self.assertEqual(sorted({path for path, _, _ in feed.revisions}),
                         ["2026/12/Receipt.pdf", "Inbox.pdf", "Last.pdf", "Letter.pdf"])
        self.assertTrue(self.daemon.alive(), self.daemon.log_text()[-3000:])


if __name__ == "__main__":
    unittest.main()
