"""The recorded runs: one per path that writes, each set up in a folder of its own, recorded under
strace, and described by what a user would check afterwards (which inputs, edit scripts and scan
batches it took, and where each must end up)."""

import glob
import os
import shutil
import signal
import subprocess
import tempfile
import time

from PIL import Image, ImageDraw, ImageFont

import recorder

CONFIG = """\
[daemon]
state_dir = "state"
[library]
root = "library"
[inbox]
path = "inbox"
settle = "50ms"
rescan_interval = "1s"
[edits]
purge = false

[[rule]]
name = "a"
target = "A.pdf"
archive_as = "{name}"
match = { folder = "a" }

[[rule]]
name = "b"
target = "new/B.pdf"
archive_as = "{name}"
match = { folder = "b" }

# Put in front instead of after.
[[rule]]
name = "c"
target = "A.pdf"
mode = "prepend"
archive_as = "{name}"
match = { folder = "c" }

# A file of its own for every input, in a folder made for them.
[[rule]]
name = "d"
target = "docs/{stem}.pdf"
mode = "new"
archive_as = "{name}"
match = { folder = "d" }

# The original deleted once its page is in.
[[rule]]
name = "e"
target = "A.pdf"
original = "delete"
match = { folder = "e" }

[profile.adf]
device = "test:0"
source = "adf"
mode = "gray"
resolution = 50
page_size = "A4"
target = "S.pdf"

# Port 9 refuses: every event stays in the outbox, where the checks find it.
[[notify]]
name = "hook"
events = ["revision"]
url = "http://127.0.0.1:9/"
"""


class Input:
    """A picture put in the inbox: its size is its own, so its page is found by its image's size."""

    def __init__(self, folder, name, size, target, outcome="archive"):
        self.folder, self.name, self.size, self.target, self.outcome = folder, name, size, target, outcome
        self.data = None


class Script:
    """An edit script put in the edits folder: one note, found again by its text."""

    def __init__(self, name, target, text):
        self.name, self.target, self.text = name, target, text
        self.data = (f'target = "{target}"\n[[edit]]\nop = "note"\npage = 1\nat = [40, 100]\n'
                     f'contents = "{text}"\n').encode()


class Scenario:
    """One path that writes. `command`: the pdftrapper arguments recorded, or None for the daemon,
    recorded until `inputs` and `scripts` are taken. `seeds`: pictures ingested into A.pdf before,
    each one revision; `before`: commands run after the seeds, before the recording."""

    def __init__(self, name, command=None, inputs=(), scripts=(), seeds=2, before=(), scan=False, text_page=False,
                 files=None):
        self.name, self.command, self.inputs, self.scripts = name, command, list(inputs), list(scripts)
        self.seeds, self.before, self.scan, self.text_page = seeds, list(before), scan, text_page
        self.files = files or {}  # more files for the run's folder: path -> text


