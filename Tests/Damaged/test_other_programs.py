"""Other programs writing the same files, from outside: what PDFTrapper's recovery and roll-back
leave of a save made by another program (pypdf here) while a revision of its own was cut short.

The binary is PDFTRAPPER_BIN (default .build/debug/pdftrapper below the checkout).
"""
import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
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
        self.assertIn("another program saved it", recovered.stderr + recovered.stdout)
        self.assertEqual(set(reader_pages(target).values()), {len(reader.pages) + 1})
        # And the next ingest appends to the editor's file.
        self.assertEqual(self.run_bin("ingest", *self.state, "--to", target, self.page).returncode, 0)
        self.assertTrue(read(target).startswith(editors))
        self.assertEqual(set(reader_pages(target).values()), {len(reader.pages) + 2})

    def test_a_copy_renamed_over_keeps_all_but_the_unfinished_revision(self):
        """An ingest killed before its sync, then another program's save that is the file exactly
        as the kill left it (copied and renamed over it: a sync tool, an editor saving unchanged).
        Recovery cuts the revision that never finished, as from the file itself: only its own
        bytes (from its marker on), none the other program wrote, and the page goes in once."""
        target = os.path.join(self.dir, "T.pdf")
        self.assertEqual(self.run_bin("ingest", *self.state, "--to", target, self.page).returncode, 0)
        before = read(target)
        killed = self.run_bin("ingest", *self.state, "--to", target, self.page,
                              environment={"PDFTRAPPER_CRASH_AT": "before-sync"})
        self.assertLess(killed.returncode, 0, killed.stderr)
        copy = os.path.join(self.dir, ".T.pdf.copy")
        shutil.copyfile(target, copy)
        os.rename(copy, target)
        saved = read(target)
        self.assertTrue(saved.startswith(before) and saved[len(before):].startswith(b"%PDFTrapper revision"))

        recovered = self.run_bin("recover", *self.state)
        self.assertEqual(recovered.returncode, 0, recovered.stderr)
        self.assertEqual(read(target), before, "recovery cut more than the unfinished revision")
        self.assertEqual(self.run_bin("ingest", *self.state, "--to", target, self.page).returncode, 0)
        self.assertTrue(read(target).startswith(before))
        self.assertEqual(set(reader_pages(target).values()), {2})

    def widths(self, path):
        import pypdf
        return [round(float(page.mediabox.width)) for page in pypdf.PdfReader(path).pages]

    def pages(self, count, first=300):
        """`count` pages told apart by their width (ImageMagick PNGs at 72 dpi: width in points)."""
        made = []
        for width in range(first, first + count):
            path = os.path.join(self.dir, f"p{width}.png")
            subprocess.run(["convert", "-size", f"{width}x400", "-units", "PixelsPerInch", "-density", "72",
                            "xc:white", path], check=True)
            made.append((path, width))
        return made

    def test_one_lock_per_target_whatever_the_state_folder(self):
        """Two writers with different state folders (`--state-dir`), or another program that takes
        flock(2) on the PDF, never write it at once: the second waits, then appends after."""
        target = os.path.join(self.dir, "T.pdf")
        self.assertEqual(self.run_bin("ingest", *self.state, "--to", target, self.page).returncode, 0)
        before = read(target)
        with open(target, "rb") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            other = subprocess.Popen([BIN, "ingest", "--state-dir", os.path.join(self.dir, "other"), "--to", target,
                                      self.page], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            waiting = ""
            for _ in range(600):
                if other.poll() is not None:
                    break
                with open(f"/proc/{other.pid}/wchan") as f:
                    waiting = f.read()
                if "lock" in waiting:
                    break
                time.sleep(0.05)
            if other.poll() is not None:
                self.fail("the second writer wrote while the file was locked: " + other.communicate()[1])
            self.assertIn("lock", waiting)
            self.assertEqual(read(target), before)
        _, errors = other.communicate(timeout=120)
        self.assertEqual(other.returncode, 0, errors)
        self.assertTrue(read(target).startswith(before))
        self.assertEqual(set(reader_pages(target).values()), {2})

        # Two commands with state folders of their own, at once, many times: every page is in.
        inputs = self.pages(16)
        def ingest(state, share):
            for path, _ in share:
                result = self.run_bin("ingest", "--state-dir", os.path.join(self.dir, state), "--to", target, path)
                self.assertEqual(result.returncode, 0, result.stderr)
        threads = [threading.Thread(target=ingest, args=(name, inputs[i::2])) for i, name in enumerate(["a", "b"])]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        self.assertEqual(sorted(self.widths(target)[2:]), [width for _, width in inputs])
        self.assertEqual(set(reader_pages(target).values()), {18})

    def test_pages_committed_while_another_program_replaces_the_file(self):
        """Another program saves the PDF over and over by writing a new file and renaming it over
        the old one. One that takes flock(2) on the PDF first (as `flock(1)` in a script does):
        every page PDFTrapper reported committed is in the final file. One that takes no lock:
        every committed page is in the final file or in a file that was at the path (each kept
        here by a hard link before it was replaced), and every one of those opens cleanly."""
        target = os.path.join(self.dir, "T.pdf")
        self.assertEqual(self.run_bin("ingest", *self.state, "--to", target, self.page).returncode, 0)
        versions = os.path.join(self.dir, "versions")
        os.mkdir(versions)
        for polite in (True, False):
            stop = threading.Event()
            saves = []

            def save_over_and_over():
                n = 0
                while not stop.is_set():
                    n += 1
                    new = os.path.join(self.dir, ".T.pdf.other")
                    with open(target, "rb") as current:
                        if polite:
                            fcntl.flock(current, fcntl.LOCK_EX)
                        os.link(target, os.path.join(versions, f"{int(polite)}-{n}.pdf"))
                        # A save that moves every object: qpdf writes the file anew.
                        subprocess.run(["qpdf", target, new], check=True)
                        os.rename(new, target)
                    saves.append(n)
                    # An editor saving twenty times a second, not back to back: in one CI run, beside
                    # steps that slow every fsync, saves back to back had all 12 ingests refused,
                    # each saying the file kept being replaced (right, but then nothing is tested).
                    stop.wait(0.05)

            other = threading.Thread(target=save_over_and_over)
            other.start()
            committed, refused = [], []
            try:
                for path, width in self.pages(12, first=400 if polite else 500):
                    result = self.run_bin("ingest", *self.state, "--to", target, path)
                    if result.returncode == 0:
                        committed.append(width)
                    else:
                        self.assertIn("replaced", result.stderr)
                        refused.append(result.stderr.strip().splitlines()[-1])
            finally:
                stop.set()
                other.join()
            self.assertGreater(len(saves), 1)
            final = set(self.widths(target))
            if polite:
                self.assertEqual([w for w in committed if w not in final], [], "pages committed but lost")
            else:
                seen = set(final)
                for name in os.listdir(versions):
                    version = os.path.join(versions, name)
                    check = subprocess.run(["qpdf", "--check", version], capture_output=True, text=True)
                    self.assertEqual(check.returncode, 0, f"{name}: {check.stdout}{check.stderr}")
                    seen |= set(self.widths(version))
                self.assertEqual([w for w in committed if w not in seen], [], "pages committed into no version")
            self.assertEqual(subprocess.run(["qpdf", "--check", target], capture_output=True).returncode, 0)
            self.assertGreater(len(committed), 0, f"polite={polite}: all 12 refused, {len(saves)} saves: {refused[:2]}")


    def test_a_claim_committed_before_a_crash_goes_in_once_whatever_another_program_did(self):
        """The daemon is killed once an input's revision is durable and counted, before the input
        is archived. Another program then saves the PDF anew (qpdf rewrites it whole, the page
        kept). At the restart the claim is known by its id in the target's state: archived, not
        added a second time, though the file is no longer the one PDFTrapper wrote."""
        for sub in ["inbox", "library", "quarantine", "archive"]:
            os.makedirs(os.path.join(self.dir, sub))
        config = os.path.join(self.dir, "config.toml")
        with open(config, "w") as f:
            f.write('[daemon]\nstate_dir = "state"\n[library]\nroot = "library"\n[inbox]\npath = "inbox"\nsettle = "0.3s"\n'
                    'quarantine = "quarantine"\narchive = "archive"\n[[rule]]\nname = "all"\ntarget = "All.pdf"\n'
                    # Each revision's event filed by its key, as a subscriber would keep it.
                    '[[notify]]\nname = "files"\nevents = ["revision"]\n'
                    'command = ["/bin/sh", "-c", "cat > \\"$0/$PDFTRAPPER_KEY.json\\"", "' + self.dir + '/events"]\n')
        os.makedirs(os.path.join(self.dir, "events"))
        target = os.path.join(self.dir, "library", "All.pdf")
        self.assertEqual(self.run_bin("ingest", "--config", config, "--to", target, self.page).returncode, 0)
        (path, width), = self.pages(1, first=333)

        def drop():
            shutil.copy(path, os.path.join(self.dir, "inbox", ".p.png.part"))
            os.rename(os.path.join(self.dir, "inbox", ".p.png.part"), os.path.join(self.dir, "inbox", "p.png"))

        with open(os.path.join(self.dir, "daemon.log"), "w") as log:
            killed = subprocess.Popen([BIN, "run", "--config", config], stdout=log, stderr=subprocess.STDOUT,
                                      env={**os.environ, "PDFTRAPPER_CRASH_AT": "after-state"})
            time.sleep(1)
            drop()
            self.assertLess(killed.wait(timeout=60), 0, "killed at after-state")
        self.assertEqual(self.widths(target).count(width), 1, "the page is in")
        rewritten = os.path.join(self.dir, ".All.pdf.qpdf")
        subprocess.run(["qpdf", target, rewritten], check=True)
        os.rename(rewritten, target)

        with open(os.path.join(self.dir, "daemon.log"), "a") as log:
            daemon = subprocess.Popen([BIN, "run", "--config", config], stdout=log, stderr=subprocess.STDOUT)
            try:
                deadline = time.time() + 60

                def archived():
                    return [name for _, _, names in os.walk(os.path.join(self.dir, "archive")) for name in names]
                while "p.png" not in archived():
                    self.assertIsNone(daemon.poll(), "the daemon ended")
                    self.assertLess(time.time(), deadline, "the claim was never archived")
                    time.sleep(0.1)
            finally:
                daemon.terminate()
                daemon.wait(timeout=30)
        self.assertEqual(self.widths(target).count(width), 1, "the page went in once")
        # And its revision was announced, once, though the crash came before the event was queued.
        import json
        named = []
        for name in os.listdir(os.path.join(self.dir, "events")):
            with open(os.path.join(self.dir, "events", name)) as f:
                named += [item["name"] for item in json.load(f).get("inputs", [])]
        self.assertEqual(named.count("p.png"), 1, named)

if __name__ == "__main__":
    unittest.main()
