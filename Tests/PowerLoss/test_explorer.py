"""The explorer itself, on small programs whose crash states are known: it must find the state a
missing fsync allows (so a clean run of powerloss.py means something), and must not find it once
the fsyncs are there.

    python3 -m unittest Tests/PowerLoss/test_explorer.py
"""

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import crashstates  # noqa: E402
import recorder  # noqa: E402


def explore(program):
    """Records `program` (Python) in a fresh folder holding old.txt ("old"), and returns every
    distinct crash state as {path: bytes}."""
    base = tempfile.mkdtemp(prefix="pdftrapper-explorer-test-")
    try:
        run, initial = os.path.join(base, "run"), os.path.join(base, "initial")
        os.makedirs(run)
        with open(os.path.join(run, "old.txt"), "w") as file:
            file.write("old")
        shutil.copytree(run, initial)
        log = os.path.join(base, "strace.log")
        subprocess.run(recorder.strace_command(log, [sys.executable, "-c", textwrap.dedent(program)]), cwd=run, check=True)
        recording = recorder.Recording(run, initial, log)
        tree = recorder.Tree(initial)
        explorer = crashstates.Explorer(recording.ops, tree.files, tree.folders, tree.links,
                                        crashstates.initial_contents(initial, tree))
        everything = explorer.apply(range(len(recording.ops)))
        real = {}
        for folder, _, names in os.walk(run):
            for name in names:
                with open(os.path.join(folder, name), "rb") as file:
                    real[os.path.relpath(os.path.join(folder, name), run)] = file.read()
        assert everything.files == real, f"replaying every operation gives {everything.files}, the run left {real}"
        states = {}
        for _, _, applied, torn in explorer.states():
            state = explorer.apply(applied, torn)
            states[state.digest()] = state.files
        return list(states.values())
    finally:
        shutil.rmtree(base)


class ExplorerTests(unittest.TestCase):
    def test_a_rename_without_fsync_of_the_data_can_leave_an_empty_file_under_the_new_name(self):
        states = explore("""
            import os
            fd = os.open("new.tmp", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            os.write(fd, b"new contents")
            os.close(fd)
            os.rename("new.tmp", "old.txt")
            folder = os.open(".", os.O_RDONLY)
            os.fsync(folder)
            """)
        contents = {state.get("old.txt") for state in states}
        self.assertIn(b"", contents, "the rename durable, the data not: an empty old.txt")
        self.assertIn(b"old", contents)
        self.assertIn(b"new contents", contents)

    def test_with_the_file_and_its_folder_synced_old_txt_is_old_or_new_whole(self):
        states = explore("""
            import os
            fd = os.open("new.tmp", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            os.write(fd, b"new contents")
            os.fsync(fd)
            os.close(fd)
            os.rename("new.tmp", "old.txt")
            folder = os.open(".", os.O_RDONLY)
            os.fsync(folder)
            """)
        self.assertEqual({state.get("old.txt") for state in states}, {b"old", b"new contents"})

    def test_a_new_folder_not_synced_in_its_parent_can_take_a_synced_file_with_it(self):
        states = explore("""
            import os
            os.mkdir("archive")
            os.rename("old.txt", "archive/old.txt")
            fd = os.open("archive", os.O_RDONLY)
            os.fsync(fd)
            """)
        self.assertIn({}, states, "the move durable in archive/, archive/ itself not: the file is gone")

    def test_an_append_torn_keeps_only_its_first_part(self):
        states = explore("""
            import os
            fd = os.open("old.txt", os.O_WRONLY | os.O_APPEND)
            os.write(fd, b"+" * 3000)
            """)
        self.assertEqual(sorted(len(state["old.txt"]) for state in states), [3, 3 + 1024, 3 + 3000])

    def test_writes_through_a_descriptor_land_where_lseek_put_them(self):
        states = explore("""
            import os
            fd = os.open("old.txt", os.O_RDWR)
            os.lseek(fd, 0, os.SEEK_END)
            os.write(fd, b"-end")
            os.pwrite(fd, b"O", 0)
            os.fsync(fd)
            """)
        self.assertIn(b"Old-end", [state["old.txt"] for state in states])
        self.assertNotIn(b"old-endO", [state["old.txt"] for state in states])


if __name__ == "__main__":
    unittest.main()
