"""Several hosts, one library, short: multihost.py with 20 files a host on a fixed seed, every
layout once (own path and one path, Gluster as installed and with its caches off) and one case
with kills of host A and an undo from host B (`make multihost` runs 300 files a host). It runs as
its own process, as a user would run it, and must print its summary line and exit 0.

Skipped, with the reason in one line, when not root, without /dev/fuse, or when GlusterFS cannot
be started. The binary is PDFTRAPPER_BIN (default .build/debug/pdftrapper below the checkout).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gluster  # noqa: E402
import multihost  # noqa: E402

SEED = 43
FILES = 20


class MultiHost(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        reason = gluster.why_unavailable()
        if reason:
            raise unittest.SkipTest(f"no GlusterFS here: {reason}")

    def test_every_layout_short_on_a_fixed_seed(self):
        with tempfile.NamedTemporaryFile(suffix=".json") as report:
            run = subprocess.run([sys.executable, os.path.join(HERE, "multihost.py"), "--files", str(FILES),
                                  "--seed", str(SEED), "--json", report.name],
                                 capture_output=True, text=True, timeout=600)
            sys.stderr.write(run.stdout)
            summary = [line for line in run.stdout.splitlines() if line.startswith("multihost: ") and "committed" in line]
            self.assertEqual(len(summary), 1, run.stdout + run.stderr[-3000:])
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr[-3000:])
            with open(report.name) as f:
                results = {r["layout"]: r for r in json.load(f)["results"]}
        self.assertEqual(sorted(results), sorted(multihost.DEFAULT_LAYOUTS))
        for name, result in results.items():
            with self.subTest(layout=name):
                if result["outcome"] == "refused":
                    # Only a mount that caches metadata may be refused (multihost.py checks the line).
                    self.assertEqual(result["options"], "as installed")
                else:
                    self.assertEqual(result["lost"], [])
                    self.assertEqual(result["present"], result["inputs"] - len(result["undone"]))
        for name in ("own-off", "one-off"):
            self.assertTrue(results[name]["live"]["told"], results[name])
        kills = results["own-off-kills"]
        self.assertEqual(kills["kills"], multihost.KILLS)
        self.assertEqual(kills["undone"], ["shared-A-extra.jpg"])

    def test_the_checks_see_a_page_cut_from_the_file(self):
        """The harness checking itself: a clean run, then Shared.pdf cut back to the end of its
        revision before last (still a whole PDF, which every reader takes): the pages of its last
        revision were reported committed and are gone, and the checks must say so, page by page."""
        folder = tempfile.mkdtemp(prefix="pdftrapper-multihost-selftest-")
        run = multihost.Run(folder, multihost.Layout("one-off"), os.path.abspath(multihost.default_binary()), 5, SEED)
        self.assertEqual(run.run(), "ran")
        shared = os.path.join(folder, "final", multihost.SHARED)
        before = multihost.page_images(shared)
        with open(shared, "rb") as f:
            data = f.read()
        end = data.rfind(b"%%EOF", 0, data.rfind(b"%%EOF"))  # the revision before last ends there
        self.assertGreater(end, 0)
        end += len(b"%%EOF")
        while data[end:end + 1] in (b"\r", b"\n"):
            end += 1
        with open(shared, "wb") as f:
            f.write(data[:end])
        cut = set(before) - set(multihost.page_images(shared))
        self.assertTrue(cut)
        result = multihost.check(run, "ran")
        self.assertEqual(len(result["lost"]), len(cut), result)
        self.assertEqual(result["targets"][multihost.SHARED]["state"], "clean")
        self.assertEqual(result["violations"], [])
        shutil.rmtree(folder)

if __name__ == "__main__":
    unittest.main()
