#!/usr/bin/env python3
"""Power loss, explored: every path that writes is recorded once under strace, every crash state
the disk could be left in is built from the recording (crashstates.py names the model), and each
state is recovered and checked as a user would (checks.py). Prints every violation with the
operations that led to it, and last one line:

    powerloss: N crash states from M recorded runs, V violations

Exit 0 only with no violation. `--reduced` explores the few paths `make test` runs; `--max-states`
caps each run's states (spread evenly over its prefixes).

    python3 Tests/PowerLoss/powerloss.py [--bin .build/release/pdftrapper] [--reduced] [--jobs 2]
"""

import argparse
import ctypes
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import checks  # noqa: E402
import crashstates  # noqa: E402
import scenarios  # noqa: E402
import recorder  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPOSITORY = os.path.dirname(os.path.dirname(HERE))


def tree_digest(root, leave_out=()):
    """The digest of a folder as crashstates.State would give it (its links, folders, files)."""
    files, folders, links = {}, set(), {}
    for folder, subfolders, names in os.walk(root):
        relative = os.path.relpath(folder, root)
        relative = "" if relative == "." else relative
        folders.add(relative)
        for name in subfolders + names:
            path = os.path.join(relative, name)
            full = os.path.join(root, path)
            if os.path.islink(full):
                links[path] = os.readlink(full)
                subfolders[:] = [s for s in subfolders if s != name]
            elif os.path.isfile(full) and path not in leave_out:
                with open(full, "rb") as file:
                    files[path] = file.read()
    return crashstates.State(files, folders, links).digest()


# MARK: Exploring one recording

class Run:
    """One recorded run, its expectations and the distinct crash states it can leave."""

    def __init__(self, recording, limit):
        self.recording = recording
        self.scenario = recording.scenario
        self.expected = checks.Expectations(recording)
        initial = recorder.Tree(recording.initial_root)
        self.explorer = crashstates.Explorer(recording.ops, initial.files, initial.folders, initial.links,
                                             crashstates.initial_contents(recording.initial_root, initial),
                                             times=crashstates.initial_times(recording.initial_root, initial))
        self.names = {inode: path for path, inode in initial.files.items()}
        for op in recording.ops:
            if op.kind in ("create", "link"):
                self.names.setdefault(op.inode, op.path)
        self.states, seen = [], set()
        for end, description, applied, torn in self.explorer.states():
            state = self.explorer.apply(applied, torn)
            digest = state.digest()
            if digest not in seen:
                seen.add(digest)
                self.states.append((end, description, applied, torn))
        if limit and len(self.states) > limit:
            step = len(self.states) / limit
            self.states = [self.states[int(i * step)] for i in range(limit)]

    def replays_the_run(self):
        """Applying every operation must give the recorded run's own final tree: a recorder that
        missed a write, or a model that put it at the wrong offset, shows here first."""
        everything = self.explorer.apply(range(len(self.recording.ops)))
        if everything.digest() == tree_digest(self.recording.final_root):
            return []
        real, differences = {}, []
        for folder, _, names in os.walk(self.recording.final_root):
            for name in names:
                full = os.path.join(folder, name)
                path = os.path.relpath(full, self.recording.final_root)
                real[path] = checks.read(full)
                if everything.files.get(path) != real[path]:
                    differences.append(path)
        differences += [path for path in everything.files if path not in real]
        # SQLite's wal-index is written through a shared mapping, which strace cannot see; it holds
        # no data (SQLite builds it again from the WAL after a crash: recorder.py lets it be mapped).
        unseen = [path for path in differences if path.endswith(".sqlite-shm")]
        if unseen and len(unseen) == len(differences):
            return []
        return differences or ["(the folders or links differ)"]

    def describe(self, end, description, applied):
        """The operations that led to a state: the last few done, and those in flight it lost."""
        ops = self.recording.ops
        lines = [f"after operation {end} of {len(ops)}; {self.name_objects(description)}"]
        for index in range(max(0, end - 4), end):
            lines.append(f"    done     #{index}: {ops[index]!r}")
        lost = [index for index in range(end) if ops[index].objects and index not in applied]
        for index in lost[:6]:
            lines.append(f"    lost     #{index}: {ops[index]!r}")
        if len(lost) > 6:
            lines.append(f"    ... and {len(lost) - 6} more lost")
        return "\n".join(lines)

    def name_objects(self, description):
        for inode, path in self.names.items():
            description = description.replace(f"file {inode}", f"file {path}")
        return description


# MARK: Checking states, in worker processes

RUNS = []
BINARY = None
SCRATCH = None
_seen_recovered = {}


def initialize(runs, binary, scratch):
    global RUNS, BINARY, SCRATCH
    RUNS, BINARY, SCRATCH = runs, binary, scratch
    own_mount_namespace()


