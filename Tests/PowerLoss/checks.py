"""What a user would check on a crash state, after `pdftrapper recover` and again after the daemon
ran on it briefly. Each check returns the invariants it found broken, as sentences.

What is expected comes from the recorded run itself: each target's versions (its bytes before the
run and at each revision the run made), the events the run queued, and the scenario's inputs,
edit scripts and scan batch with where each must end up."""

import glob
import hashlib
import io
import json
import os
import re
import subprocess
import tempfile

import logging

import pypdf
import pypdfium2

import scenarios

# pypdf warns of every incremental update's xref subsection; the readers' verdicts are what count.
logging.getLogger("pypdf").setLevel(logging.ERROR)

MUTOOL_PAGES = """var document = new Document(scriptArgs[0]);
var count = document.countPages();
if (count > 0) document.loadPage(count - 1).bound();
print(count);
"""


def sha(data):
    return hashlib.sha256(data).hexdigest()


def read(path):
    try:
        with open(path, "rb") as file:
            return file.read()
    except (FileNotFoundError, IsADirectoryError):
        return None


def revision_ends(data):
    """Offsets just past each %%EOF line: where each revision of an incrementally updated file ends."""
    return [match.end() for match in re.finditer(rb"%%EOF(\r\n|\r|\n)?", data)]


class Expectations:
    """What the recorded run tells about the states it can leave."""

    def __init__(self, recording):
        scenario = recording.scenario
        self.scenario = scenario
        self.initial_root = recording.initial_root
        self.targets = {}  # relative path -> [versions in order; None for no file]
        for name in sorted(set(library_pdfs(recording.initial_root)) | set(library_pdfs(recording.final_root))):
            before = read(os.path.join(recording.initial_root, "library", name))
            after = read(os.path.join(recording.final_root, "library", name))
            if before is None and after is None:
                continue
            if after is None or before == after:
                self.targets[name] = [before]
            elif before is None or after.startswith(before):
                start = len(before) if before else 0
                self.targets[name] = [before] + [after[:end] for end in revision_ends(after) if end > start]
            elif before.startswith(after) and len(after) in revision_ends(before):
                # cut back (undo), a revision at a time: each step is a version of its own
                self.targets[name] = [before] + [before[:end] for end in sorted(revision_ends(before), reverse=True)
                                                 if len(after) <= end < len(before)]
            else:  # rewritten (compact)
                self.targets[name] = [before, after]
        self.events = {}  # key -> the run's event
        for path in glob.glob(os.path.join(recording.final_root, "library/.pdftrapper/outbox/pending/*/*.json")):
            event = json.loads(read(path))
            self.events[event["key"]] = event
        # A scan batch's pages: what the recorded run added to S.pdf.
        self.scan_pages = 0
        if scenario.scan:
            self.scan_pages = page_count(read(os.path.join(recording.final_root, "library", scenario.scan)))
            before = read(os.path.join(recording.initial_root, "library", scenario.scan))
            self.scan_pages -= page_count(before) if before else 0


def library_pdfs(root):
    """The PDFs a user sees in the library: relative paths, hidden folders and files left out."""
    library = os.path.join(root, "library")
    found = []
    for folder, subfolders, names in os.walk(library):
        subfolders[:] = [name for name in subfolders if not name.startswith(".")]
        found += [os.path.relpath(os.path.join(folder, name), library) for name in names
                  if name.endswith(".pdf") and not name.startswith(".")]
    return found


# MARK: Readers, remembered by the bytes they read

_readers = {}


def page_count(data):
    return len(pypdf.PdfReader(io.BytesIO(data)).pages)


def readers(data):
    """The page count each of the six independent readers gives, or the first one's complaint."""
    key = sha(data)
    if key in _readers:
        return _readers[key]
    with tempfile.NamedTemporaryFile(suffix=".pdf") as file, tempfile.NamedTemporaryFile(suffix=".js", mode="w") as script:
        file.write(data)
        file.flush()
        script.write(MUTOOL_PAGES)
        script.flush()
        path = file.name
        counts, problem = {}, None
        try:
            run = subprocess.run(["qpdf", "--check", path], capture_output=True, text=True)
            if run.returncode != 0:
                raise ValueError(f"qpdf --check exit {run.returncode}: {run.stdout[-300:]}{run.stderr[-300:]}")
            run = subprocess.run(["pdfinfo", path], capture_output=True, text=True, check=True)
            counts["poppler"] = int(re.search(r"^Pages:\s+(\d+)", run.stdout, re.M).group(1))
            run = subprocess.run(["mutool", "run", script.name, path], capture_output=True, text=True, check=True)
            counts["mupdf"] = int(run.stdout.strip())
            run = subprocess.run(["gs", "-q", "-dNODISPLAY", "-dBATCH", "-dNOPAUSE", f"--permit-file-read={path}", "-c",
                                  f"({path}) (r) file runpdfbegin pdfpagecount = quit"], capture_output=True, text=True, check=True)
            counts["ghostscript"] = int(run.stdout.strip())
            counts["pypdf"] = len(pypdf.PdfReader(path, strict=True).pages)
            counts["pypdfium2"] = len(pypdfium2.PdfDocument(path))
            if len(set(counts.values())) != 1:
                raise ValueError(f"the readers disagree on the page count: {counts}")
        except Exception as error:  # noqa: BLE001 - any reader's failure is the finding
            problem = f"{type(error).__name__}: {error}"
    result = (problem, counts.get("pypdf"))
    _readers[key] = result
    return result


