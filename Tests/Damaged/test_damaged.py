"""Damaged targets, from outside: every kind of damage in damage.py, through `pdftrapper ingest`,
the daemon's inbox and an edit script the daemon applies. After each the target is either its old
bytes, byte for byte (the input waiting in quarantine, the script in failed/, with the reason),
or a file all six readers open with the new page in it, the old bytes kept: `pdftrapper undo`,
repeated, gives back the damaged file byte for byte. Never anything between.

The binary is PDFTRAPPER_BIN (default .build/debug/pdftrapper below the checkout).
"""
import hashlib
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Workspace"))
import damage  # noqa: E402
from workspace import BIN, reader_pages  # noqa: E402


def read(path):
    with open(path, "rb") as f:
        return f.read()


def sha(path):
    return hashlib.sha256(read(path)).hexdigest()


def pages_found(path):
    """The most pages any of qpdf and poppler finds in a (perhaps damaged) file; 0 where neither opens it."""
    found = 0
    qpdf = subprocess.run(["qpdf", "--show-npages", path], capture_output=True, text=True)
    if qpdf.stdout.strip().isdigit():
        found = int(qpdf.stdout.strip())
    info = subprocess.run(["pdfinfo", path], capture_output=True, text=True)
    for line in info.stdout.splitlines():
        if line.startswith("Pages:"):
            found = max(found, int(line.split()[1]))
    return found


# The kinds of damage after which the page goes in (the others leave the file as it was).
LANDING = {"pages-nowhere", "no-root", "xref-wrong", "zero-pages", "trailing-garbage"}


def a_page(path):
    """A scanned page as a phone or scanner leaves it: a PNG with text on it (ImageMagick)."""
    subprocess.run(["convert", "-size", "850x1100", "xc:white", "-pointsize", "48", "-draw", "text 100,200 'New page'",
                    path], check=True)


