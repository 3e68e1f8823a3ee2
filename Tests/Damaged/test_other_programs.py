"""Other programs writing the same files, from outside: what PDFTrapper's recovery and roll-back
leave of a save made by another program (pypdf here) while a revision of its own was cut short.

The binary is PDFTRAPPER_BIN (default .build/debug/pdftrapper below the checkout).
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Workspace"))
from test_damaged import a_page, read  # noqa: E402
from workspace import BIN, reader_pages  # noqa: E402


class OtherPrograms(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="pdftrapper-others-")
        self.page = os.path.join(self.dir, "page.png")
        a_page(self.page)
        self.state = ["--state-dir", os.path.join(self.dir, "state")]

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def run_bin(self, *arguments, environment=None):
        return subprocess.run([BIN, *arguments], capture_output=True, text=True, timeout=120,
                              env={**os.environ, **(environment or {})})

    def test_recovery_never_cuts_a_file_another_program_saved(self):
        """An ingest killed before its sync leaves a journal record; the user's editor then saves
        the file with a page more (a new file renamed over the old one). Recovery finds other
        bytes where its revision began and leaves the editor's save as it is."""
        target = os.path.join(self.dir, "T.pdf")
        self.assertEqual(self.run_bin("ingest", *self.state, "--to", target, self.page).returncode, 0)
        killed = self.run_bin("ingest", *self.state, "--to", target, self.page,
                              environment={"PDFTRAPPER_CRASH_AT": "before-sync"})
        self.assertLess(killed.returncode, 0, killed.stderr)
        import pypdf
        reader = pypdf.PdfReader(target)
        writer = pypdf.PdfWriter()
        for page in reader.pages:
            writer.add_page(page)
        writer.add_blank_page(width=300, height=300)
        saved = os.path.join(self.dir, ".T.pdf.editor")
        with open(saved, "wb") as f:
            writer.write(f)
        os.rename(saved, target)
        editors = read(target)

        recovered = self.run_bin("recover", *self.state)
        self.assertEqual(recovered.returncode, 0, recovered.stderr)
        self.assertEqual(read(target), editors, "recovery cut the editor's save")
        self.assertIn("another program changed it", recovered.stderr + recovered.stdout)
        self.assertEqual(set(reader_pages(target).values()), {len(reader.pages) + 1})
        # And the next ingest appends to the editor's file.
        self.assertEqual(self.run_bin("ingest", *self.state, "--to", target, self.page).returncode, 0)
        self.assertTrue(read(target).startswith(editors))
        self.assertEqual(set(reader_pages(target).values()), {len(reader.pages) + 2})


if __name__ == "__main__":
    unittest.main()