_quick = {}


def quick_check(data):
    """qpdf --check and pypdf, for the revisions the daemon adds to a recovered state (new bytes
    every time, so six readers each would be most of the run's time); the recovered versions
    themselves go through all six."""
    key = sha(data)
    if key not in _quick:
        with tempfile.NamedTemporaryFile(suffix=".pdf") as file:
            file.write(data)
            file.flush()
            run = subprocess.run(["qpdf", "--check", file.name], capture_output=True, text=True)
            if run.returncode != 0:
                _quick[key] = f"qpdf --check exit {run.returncode}: {run.stdout[-300:]}{run.stderr[-300:]}"
            else:
                try:
                    pypdf.PdfReader(file.name, strict=True).pages[-1].get_contents()
                    _quick[key] = None
                except Exception as error:  # noqa: BLE001 - the reader's failure is the finding
                    _quick[key] = f"pypdf: {type(error).__name__}: {error}"
    return _quick[key]


_contents = {}


def contents(data):
    """(image sizes of each page, note texts) of a PDF, remembered by its bytes."""
    key = sha(data)
    if key not in _contents:
        reader = pypdf.PdfReader(io.BytesIO(data))
        sizes, notes = [], []
        def images(resources, depth=0):
            """The sizes of the images drawn through `resources`, and through forms in them."""
            objects = resources.get_object().get("/XObject") if resources else None
            found = []
            for item in (objects.get_object().values() if objects else []):
                item = item.get_object()
                if item.get("/Subtype") == "/Image":
                    found.append((int(item["/Width"]), int(item["/Height"])))
                elif item.get("/Subtype") == "/Form" and depth < 4:
                    found += images(item.get("/Resources"), depth + 1)
            return found

        for page in reader.pages:
            sizes.append(images(page.get("/Resources")))
            for annotation in page.get("/Annots") or []:
                text = annotation.get_object().get("/Contents")
                if text is not None:
                    notes.append(str(text))
        _contents[key] = (sizes, notes)
    return _contents[key]


# MARK: The checks

def where(root, data, folders):
    """Every file below `folders` of `root` holding exactly `data`."""
    found, digest = [], sha(data)
    for folder in folders:
        for parent, _, names in os.walk(os.path.join(root, folder)):
            for name in names:
                path = os.path.join(parent, name)
                if os.path.isfile(path) and not os.path.islink(path) and os.path.getsize(path) == len(data):
                    if sha(read(path)) == digest:
                        found.append(os.path.relpath(path, root))
    return found


def check_recovered(root, expected):
    """After `pdftrapper recover`: each target is one of its versions, each input and script is in
    one place and in its target at most once, and the outbox holds exactly the events of the
    revisions that are there. Returns (violations, which version each target is)."""
    problems, versions = [], {}
    for name, chain in expected.targets.items():
        data = read(os.path.join(root, "library", name))
        if data not in chain:
            problems.append(f"{name} is neither its old bytes nor old + whole revisions "
                            f"({'missing' if data is None else f'{len(data)} bytes'}; "
                            f"expected one of {[None if v is None else len(v) for v in chain]})")
            continue
        versions[name] = chain.index(data)
        if data is not None:
            problem, _ = readers(data)  # each version once: the answers are remembered by its bytes
            if problem:
                problems.append(f"{name}: {problem}")
    problems += check_inputs(root, expected.scenario, final=False)
    problems += check_scripts(root, expected.scenario, final=False)
    problems += check_events(root, expected, versions)
    problems += check_visible(root, expected)
    return problems, versions


