"""What the workspace's tests share: a daemon with [web] on a scratch library, a logged-in HTTP
client, one Chromium for every browser test module, the six independent PDF readers, and renders
of a page region to compare with.

The binary is PDFTRAPPER_BIN (default .build/debug/pdftrapper below the checkout). Everything
listens on 127.0.0.1 only.
"""
import atexit
import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("PDFTRAPPER_BIN", os.path.join(ROOT, ".build", "debug", "pdftrapper"))


def sign_on_pad(browser, pointer):
    """A zigzag signature drawn across the open signature pad (#signature-pad) with `pointer`
    (a selenium PointerInput: a mouse, or a finger on a touch screen), in real pointer events."""
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.by import By
    pad = browser.find_element(By.ID, "signature-pad")
    rect = browser.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.width, r.height];", pad)
    actions = ActionBuilder(browser, mouse=pointer, duration=10)
    actions.pointer_action.move_to_location(round(rect[0] + 15), round(rect[1] + rect[3] * 0.7)).pointer_down()
    for step in range(1, 12):
        actions.pointer_action.move_to_location(round(rect[0] + 15 + step * rect[2] * 0.07),
                                                round(rect[1] + rect[3] * (0.7 - 0.4 * (step % 2))))
    actions.pointer_action.pointer_up()
    actions.perform()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def text_pdf(path, lines, rotate=0, crop=None):
    """A PDF whose page 1 shows `lines` in Helvetica 24 pt from the top (Ghostscript writes it),
    turned by `rotate` and cropped to `crop` [x0 y0 x1 y1] by qpdf when asked."""
    ps = ["%!PS", "<< /PageSize [612 792] >> setpagedevice", "/Helvetica findfont 24 scalefont setfont"]
    for number, line in enumerate(lines):
        ps.append(f"72 {700 - 40 * number} moveto ({line}) show")
    ps.append("showpage")
    source = path + ".ps"
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(source, "w") as f:
        f.write("\n".join(ps) + "\n")
    plain = path + ".plain.pdf"
    subprocess.run(["ps2pdf", source, plain], check=True)
    os.remove(source)
    if rotate or crop:
        import pypdf
        reader = pypdf.PdfReader(plain)
        writer = pypdf.PdfWriter()
        for page in reader.pages:
            if rotate:
                page.rotate(rotate)
            if crop:
                page.cropbox = pypdf.generic.RectangleObject(crop)
            writer.add_page(page)
        with open(plain, "wb") as f:
            writer.write(f)
    shutil.move(plain, path)


_browser = None


def shared_browser():
    """Debian's Chromium through chromedriver, started once per process (a start costs seconds on
    a small machine) and quit at exit: every browser test module drives this one. A module that
    changes it (phone emulation) changes it back in its tearDownClass."""
    global _browser
    if _browser is None:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
        options = Options()
        for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,1000",
                         "--force-device-scale-factor=1", "--disable-dev-shm-usage"]:
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        _browser = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        atexit.register(_browser.quit)
    return _browser


def leave_browser(browser):
    """Before a module stops its daemon: off its page (the live event stream would end in a network
    error in the next module's console log when the daemon stops) and the log read out."""
    browser.get("about:blank")
    browser.get_log("browser")