SCENARIOS = [
    # The daemon: an inbox claim, an append to a target that exists and the archive; a bad
    # picture to the quarantine with its note.
    Scenario("ingest-existing", inputs=[Input("a", "p1.png", (61, 47), "A.pdf"),
                                        Input("a", "bad.png", (0, 0), None, outcome="quarantine")]),
    # A target made anew (a temporary name, fsynced, linked), in a folder that does not exist yet.
    Scenario("ingest-new-target", inputs=[Input("b", "p2.png", (53, 71), "new/B.pdf")], seeds=0),
    # An edit script: claimed, applied as one revision, moved to done/ with its report.
    Scenario("edit-script", scripts=[Script("e1.toml", "A.pdf", "powerloss-note-e1")]),
    # Several at once: pictures and a PDF into a target that exists and one made anew.
    Scenario("ingest-several", inputs=[Input("a", "s1.png", (57, 43), "A.pdf"), Input("a", "s2.png", (59, 45), "A.pdf"),
                                       Input("b", "s3.png", (63, 41), "new/B.pdf"), Input("a", "s4.pdf", (67, 49), "A.pdf")]),
    Scenario("ingest-many", inputs=[Input("a", f"m{i}.png", (70 + i, 50), "A.pdf") for i in range(4)]
             + [Input("b", f"m{i}.png", (80 + i, 50), "new/B.pdf") for i in range(4, 7)]
             + [Input("c", f"m{i}.png", (90 + i, 50), "A.pdf") for i in range(7, 9)]
             + [Input("d", f"m{i}.png", (100 + i, 50), f"docs/m{i}.pdf") for i in range(9, 11)]
             + [Input("e", f"m{i}.png", (110 + i, 50), "A.pdf", outcome="delete") for i in range(11, 13)]),
    # Eight new files at once (mode = "new"), each made under a temporary name and linked.
    Scenario("ingest-new-files", inputs=[Input("d", f"n{i}.png", (140 + i, 70), f"docs/n{i}.pdf") for i in range(8)], seeds=0),
    # A mixed load, as the kill soak has it: pictures into two targets and edit scripts, at once.
    Scenario("ingest-and-edit", inputs=[Input("a", f"x{i}.png", (120 + i, 60), "A.pdf") for i in range(3)]
             + [Input("b", f"x{i}.png", (130 + i, 60), "new/B.pdf") for i in range(3, 5)],
             scripts=[Script(f"x{i}.toml", "A.pdf", f"powerloss-note-x{i}") for i in range(2)]),
    # JPEG (its bytes kept), TIFF, WebP (decoded, stored as JPEG) and PDF (imported).
    Scenario("ingest-formats", inputs=[Input("a", "f1.jpg", (71, 61), "A.pdf"), Input("a", "f2.tif", (73, 61), "A.pdf"),
                                       Input("a", "f3.webp", (75, 61), "A.pdf"), Input("b", "f4.pdf", (77, 61), "new/B.pdf")]),
    Scenario("edit-scripts", scripts=[Script(f"e{i}.toml", "A.pdf", f"powerloss-note-e{i}") for i in range(2, 6)]),
    # `pdftrapper apply`: page operations and markup as one revision.
    Scenario("apply", command=["apply", "markup.toml"], files={"markup.toml": """\
target = "A.pdf"
[[edit]]
op = "rotate"
pages = "1"
degrees = 90
[[edit]]
op = "ink"
page = 2
strokes = [[[10, 10], [40, 30], [60, 10]]]
[[edit]]
op = "note"
page = 2
at = [40, 100]
contents = "applied"
"""}),
    Scenario("undo", command=["undo", "library/A.pdf"]),
    Scenario("undo-steps", command=["undo", "library/A.pdf", "--steps", "2"], seeds=3),
    Scenario("redo", command=["redo", "library/A.pdf"], before=[["undo", "library/A.pdf"]]),
    Scenario("compact", command=["compact", "library/A.pdf"]),
    # A compaction taken back (the kept file put in place whole), and done again.
    Scenario("undo-compact", command=["undo", "library/A.pdf"], before=[["compact", "library/A.pdf"]]),
    Scenario("redo-compact", command=["redo", "library/A.pdf"],
             before=[["compact", "library/A.pdf"], ["undo", "library/A.pdf"]]),
    # A scan batch: ten sheets from SANE's test scanner spooled in the state folder, then one revision.
    Scenario("scan-batch", command=["scan", "--profile", "adf"], scan="S.pdf"),
    Scenario("scan-new-target", command=["scan", "--profile", "adf", "--to", "library/scans/S2.pdf"], scan="scans/S2.pdf"),
    # The OCR revision over a page of printed words.
    Scenario("ocr", command=["ocr", "library/A.pdf"], text_page=True, seeds=1),
]

REDUCED = ["ingest-existing", "ingest-new-target", "edit-script", "undo"]


def sane_environment(work):
    """SANE's `test` backend only, from a private config folder (its area reaches A4)."""
    folder = os.path.join(work, "sane")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "dll.conf"), "w") as file:
        file.write("test\n")
    with open(os.path.join(folder, "test.conf"), "w") as file:
        file.write("geometry_max 300\n")
    return {**os.environ, "SANE_CONFIG_DIR": folder}


def picture(path, size, shade):
    Image.new("L", size, shade).save(path)


def text_picture(path):
    image = Image.new("L", (1700, 2200), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=90)
    for line, words in enumerate(["Power loss", "every crash state", "explored"]):
        draw.text((150, 200 + line * 160), words, font=font, fill=0)
    image.save(path, dpi=(200, 200))


def pdftrapper(binary, folder, arguments, environment=None, check=True, config=True):
    run = subprocess.run([binary] + arguments + (["--config", "config.toml"] if config else []), cwd=folder, env=environment,
                         capture_output=True, text=True, timeout=300)
    if check and run.returncode != 0:
        raise RuntimeError(f"pdftrapper {' '.join(arguments)} in {folder}: exit {run.returncode}: {run.stderr[-2000:]}")
    return run