def check_inputs(root, scenario, final):
    problems = []
    for item in scenario.inputs:
        places = where(root, item.data, ["inbox", "archive", "quarantine"])
        if len(places) > 1 or (not places and item.outcome != "delete"):
            problems.append(f"input {item.name} is in {len(places)} places: {places}")
            continue
        place = places[0] if places else "deleted"
        if item.target:
            data = read(os.path.join(root, "library", item.target))
            pages = 0 if data is None else sum(1 for sizes in contents(data)[0] if tuple(item.size) in sizes)
            if pages > 1:
                problems.append(f"input {item.name}'s page is in {item.target} {pages} times")
            if place.startswith("archive") and pages != 1:
                problems.append(f"input {item.name} is archived ({place}) but its page is in {item.target} {pages} times")
            if place == "deleted" and pages != 1:
                problems.append(f"input {item.name} is deleted but its page is in {item.target} {pages} times")
            done = "deleted" if item.outcome == "delete" else "archive"
            if final and not (place.startswith(done) and pages == 1):
                problems.append(f"after the daemon ran, input {item.name} is at {place} with {pages} pages in {item.target}")
        if final and item.outcome == "quarantine":
            if not place.startswith("quarantine") or not read(os.path.join(root, place + ".why.txt")):
                problems.append(f"after the daemon ran, bad input {item.name} is at {place}, not in the quarantine with its note")
    return problems


def check_scripts(root, scenario, final):
    problems = []
    for script in scenario.scripts:
        places = where(root, script.data, ["edits"])
        data = read(os.path.join(root, "library", script.target))
        applied = 0 if data is None else contents(data)[1].count(script.text)
        if len(places) != 1:
            problems.append(f"edit script {script.name} is in {len(places)} places: {places}")
            continue
        place = places[0]
        if applied > 1:
            problems.append(f"edit script {script.name} was applied {applied} times")
        if place == "edits/" + script.name and applied:
            problems.append(f"edit script {script.name} is applied and still in the edits folder")
        if place.startswith("edits/done/") and applied != 1:
            problems.append(f"edit script {script.name} is in done/ but applied {applied} times")
        if final and not (place.startswith("edits/done/") and applied == 1):
            problems.append(f"after the daemon ran, edit script {script.name} is at {place}, applied {applied} times")
    return problems


def pending_events(root):
    events, problems = {}, []
    for path in glob.glob(os.path.join(root, "library/.pdftrapper/outbox/pending/*/*.json")):
        try:
            event = json.loads(read(path))
        except ValueError as error:
            problems.append(f"event file {os.path.relpath(path, root)} is not whole JSON: {error}")
            continue
        if event.get("key") in events:
            problems.append(f"event {event.get('key')} is queued twice")
        events[event.get("key")] = event
    return events, problems


def check_events(root, expected, versions):
    """The outbox holds the run's event of every revision that is there, and none of one that is not."""
    events, problems = pending_events(root)
    for key, event in expected.events.items():
        name = event["target"]
        chain = expected.targets.get(name)
        if chain is None or name not in versions:
            continue
        # The event of version i: a revision's or a redo's ends where the file then ends; an undo's
        # names the revision it took away (base..end), and the file then ends at its base.
        length = event["base"] if event["made_by"] == "undo" else event["end"]
        index = next((i for i, v in enumerate(chain) if v is not None and len(v) == length and i > 0), None)
        if index is None:
            continue
        there = versions[name] >= index
        if there and key not in events:
            problems.append(f"the revision of {name} ending at {event['end']} ({event['made_by']}) is there but its event was never queued")
        if not there and key in events:
            problems.append(f"an event announces a revision of {name} ending at {event['end']} ({event['made_by']}) that is not there")
        if key in events and any(events[key].get(field) != event.get(field) for field in ("end", "made_by", "target", "base")):
            problems.append(f"event {key[:12]} differs from the one the run queued")
    return problems