class Daemon:
    """`pdftrapper run` with [web] on a scratch folder: inbox, library, signatures, quarantine."""

    def __init__(self, extra="", rule=""):
        """`extra`: tables after [web]; `rule`: keys of the one rule ("find_page = true")."""
        self.dir = tempfile.mkdtemp(prefix="pdftrapper-web-")
        self.port = free_port()
        for folder in ["inbox", "library", "signatures"]:
            os.makedirs(os.path.join(self.dir, folder))
        self.config = os.path.join(self.dir, "config.toml")
        with open(self.config, "w") as f:
            f.write(f"""[daemon]
state_dir = "state"
[library]
root = "library"
[inbox]
path = "inbox"
settle = "0.3s"
[signatures]
path = "signatures"
[web]
listen = "127.0.0.1:{self.port}"
{extra}
[[rule]]
name = "everything"
target = "Inbox.pdf"
{rule}
""")
        self.log = open(os.path.join(self.dir, "daemon.log"), "w")
        self.start()
        self.login_url = subprocess.run([BIN, "web-url", "--config", self.config], check=True, capture_output=True,
                                        text=True).stdout.strip()
        self.token = urllib.parse.parse_qs(urllib.parse.urlparse(self.login_url).query)["token"][0]
        self.base = f"http://127.0.0.1:{self.port}"
        self.host = f"127.0.0.1:{self.port}"

    def start(self):
        """`pdftrapper run`, waited for until its workspace listens."""
        listening = f"workspace on 127.0.0.1:{self.port}"
        before = self.log_text().count(listening)
        self.process = subprocess.Popen([BIN, "run", "--config", self.config], stdout=self.log, stderr=subprocess.STDOUT)
        # Listening, and this daemon (not another process that took the port meanwhile): it says so.
        deadline = time.time() + 20
        while self.log_text().count(listening) == before:
            if self.process.poll() is not None:
                raise RuntimeError("the daemon ended at start:\n" + self.log_text())
            if time.time() > deadline:
                raise RuntimeError("the workspace never listened:\n" + self.log_text())
            time.sleep(0.05)

    def restart(self):
        """Stopped (SIGTERM, exit 0) and started again on the same folders, state and port."""
        self.process.terminate()
        assert self.process.wait(10) == 0, self.log_text()[-3000:]
        self.start()

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def log_text(self):
        self.log.flush()
        with open(os.path.join(self.dir, "daemon.log")) as f:
            return f.read()

    def alive(self):
        return self.process.poll() is None

    def stop(self):
        if self.alive():
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def drop(self, name, source):
        """Into the inbox the way a sync tool writes: a hidden name, then a rename."""
        hidden = self.path("inbox", "." + name + ".part")
        shutil.copy(source, hidden)
        os.rename(hidden, self.path("inbox", name))

    def wait_for(self, condition, seconds=20, what="a condition"):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if condition():
                return
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}; daemon log:\n{self.log_text()[-3000:]}")

    def cli(self, *arguments):
        return subprocess.run([BIN, *arguments], check=True, capture_output=True, text=True).stdout

    def annotations(self, relative):
        return json.loads(self.cli("annotations", "--json", self.path("library", relative)))

    def history(self, relative):
        """`pdftrapper history`, a line a revision."""
        return [line for line in self.cli("history", self.path("library", relative)).splitlines() if line.strip()]


class Client:
    """HTTP on loopback with the session cookie, as the browser holds it."""

    def __init__(self, daemon, login=True):
        self.daemon = daemon
        self.cookie = None
        if login:
            status, headers, _ = self.request("GET", "/login?token=" + daemon.token, cookie=False)
            assert status == 303, status
            self.cookie = re.search(r"pdftrapper_session=([^;]+)", headers["set-cookie"]).group(1)

    def request(self, method, path, body=None, headers=None, cookie=True):
        connection = http.client.HTTPConnection("127.0.0.1", self.daemon.port, timeout=30)
        sent = {"Host": self.daemon.host}
        if cookie and self.cookie:
            sent["Cookie"] = "pdftrapper_session=" + self.cookie
        if method == "POST":
            sent["X-PDFTrapper-CSRF"] = "1"
            sent["Content-Type"] = "application/json"
        sent.update(headers or {})
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
        connection.request(method, path, body=body, headers=sent)
        response = connection.getresponse()
        data = response.read()
        connection.close()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, data

    def json(self, method, path, body=None):
        status, _, data = self.request(method, path, body)
        return status, (json.loads(data) if data else None)