def set_up(scenario, folder, binary, environment):
    """The scenario's folder before the recorded run: config, library, the inputs in the inbox."""
    os.makedirs(os.path.join(folder, "library"))
    os.makedirs(os.path.join(folder, "inbox", "a"))
    os.makedirs(os.path.join(folder, "inbox", "b"))
    with open(os.path.join(folder, "config.toml"), "w") as file:
        file.write(CONFIG)
    staging = os.path.join(folder, "..", scenario.name + "-staging")
    os.makedirs(staging, exist_ok=True)
    for index in range(scenario.seeds):
        seed = os.path.join(staging, f"seed{index}.png")
        picture(seed, (600 + index, 800), 90 + 40 * index)  # 144 x 192 pt at 300 dpi
        pdftrapper(binary, folder, ["ingest", "--rule", "a", seed], environment)
    if scenario.text_page:
        words = os.path.join(staging, "words.png")
        text_picture(words)
        pdftrapper(binary, folder, ["ingest", "--rule", "a", words], environment)
    for arguments in scenario.before:
        pdftrapper(binary, folder, arguments, environment)
    for index, item in enumerate(scenario.inputs):
        path = os.path.join(folder, "inbox", item.folder, item.name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if item.outcome == "quarantine":
            with open(path, "wb") as file:
                file.write(b"This is not a picture, whatever its name says.\n")
        else:
            picture(path, item.size, 60 + 20 * index)  # a .pdf name: Pillow makes a one-page PDF of it
        with open(path, "rb") as file:
            item.data = file.read()
    for path, text in scenario.files.items():
        with open(os.path.join(folder, path), "w") as file:
            file.write(text)
    for script in scenario.scripts:
        os.makedirs(os.path.join(folder, "edits"), exist_ok=True)
        with open(os.path.join(folder, "edits", script.name), "wb") as file:
            file.write(script.data)
    # The events of the set-up are not the run's: only the run's are checked.
    shutil.rmtree(os.path.join(folder, "library", ".pdftrapper", "outbox"), ignore_errors=True)
    os.sync()


# MARK: The daemon, briefly

def settled(folder, scenario):
    """The daemon took every input, script and spooled scan batch: none left in the inbox, the
    edits folder, their claims or the scan spool."""
    if glob.glob(os.path.join(folder, "state/scans/*/*")):
        return False
    for item in scenario.inputs:
        for pattern in ("inbox/*/" + item.name, "inbox/.pdftrapper-claims/**/" + item.name):
            if glob.glob(os.path.join(folder, pattern), recursive=True):
                return False
    for script in scenario.scripts:
        for pattern in ("edits/" + script.name, "edits/.pdftrapper-claims/**/" + script.name):
            if glob.glob(os.path.join(folder, pattern), recursive=True):
                return False
    return True


def run_daemon(argv, folder, scenario, environment, timeout=30):
    """Starts the daemon (argv, maybe under strace) in `folder`, waits until it has taken the
    scenario's work and has had a moment to finish what it found, and stops it with SIGTERM.
    Returns (exit status, its log)."""
    log_fd, log_path = tempfile.mkstemp(prefix="pdftrapper-powerloss-daemon-", suffix=".log")
    with os.fdopen(log_fd, "w") as log:
        process = subprocess.Popen(argv, cwd=folder, env=environment, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    started = time.monotonic()
    ready = False
    while time.monotonic() - started < timeout:
        if process.poll() is not None:
            break
        with open(log_path, errors="replace") as log:
            ready = ready or "watching" in log.read()
        # It takes what it finds at start before it says it watches.
        if ready and settled(folder, scenario):
            break
        time.sleep(0.02)
    time.sleep(0.05)
    if process.poll() is None:
        daemon = daemon_pid(process.pid, argv)
        os.kill(daemon, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    with open(log_path, errors="replace") as log:
        text = log.read()
    os.unlink(log_path)
    return process.returncode, text


def daemon_pid(pid, argv):
    """The daemon's own pid: under strace, strace's child."""
    if argv[0] != "strace":
        return pid
    for _ in range(100):
        children = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
        if children:
            return int(children[0])
        time.sleep(0.05)
    return pid


# MARK: Recording

def record(scenario, work, binary):
    """Sets the scenario up in WORK/NAME/run, keeps a copy as WORK/NAME/initial, records the run
    and returns the Recording with the expectations it carries."""
    base = os.path.join(work, scenario.name)
    shutil.rmtree(base, ignore_errors=True)
    run_folder, initial = os.path.join(base, "run"), os.path.join(base, "initial")
    os.makedirs(base)
    environment = sane_environment(work)
    set_up(scenario, run_folder, binary, environment)
    shutil.copytree(run_folder, initial, symlinks=True)
    log_path = os.path.join(base, "strace.log")
    if scenario.command is None:
        status, output = run_daemon(recorder.strace_command(log_path, [binary, "run", "--config", "config.toml"]),
                                    run_folder, scenario, environment)
    else:
        run = subprocess.run(recorder.strace_command(log_path, [binary] + scenario.command + ["--config", "config.toml"]),
                             cwd=run_folder, env=environment, capture_output=True, text=True, timeout=600)
        status, output = run.returncode, run.stderr
    if status != 0:
        raise RuntimeError(f"the recorded run of {scenario.name} failed (exit {status}): {output[-3000:]}")
    recording = recorder.Recording(run_folder, initial, log_path)
    recording.scenario = scenario
    recording.initial_root, recording.final_root = initial, run_folder
    recording.environment = environment
    recording.output = output
    return recording