def check_visible(root, expected):
    """Nothing half-written under a name a user sees: every PDF in the library is whole, every
    file in the archive and quarantine is an input's bytes or a whole note, and done/ holds scripts
    and their whole reports."""
    problems = []
    inputs = {sha(item.data) for item in expected.scenario.inputs}
    for path in glob.glob(os.path.join(root, "library", "**", "*"), recursive=True):
        relative = os.path.relpath(path, root)
        if os.path.isfile(path) and path.endswith(".pdf") and "/." not in "/" + relative:
            name = os.path.relpath(path, os.path.join(root, "library"))
            if name not in expected.targets:
                problems.append(f"{relative}: a PDF no run made")
    for folder in ("archive", "quarantine"):
        for path in glob.glob(os.path.join(root, folder, "**", "*"), recursive=True):
            if not os.path.isfile(path):
                continue
            data = read(path)
            if path.endswith(".why.txt"):
                if not data or not data.endswith(b"\n"):
                    problems.append(f"{os.path.relpath(path, root)}: a quarantine note cut short ({len(data or b'')} bytes)")
            elif sha(data) not in inputs and not (folder == "quarantine" and expected.scenario.scan):
                problems.append(f"{os.path.relpath(path, root)}: not any input's bytes ({len(data)} bytes)")
    for path in glob.glob(os.path.join(root, "edits", "done", "*")) + glob.glob(os.path.join(root, "edits", "failed", "*")):
        data = read(path)
        if os.path.isfile(path) and not data:
            problems.append(f"{os.path.relpath(path, root)}: empty")
        elif path.endswith(".json") or path.endswith(".report"):
            try:
                json.loads(data)
            except ValueError:
                problems.append(f"{os.path.relpath(path, root)}: a report cut short")
    return problems


def check_after_daemon(root, expected, recovered, binary, environment):
    """After the daemon ran on the recovered state: targets only grew, by whole revisions every
    reader opens; every input and script is where it ends; the scan batch is in its target once
    or whole in the quarantine; every new revision was announced; history, undo and redo agree."""
    problems = []
    for name in expected.targets:
        before = recovered.get(name)
        data = read(os.path.join(root, "library", name))
        if data is None:
            if before is not None:
                problems.append(f"{name} was there after recovery and is gone after the daemon ran")
            continue
        if before is not None and not data.startswith(before):
            problems.append(f"{name}: the daemon changed bytes already there (it may only append)")
        problem = quick_check(data)
        if problem:
            problems.append(f"{name}: {problem}")
            continue
        events, event_problems = pending_events(root)
        problems += event_problems
        announced = {(e["target"], e["end"]) for e in events.values()}
        for end in revision_ends(data):
            if end > len(before or b"") and (name, end) not in announced:
                problems.append(f"{name}: the daemon's revision ending at {end} was not announced")
        problems += check_history(root, name, data, binary, environment)
    problems += check_inputs(root, expected.scenario, final=True)
    problems += check_scripts(root, expected.scenario, final=True)
    problems += check_visible(root, expected)
    if expected.scenario.scan:
        data = read(os.path.join(root, "library", expected.scenario.scan))
        before = read(os.path.join(expected.initial_root, "library", expected.scenario.scan))
        added = (page_count(data) if data else 0) - (page_count(before) if before else 0)
        quarantined = len([p for p in glob.glob(os.path.join(root, "quarantine", "**", "*"), recursive=True)
                           if os.path.isfile(p) and not p.endswith(".txt")])
        if added not in (0, expected.scan_pages):
            problems.append(f"{expected.scenario.scan} gained {added} pages of a {expected.scan_pages}-page batch")
        if added == expected.scan_pages and quarantined:
            problems.append(f"the batch is in {expected.scenario.scan} and {quarantined} of its pages in the quarantine too")
        if quarantined > expected.scan_pages:
            problems.append(f"{quarantined} pages in the quarantine from a {expected.scan_pages}-page batch")
    return problems


def check_history(root, name, data, binary, environment):
    """`pdftrapper history` reads the file; undo cuts it back to its last revision's start and redo
    puts back exactly those bytes."""
    problems = []
    target = os.path.join("library", name)
    run = scenarios.pdftrapper(binary, root, ["history", target], environment, check=False, config=False)
    if run.returncode != 0:
        return [f"{name}: pdftrapper history fails: {run.stderr.strip()[-300:]}"]
    history = run.stdout.splitlines()
    ends = revision_ends(data)
    if history and not re.search(rf"bytes \d+-{len(data)}(\s|$)", history[-1]):
        problems.append(f"{name}: history's last revision does not end where the file does ({len(data)}): {history[-1]}")
    if len(history) < 2:
        return problems
    undo = scenarios.pdftrapper(binary, root, ["undo", target], environment, check=False)
    if undo.returncode != 0:
        return [f"{name}: undo refused on a file of {len(history)} revisions: {undo.stderr.strip()[-300:]}"]
    cut = read(os.path.join(root, target))
    if cut != data[: ends[-2]] if len(ends) >= 2 else False:
        problems.append(f"{name}: undo left {len(cut)} bytes, not the {ends[-2]} before the last revision")
    redo = scenarios.pdftrapper(binary, root, ["redo", target], environment, check=False)
    if redo.returncode != 0 or read(os.path.join(root, target)) != data:
        problems.append(f"{name}: redo did not put back the same bytes: {redo.stderr.strip()[-300:]}")
    return problems
