"""The second-writer soak, short: 75 seconds on a fixed seed (`make second-writer-soak` runs ten
minutes on a new seed). It runs as its own process, as a user would run it, and must print its
summary line and exit 0.

The binary is PDFTRAPPER_BIN (default .build/debug/pdftrapper below the checkout).
"""
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


class SecondWriterSoak(unittest.TestCase):
    def test_short_soak_on_a_fixed_seed(self):
        soak = subprocess.run([sys.executable, os.path.join(HERE, "second_writer.py"), "--seconds", "75", "--seed", "40"],
                              capture_output=True, text=True, timeout=900)
        sys.stderr.write(soak.stdout)
        summary = [line for line in soak.stdout.splitlines() if line.startswith("second-writer soak: ") and "committed" in line]
        self.assertEqual(len(summary), 1, soak.stdout + soak.stderr)
        self.assertEqual(soak.returncode, 0, soak.stdout + soak.stderr[-3000:])


if __name__ == "__main__":
    unittest.main()