def own_mount_namespace():
    """Each worker gets mounts of its own. A crash state must be checked at the very path its run
    had (the journal and the events name targets by absolute path), so each state is bound over
    the run's folder, where no other worker sees it."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x00020000) != 0:  # CLONE_NEWNS
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNS): the explorer runs as root")
    subprocess.run(["mount", "--make-rprivate", "/"], check=True)


def check_state(task):
    """Builds one crash state, recovers it, checks it, runs the daemon on it (once per distinct
    recovered state) and checks again. Returns the violations found."""
    run_index, state_index = task
    run = RUNS[run_index]
    end, description, applied, torn = run.states[state_index]
    built = os.path.join(SCRATCH, f"{run.scenario.name}-{state_index}")
    shutil.rmtree(built, ignore_errors=True)
    run.explorer.apply(applied, torn).write(built)
    root = run.recording.final_root
    subprocess.run(["mount", "--bind", built, root], check=True)
    environment = run.recording.environment
    problems = []
    try:
        recover = scenarios.pdftrapper(BINARY, root, ["recover"], environment, check=False)
        if recover.returncode != 0:
            problems.append(f"pdftrapper recover exits {recover.returncode}: {recover.stderr.strip()[-400:]}")
        status = scenarios.pdftrapper(BINARY, root, ["status"], environment, check=False)
        if status.returncode not in (0, 3):  # 3: no daemon runs, which is so here
            problems.append(f"pdftrapper status exits {status.returncode}: {status.stderr.strip()[-400:]}")
        found, versions = checks.check_recovered(root, run.expected)
        problems += found
        recovered = {name: checks.read(os.path.join(root, "library", name)) for name in run.expected.targets}
        digest = tree_digest(root, leave_out={"state/status.json"})
        key = (run_index, digest)
        if key in _seen_recovered:
            problems += _seen_recovered[key]
        else:
            status, log = scenarios.run_daemon([BINARY, "run", "--config", "config.toml"], root, run.scenario, environment)
            after = [] if status == 0 else [f"the daemon exits {status}: {log.strip()[-400:]}"]
            after += checks.check_after_daemon(root, run.expected, recovered, BINARY, environment)
            _seen_recovered[key] = [f"after the daemon ran: {p}" if not p.startswith("after") else p for p in after]
            problems += _seen_recovered[key]
    finally:
        if subprocess.run(["umount", root]).returncode != 0:
            subprocess.run(["umount", "--lazy", root], check=True)
        shutil.rmtree(built, ignore_errors=True)
    if not problems:
        return run_index, state_index, None
    return run_index, state_index, run.describe(end, description, applied) + "\n" + "\n".join("  broke: " + p for p in problems)


# MARK: Main

def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", default=os.environ.get("PDFTRAPPER_BIN", os.path.join(REPOSITORY, ".build/release/pdftrapper")))
    parser.add_argument("--reduced", action="store_true", help="only the paths make test explores")
    parser.add_argument("--scenario", action="append", help="explore only this recorded run (repeatable)")
    parser.add_argument("--max-states", type=int, default=0, help="at most this many states per recorded run")
    # Mostly waiting on the daemon's start and stop, not computing: three states a core at once.
    parser.add_argument("--jobs", type=int, default=3 * (os.cpu_count() or 1))
    parser.add_argument("--work", help="where recordings are kept (default: a temporary folder)")
    arguments = parser.parse_args()
    binary = os.path.abspath(arguments.bin)
    if not os.access(binary, os.X_OK):
        sys.exit(f"powerloss: no pdftrapper at {binary} (make build, or --bin)")
    if shutil.which("strace") is None:
        sys.exit("powerloss: strace is missing (apt-get install strace)")
    chosen = [s for s in scenarios.SCENARIOS
              if (not arguments.reduced or s.name in scenarios.REDUCED)
              and (not arguments.scenario or s.name in arguments.scenario)]
    work = arguments.work or tempfile.mkdtemp(prefix="pdftrapper-powerloss-")
    scratch = tempfile.mkdtemp(prefix="pdftrapper-powerloss-states-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    started = time.monotonic()
    runs, violations, checked = [], [], 0
    for scenario in chosen:
        recording = scenarios.record(scenario, work, binary)
        # The run itself must have done its work, or its crash states would prove nothing.
        undone = (checks.check_inputs(recording.final_root, scenario, final=True)
                  + checks.check_scripts(recording.final_root, scenario, final=True))
        if undone:
            sys.exit(f"powerloss: the recorded run of {scenario.name} did not do its work: {undone}; "
                     f"it said: {recording.output[-2000:]}")
        run = Run(recording, arguments.max_states)
        missed = run.replays_the_run()
        if missed:
            sys.exit(f"powerloss: replaying every operation of {scenario.name} does not give the run's own files: "
                     f"{missed[:10]} (the recorder or the model is wrong; see {work}/{scenario.name}/strace.log)")
        print(f"powerloss: {scenario.name}: {len(recording.ops)} operations recorded, {len(run.states)} distinct crash states",
              flush=True)
        runs.append(run)
    tasks = [(r, s) for r, run in enumerate(runs) for s in range(len(run.states))]
    with multiprocessing.Pool(arguments.jobs, initializer=initialize, initargs=(runs, binary, scratch)) as pool:
        for done, (run_index, state_index, violation) in enumerate(pool.imap_unordered(check_state, tasks, chunksize=4), 1):
            checked += 1
            if violation:
                violations.append(violation)
                print(f"\nVIOLATION in {runs[run_index].scenario.name}, state {state_index}: {violation}\n", flush=True)
            if done % 250 == 0:
                print(f"powerloss: {done} of {len(tasks)} states checked, {len(violations)} violations "
                      f"({time.monotonic() - started:.0f} s)", flush=True)
    shutil.rmtree(scratch, ignore_errors=True)
    if not arguments.work:
        shutil.rmtree(work, ignore_errors=True)
    print(f"powerloss: {checked} crash states from {len(runs)} recorded runs, {len(violations)} violations")
    sys.exit(1 if violations else 0)


if __name__ == "__main__":
    main()