class LiveFeed:
    """One open `/api/events` stream, read as a page reads it."""

    def __init__(self, daemon, client):
        self.connection = http.client.HTTPConnection("127.0.0.1", daemon.port, timeout=30)
        self.connection.request("GET", "/api/events", headers={"Host": daemon.host,
                                                               "Cookie": "pdftrapper_session=" + client.cookie})
        self.response = self.connection.getresponse()
        assert self.response.status == 200, self.response.status
        self.revisions = []

    def until(self, path, end):
        """Reads revision events until one of `path` (below the library) ending at `end` (None,
        None: the next revision event)."""
        event = None
        while True:
            line = self.response.readline()
            if not line:
                raise AssertionError(f"the feed ended before {path} at {end}; told: {self.revisions}")
            line = line.decode().rstrip("\n")
            if line.startswith("event: "):
                event = line[len("event: "):]
            elif line.startswith("data: ") and event == "revision":
                told = json.loads(line[len("data: "):])
                self.revisions.append((told["path"], told["end"], told["operation"]))
                if (told["path"], told["end"]) == (path, end) or path is None:
                    return

    def until_all(self, paths):
        """Reads revision events until every one of `paths` (below the library) was told."""
        left = set(paths)
        while left:
            before = len(self.revisions)
            self.until(None, None)
            left -= {path for path, _, _ in self.revisions[before:]}

    def told(self, path):
        return [(end, operation) for told_path, end, operation in self.revisions if told_path == path]

    def close(self):
        self.connection.close()



# The six independent readers, each asked for the page count.
def reader_pages(path):
    counts = {}
    subprocess.run(["qpdf", "--check", path], check=True, capture_output=True)
    info = subprocess.run(["pdfinfo", path], check=True, capture_output=True, text=True).stdout
    counts["poppler"] = int(re.search(r"^Pages:\s+(\d+)", info, re.M).group(1))
    script = tempfile.NamedTemporaryFile("w", suffix=".js", delete=False)
    script.write("var d = new Document(scriptArgs[0]); var n = d.countPages(); d.loadPage(n - 1); print(n);\n")
    script.close()
    counts["mupdf"] = int(subprocess.run(["mutool", "run", script.name, path], check=True, capture_output=True,
                                         text=True).stdout.split()[-1])
    os.remove(script.name)
    gs = subprocess.run(["gs", "-q", "-dNODISPLAY", "-dBATCH", "-dNOPAUSE", f"--permit-file-read={path}", "-c",
                         f"({path}) (r) file runpdfbegin pdfpagecount = quit"], check=True, capture_output=True, text=True)
    counts["ghostscript"] = int(gs.stdout.split()[-1])
    import pypdf
    import pypdfium2
    counts["pypdf"] = len(pypdf.PdfReader(path, strict=True).pages)
    counts["pypdfium2"] = len(pypdfium2.PdfDocument(path))
    return counts


def assert_readers_agree(path, pages):
    counts = reader_pages(path)
    wrong = {reader: n for reader, n in counts.items() if n != pages}
    assert not wrong, f"{path}: readers disagree with {pages} pages: {wrong}"


def render(path, page=1, dpi=72):
    """Page `page` rendered by poppler's pdftoppm (not the daemon's renderer), as a Pillow image."""
    from PIL import Image
    out = tempfile.mkdtemp()
    subprocess.run(["pdftoppm", "-r", str(dpi), "-f", str(page), "-l", str(page), "-png", path, out + "/p"], check=True)
    name = os.listdir(out)[0]
    image = Image.open(os.path.join(out, name)).convert("RGB")
    image.load()
    shutil.rmtree(out)
    return image


def changed_pixels(before, after, box):
    """How many pixels in `box` (pixel coordinates) differ noticeably between two renders."""
    a, b = before.crop(box).load(), after.crop(box).load()
    width, height = box[2] - box[0], box[3] - box[1]
    return sum(1 for x in range(width) for y in range(height)
               if sum(abs(p - q) for p, q in zip(a[x, y], b[x, y])) > 60)


def log(message):
    print(message, file=sys.stderr, flush=True)