class DamagedTargets(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="pdftrapper-damaged-")
        cls.kinds = damage.make_all(os.path.join(cls.dir, "kinds"))
        cls.page = os.path.join(cls.dir, "page.png")
        a_page(cls.page)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dir, ignore_errors=True)

    def run_bin(self, *arguments):
        return subprocess.run([BIN, *arguments], capture_output=True, text=True, timeout=120)

    @staticmethod
    def quarantine_note(folder, kind):
        """The quarantine note of the page meant for inbox-KIND.pdf, or None."""
        for where, _, names in os.walk(os.path.join(folder, "quarantine")):
            for name in names:
                if name.endswith(".why.txt"):
                    text = read(os.path.join(where, name)).decode()
                    if f"inbox-{kind}.pdf" in text:
                        return text
        return None

    def check_outcome(self, kind, target, original, landed, state_args):
        """Either the old bytes and `landed` False, or the new page in a file every reader opens,
        and undo, repeated, back to the old bytes. Returns which."""
        before_pages = pages_found(original)
        if not landed:
            self.assertEqual(sha(target), sha(original), f"{kind}: refused, but the file changed")
            return "refused"
        # Every reader opens it and they agree; a repair may find pages no reader found before.
        counts = reader_pages(target)
        pages = set(counts.values())
        self.assertTrue(len(pages) == 1 and pages.pop() >= before_pages + 1,
                        f"{kind}: expected {before_pages} + 1 pages or more, readers say {counts}")
        history = self.run_bin("history", target)
        self.assertEqual(history.returncode, 0, history.stderr)
        if subprocess.run(["qpdf", "--check", original], capture_output=True).returncode != 0:
            self.assertIn("repair", history.stdout, f"{kind}: the history does not say it was repaired:\n{history.stdout}")
        after = counts["pypdf"]
        undone = 0
        while sha(target) != sha(original) and undone < 5:
            undo = self.run_bin("undo", *state_args, target)
            self.assertEqual(undo.returncode, 0, f"{kind}: undo refused: {undo.stderr}")
            undone += 1
        self.assertEqual(sha(target), sha(original), f"{kind}: undo did not give back the damaged file byte for byte")
        # And redo puts the repair and the page back.
        for _ in range(undone):
            redo = self.run_bin("redo", *state_args, target)
            self.assertEqual(redo.returncode, 0, f"{kind}: redo refused: {redo.stderr}")
        self.assertEqual(set(reader_pages(target).values()), {after}, f"{kind}: after redo")
        return "repaired"

    def test_ingest(self):
        outcomes = {}
        for kind, source in self.kinds.items():
            with self.subTest(kind=kind):
                folder = tempfile.mkdtemp(dir=self.dir)
                target = os.path.join(folder, "target.pdf")
                shutil.copy(source, target)
                state = ["--state-dir", os.path.join(folder, "state")]
                result = self.run_bin("ingest", *state, "--to", target, self.page)
                self.assertIn(result.returncode, (0, 65), f"{kind}: {result.stderr}")
                if result.returncode != 0:
                    self.assertIn(target, result.stderr)
                    self.assertEqual(len(result.stderr.strip().splitlines()[-1].split("\n")), 1)
                outcomes[kind] = self.check_outcome(kind, target, source, result.returncode == 0, state)
        # The page tree that points nowhere is the case this was found with: it must take the page,
        # as every kind must whose catalog can be found (a file cut inside the object stream that
        # held it has none, and a page-tree loop is refused by qpdf's check: both stay as they were).
        self.assertEqual({kind for kind, outcome in outcomes.items() if outcome == "repaired"}, LANDING, outcomes)
        print(f"ingest into damaged targets: {outcomes}", file=sys.stderr)

    def test_daemon_inbox_and_edit_scripts(self):
        folder = tempfile.mkdtemp(dir=self.dir)
        for sub in ["inbox", "library", "edits", "quarantine"]:
            os.makedirs(os.path.join(folder, sub))
        rules = "".join(f'[[rule]]\nname = "{kind}"\ntarget = "inbox-{kind}.pdf"\n[rule.match]\nfolder = "{kind}"\n\n'
                        for kind in self.kinds)
        config = os.path.join(folder, "config.toml")
        with open(config, "w") as f:
            f.write('[daemon]\nstate_dir = "state"\n[library]\nroot = "library"\n'
                    '[inbox]\npath = "inbox"\nsettle = "0.3s"\nquarantine = "quarantine"\n'
                    '[edits]\npath = "edits"\n\n' + rules)
        for kind, source in self.kinds.items():
            shutil.copy(source, os.path.join(folder, "library", f"inbox-{kind}.pdf"))
            shutil.copy(source, os.path.join(folder, "library", f"edit-{kind}.pdf"))
        log = open(os.path.join(folder, "daemon.log"), "w")
        daemon = subprocess.Popen([BIN, "run", "--config", config], stdout=log, stderr=subprocess.STDOUT)
        try:
            for kind in self.kinds:
                os.makedirs(os.path.join(folder, "inbox", kind))
                hidden = os.path.join(folder, "inbox", kind, ".page.png.part")
                shutil.copy(self.page, hidden)
                os.rename(hidden, os.path.join(folder, "inbox", kind, "page.png"))
                with open(os.path.join(folder, "edits", f".{kind}.part"), "w") as f:
                    f.write(f'target = "edit-{kind}.pdf"\n[[edit]]\nop = "insert-blank"\nafter = 0\nsize = "a4"\n')
                os.rename(os.path.join(folder, "edits", f".{kind}.part"), os.path.join(folder, "edits", f"{kind}.toml"))

            def settled():
                return all((sha(os.path.join(folder, "library", f"inbox-{kind}.pdf")) != sha(source)
                            or self.quarantine_note(folder, kind))
                           and any(os.path.exists(os.path.join(folder, "edits", where, f"{kind}.toml"))
                                   for where in ["done", "failed"])
                           for kind, source in self.kinds.items())
            deadline = time.time() + 120
            while not settled():
                self.assertIsNone(daemon.poll(), "the daemon ended")
                self.assertLess(time.time(), deadline, open(os.path.join(folder, "daemon.log")).read()[-3000:])
                time.sleep(0.1)
            self.assertIsNone(daemon.poll(), "the daemon ended")
        finally:
            daemon.terminate()
            daemon.wait(20)
            log.close()
        daemon_log = open(os.path.join(folder, "daemon.log")).read()
        state = ["--config", config]
        outcomes = {}
        for kind, source in self.kinds.items():
            with self.subTest(kind=kind, via="inbox"):
                target = os.path.join(folder, "library", f"inbox-{kind}.pdf")
                landed = sha(target) != sha(source)
                note = self.quarantine_note(folder, kind)
                # Landed, or waiting in quarantine with a note that names the target and the reason.
                self.assertTrue(landed != bool(note), f"{kind}: landed {landed}, note {note!r}; log:\n{daemon_log[-3000:]}")
                outcomes["inbox " + kind] = self.check_outcome(kind, target, source, landed, state)
            with self.subTest(kind=kind, via="edit script"):
                target = os.path.join(folder, "library", f"edit-{kind}.pdf")
                done = os.path.exists(os.path.join(folder, "edits", "done", f"{kind}.toml"))
                failed = os.path.exists(os.path.join(folder, "edits", "failed", f"{kind}.toml"))
                self.assertTrue(done != failed, f"{kind}: script neither done nor failed")
                if failed:
                    reason = open(os.path.join(folder, "edits", "failed", f"{kind}.toml.error.txt")).read()
                    self.assertTrue(reason.strip(), kind)
                outcomes["edit " + kind] = self.check_outcome(kind, target, source, done, state)
        for via in ["inbox", "edit"]:
            self.assertEqual({kind for kind in self.kinds if outcomes[f"{via} {kind}"] == "repaired"}, LANDING, outcomes)
        print(f"daemon with damaged targets: {outcomes}", file=sys.stderr)


    def test_a_fifo_where_a_target_should_be(self):
        """A FIFO at a target's path (another program's pipe, a mistake) is refused at once with a
        one-line reason, by `ingest` and by the daemon, which quarantines the input and goes on."""
        folder = tempfile.mkdtemp(dir=self.dir)
        fifo = os.path.join(folder, "pipe.pdf")
        os.mkfifo(fifo)
        result = self.run_bin("ingest", "--state-dir", os.path.join(folder, "state"), "--to", fifo, self.page)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("pipe.pdf: not a regular file", result.stderr.strip().splitlines()[-1])
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO is left as it was")

        for sub in ["inbox", "library", "quarantine"]:
            os.makedirs(os.path.join(folder, sub))
        os.mkfifo(os.path.join(folder, "library", "Pipe.pdf"))
        config = os.path.join(folder, "config.toml")
        with open(config, "w") as f:
            f.write('[daemon]\nstate_dir = "state"\n[library]\nroot = "library"\n[inbox]\npath = "inbox"\nsettle = "0.3s"\n'
                    'quarantine = "quarantine"\n[[rule]]\nname = "pipe"\ntarget = "Pipe.pdf"\n')
        with open(os.path.join(folder, "daemon.log"), "w") as log:
            daemon = subprocess.Popen([BIN, "run", "--config", config], stdout=log, stderr=subprocess.STDOUT)
            try:
                shutil.copy(self.page, os.path.join(folder, "inbox", ".page.png.part"))
                os.rename(os.path.join(folder, "inbox", ".page.png.part"), os.path.join(folder, "inbox", "page.png"))
                note = os.path.join(folder, "quarantine", "page.png.why.txt")
                deadline = time.time() + 60
                while not os.path.exists(os.path.join(folder, "quarantine", "page.png")):
                    self.assertIsNone(daemon.poll(), "the daemon ended")
                    self.assertLess(time.time(), deadline, "the input never reached the quarantine")
                    time.sleep(0.1)
                self.assertIn("not a regular file", read(note).decode())
                self.assertIsNone(daemon.poll(), "the daemon goes on")
            finally:
                daemon.terminate()
                daemon.wait(20)

    def test_purge_keeps_what_it_rewrote(self):
        """An edit script with purge = true rewrites the file whole after its revision: undo gives
        back the file before the purge, then before the edit, byte for byte; redo both again."""
        folder = tempfile.mkdtemp(dir=self.dir)
        os.makedirs(os.path.join(folder, "library"))
        classic, _ = damage.source_documents(os.path.join(folder, "sources"))
        target = os.path.join(folder, "library", "letter.pdf")
        shutil.copy(classic, target)
        config = os.path.join(folder, "config.toml")
        with open(config, "w") as f:
            f.write('[daemon]\nstate_dir = "state"\n[library]\nroot = "library"\n[inbox]\npath = "inbox"\n')
        script = os.path.join(folder, "purge.toml")
        with open(script, "w") as f:
            f.write('target = "letter.pdf"\npurge = true\n[[edit]]\nop = "delete"\npages = [2]\n')
        applied = self.run_bin("apply", "--config", config, script)
        self.assertEqual(applied.returncode, 0, applied.stderr)
        purged = read(target)
        self.assertEqual(set(reader_pages(target).values()), {2})
        self.assertIn("compact", self.run_bin("history", target).stdout)
        edited = None
        for expected in ["edited", "original"]:
            undo = self.run_bin("undo", "--config", config, target)
            self.assertEqual(undo.returncode, 0, undo.stderr)
            if expected == "edited":
                edited = read(target)
                self.assertTrue(edited.startswith(read(classic)), "undo of the purge gives back the edited file")
                self.assertEqual(set(reader_pages(target).values()), {2})
        self.assertEqual(sha(target), sha(classic))
        for _ in range(2):
            redo = self.run_bin("redo", "--config", config, target)
            self.assertEqual(redo.returncode, 0, redo.stderr)
        self.assertEqual(read(target), purged)


if __name__ == "__main__":
    unittest.main()
