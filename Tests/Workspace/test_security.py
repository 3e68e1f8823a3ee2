"""The workspace over plain HTTP, as an attacker would try it: every request gets its status,
nothing outside the library is read or written, and the daemon keeps capturing meanwhile."""
import hashlib
import hmac
import http.client
import os
import secrets
import shutil
import socket
import subprocess
import time
import unittest

from workspace import BIN, Client, Daemon, text_pdf


def mint_cookie(token, issued, session_id=None):
    """A session cookie as the server makes it (web/README.md): ISSUED.ID.HMAC, the token's
    HMAC-SHA256 of the issue time and the id. Only whoever holds the token can make one."""
    session_id = session_id or secrets.token_hex(16)
    mac = hmac.new(token.encode(), f"pdftrapper workspace session v2 {issued} {session_id}".encode(), hashlib.sha256)
    return f"{issued}.{session_id}.{mac.hexdigest()}"


def tree_digest(folder):
    """Every file below `folder` with its bytes' digest: what must not change."""
    found = {}
    for directory, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(directory, name)
            if os.path.islink(path):
                found[path] = "link:" + os.readlink(path)
            else:
                with open(path, "rb") as f:
                    found[path] = hashlib.sha256(f.read()).hexdigest()
    return found


class SecurityTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.daemon = Daemon()
        text_pdf(cls.daemon.path("library", "Letter.pdf"), ["Dear reader"])
        # What lies outside the library: a secret beside it, and a link into it that leads out.
        cls.secret = cls.daemon.path("secret.pdf")
        text_pdf(cls.secret, ["secret"])
        os.symlink(cls.secret, cls.daemon.path("library", "Linked.pdf"))
        os.symlink(cls.daemon.dir, cls.daemon.path("library", "Out"))
        cls.client = Client(cls.daemon)

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()

    def tearDown(self):
        # Whatever a test sent, the daemon is still there to capture.
        self.assertTrue(self.daemon.alive(), "the daemon ended:\n" + self.daemon.log_text()[-3000:])

    def status(self, method, path, body=None, headers=None, cookie=True, client=None):
        return (client or self.client).request(method, path, body, headers, cookie)[0]

    def test_without_a_session_nothing_is_answered(self):
        anonymous = Client(self.daemon, login=False)
        for path in ["/", "/api/library", "/api/document?path=Letter.pdf", "/api/page?path=Letter.pdf&page=1&width=100",
                     "/api/photo?path=Letter.pdf&page=1&width=100", "/api/status", "/api/events", "/static/app.js"]:
            status, _, body = anonymous.request("GET", path)
            self.assertEqual((status, body), (401, b""), path)
        self.assertEqual(self.status("POST", "/api/save", {"path": "Letter.pdf", "base_end": 1, "edits": []}, client=anonymous), 401)

    def test_a_wrong_token_and_a_forged_cookie_are_refused(self):
        anonymous = Client(self.daemon, login=False)
        self.assertEqual(self.status("GET", "/login?token=" + "0" * 64, client=anonymous), 401)
        self.assertEqual(self.status("GET", "/login?token=" + self.daemon.token[:-1], client=anonymous), 401)
        self.assertEqual(self.status("GET", "/login", client=anonymous), 401)
        forged = Client(self.daemon, login=False)
        for cookie in ["0" * 64, self.client.cookie[:-1] + ("0" if self.client.cookie[-1] != "0" else "1"), self.daemon.token, ""]:
            forged.cookie = cookie
            self.assertEqual(self.status("GET", "/api/library", client=forged), 401, cookie)

    def test_other_methods_without_a_session_get_401_too(self):
        anonymous = Client(self.daemon, login=False)
        for method in ["PUT", "DELETE", "OPTIONS", "PATCH"]:
            self.assertEqual(self.status(method, "/api/save", b"{}", client=anonymous), 401, method)

    def test_replacing_the_token_ends_every_session(self):
        before = Client(self.daemon)
        self.assertEqual(self.status("GET", "/api/library", client=before), 200)
        os.remove(self.daemon.path("state", "web-token"))
        self.assertEqual(self.status("GET", "/api/library", client=before), 401)
        self.assertEqual(self.status("GET", "/login?token=" + self.daemon.token, client=Client(self.daemon, login=False)), 401)
        # web-url makes a new token, which the running server takes at once.
        url = subprocess.run([BIN, "web-url", "--config", self.daemon.config], capture_output=True, text=True, check=True).stdout
        self.__class__.daemon.token = url.strip().split("token=")[1]
        self.assertNotEqual(self.daemon.token, before.cookie)
        after = Client(self.daemon)
        self.assertEqual(self.status("GET", "/api/library", client=after), 200)
        self.assertEqual(self.status("GET", "/api/library", client=before), 401)
        self.__class__.client = after
        self.client = after

    def test_an_undo_against_a_moved_document_is_refused_and_nothing_changes(self):
        path = self.daemon.path("library", "Undoable.pdf")
        text_pdf(path, ["first revision"])
        base = os.path.getsize(path)
        status, answer = self.client.json("POST", "/api/save", {"path": "Undoable.pdf", "base_end": base,
                                                                 "edits": [{"op": "rotate", "pages": [1], "degrees": 90}]})
        self.assertEqual(status, 200, answer)
        with open(path, "rb") as f:
            edited = f.read()
        # The browser still thinks the document ends at `base`: its undo must not take the rotation away.
        status, answer = self.client.json("POST", "/api/undo", {"path": "Undoable.pdf", "base_end": base})
        self.assertEqual(status, 409, answer)
        with open(path, "rb") as f:
            self.assertEqual(f.read(), edited)
        status, answer = self.client.json("POST", "/api/undo", {"path": "Undoable.pdf", "base_end": len(edited)})
        self.assertEqual((status, answer["end"]), (200, base))

    def test_a_stale_tab_is_told_apart_by_its_revision_not_its_length(self):
        """Two tabs on one document. Tab A undoes the last revision and saves a note of the same
        size with other words: the file ends where it ended before, with other bytes. Tab B, still
        showing the undone revision, presses undo (or saves): refused with 409 and the current
        revision, never taking A's revision away."""
        import json
        path = self.daemon.path("library", "Tabs.pdf")
        text_pdf(path, ["shared by two tabs"])

        def document():
            status, headers, data = self.client.request("GET", "/api/document?path=Tabs.pdf")
            self.assertEqual(status, 200)
            shown = json.loads(data)
            self.assertEqual(headers["etag"], f'"{shown["revision"]}"')
            return shown

        def note(words, base):
            return self.client.json("POST", "/api/save", {"path": "Tabs.pdf", "base_revision": base["revision"],
                                                          "edits": [{"op": "note", "page": 1, "at": [50, 50],
                                                                     "contents": words}]})

        status, answer = note("AAAA", document())
        self.assertEqual(status, 200, answer)
        tab_b = document()
        status, answer = self.client.json("POST", "/api/undo", {"path": "Tabs.pdf", "base_revision": tab_b["revision"]})
        self.assertEqual(status, 200, answer)
        status, answer = note("BBBB", document())
        self.assertEqual(status, 200, answer)
        now = document()
        self.assertEqual(now["end"], tab_b["end"], "the case to tell apart: the same length, other bytes")
        self.assertNotEqual(now["revision"], tab_b["revision"])
        with open(path, "rb") as f:
            tab_a_saved = f.read()

        stale = {"path": "Tabs.pdf", "base_end": tab_b["end"], "base_revision": tab_b["revision"]}
        status, answer = self.client.json("POST", "/api/undo", stale)
        self.assertEqual((status, answer["revision"]), (409, now["revision"]), answer)
        status, answer = self.client.json("POST", "/api/save", {**stale, "edits": [{"op": "rotate", "pages": [1], "degrees": 90}]})
        self.assertEqual(status, 409, answer)
        status, _, _ = self.client.request("POST", "/api/redo", {"path": "Tabs.pdf"},
                                           headers={"If-Match": f'"{tab_b["revision"]}"'})
        self.assertEqual(status, 409)
        with open(path, "rb") as f:
            self.assertEqual(f.read(), tab_a_saved, "tab A's revision is as it saved it")
        status, answer = self.client.json("POST", "/api/undo", {"path": "Tabs.pdf", "base_revision": "12-not-a-revision"})
        self.assertEqual(status, 422, answer)

    def test_an_earlier_revision_is_shown_without_a_copy_left_anywhere(self):
        import glob
        import tempfile
        copies = os.path.join(tempfile.gettempdir(), "pdftrapper-*.pdf")  # where a copy would be made
        path = self.daemon.path("library", "Revisions.pdf")
        text_pdf(path, ["first revision"])
        first = os.path.getsize(path)
        status, _ = self.client.json("POST", "/api/save", {"path": "Revisions.pdf", "base_end": first,
                                                            "edits": [{"op": "rect", "page": 1, "box": [10, 10, 100, 100]}]})
        self.assertEqual(status, 200)
        temporary = set(glob.glob(copies))
        status, _, picture = self.client.request("GET", f"/api/page?path=Revisions.pdf&page=1&width=300&end={first}")
        self.assertEqual(status, 200)
        self.assertTrue(picture.startswith(b"\x89PNG"))
        self.assertEqual(set(glob.glob(copies)), temporary)
        self.assertEqual(os.listdir(self.daemon.path("state", "web-revisions")), [])
        # A revision that never ended there is not there.
        self.assertEqual(self.status("GET", f"/api/page?path=Revisions.pdf&page=1&width=300&end={first - 1}"), 404)

    def test_a_session_cookie_is_http_only_and_same_site_strict(self):
        status, headers, _ = self.client.request("GET", "/login?token=" + self.daemon.token, cookie=False)
        self.assertEqual(status, 303)
        cookie = headers["set-cookie"]
        self.assertIn("HttpOnly", cookie)
        self.assertIn("SameSite=Strict", cookie)
        self.assertIn("Path=/", cookie)
        self.assertIn("Max-Age=2592000;", cookie)   # web.session_days, 30 by default
        self.assertEqual(headers["location"], "/")

    def test_each_login_is_a_session_of_its_own(self):
        first, second = Client(self.daemon), Client(self.daemon)
        self.assertNotEqual(first.cookie, second.cookie)
        issued = int(first.cookie.split(".")[0])
        self.assertLessEqual(abs(issued - time.time()), 5)
        for client in (first, second):
            self.assertEqual(self.status("GET", "/api/library", client=client), 200)

    def test_a_session_older_than_session_days_is_refused(self):
        minted = Client(self.daemon, login=False)
        now = int(time.time())
        # The control: a cookie minted here the server's way is taken, so the refusals below are the age's.
        minted.cookie = mint_cookie(self.daemon.token, now)
        self.assertEqual(self.status("GET", "/api/library", client=minted), 200)
        minted.cookie = mint_cookie(self.daemon.token, now - 30 * 86400 + 120)
        self.assertEqual(self.status("GET", "/api/library", client=minted), 200)
        for issued in [now - 30 * 86400 - 1, now - 365 * 86400, now + 3600]:
            minted.cookie = mint_cookie(self.daemon.token, issued)
            for path in ["/", "/api/library"]:
                status, _, body = minted.request("GET", path)
                self.assertEqual((status, body), (401, b""), (issued - now, path))
        # Minted with another key (a guess at the token), it is refused however young.
        minted.cookie = mint_cookie("0" * 64, now)
        self.assertEqual(self.status("GET", "/api/library", client=minted), 401)

    def test_log_out_ends_that_session_for_good_and_no_other(self):
        leaving, staying = Client(self.daemon), Client(self.daemon)
        # Logging out changes state: without the CSRF header, or from another origin, it is refused.
        status, _, _ = leaving.request("POST", "/logout", b"{}", headers={"X-PDFTrapper-CSRF": ""})
        self.assertEqual(status, 403)
        self.assertEqual(self.status("POST", "/logout", {}, headers={"Origin": "http://evil.example"}, client=leaving), 403)
        self.assertEqual(self.status("GET", "/api/library", client=leaving), 200)
        status, headers, body = leaving.request("POST", "/logout", {})
        self.assertEqual((status, body), (204, b""))
        self.assertRegex(headers["set-cookie"], r"^pdftrapper_session=; Max-Age=0;")
        # The cookie replayed, as a copy of it would be: nothing.
        for method, path in [("GET", "/api/library"), ("GET", "/"), ("POST", "/logout"), ("POST", "/api/save")]:
            self.assertEqual(self.status(method, path, {} if method == "POST" else None, client=leaving), 401, path)
        self.assertEqual(self.status("GET", "/api/library", client=staying), 200)
        self.assertEqual(self.status("GET", "/api/library"), 200)
        with open(self.daemon.path("state", "web-sessions-ended")) as f:
            self.assertIn(leaving.cookie.split(".")[1], f.read())
        self.assertEqual(os.stat(self.daemon.path("state", "web-sessions-ended")).st_mode & 0o777, 0o600)

    def test_log_out_ends_that_session_s_live_feed_too(self):
        def feed(client):
            connection = http.client.HTTPConnection("127.0.0.1", self.daemon.port, timeout=30)
            connection.request("GET", "/api/events", headers={"Host": self.daemon.host,
                                                              "Cookie": "pdftrapper_session=" + client.cookie})
            response = connection.getresponse()
            self.assertEqual(response.status, 200)
            self.assertEqual([response.readline() for _ in range(3)], [b"retry: 2000\n", b": connected\n", b"\n"])
            return connection, response
        leaving = Client(self.daemon)
        ended, ended_feed = feed(leaving)
        kept, kept_feed = feed(self.client)
        self.assertEqual(leaving.request("POST", "/logout", {})[0], 204)
        path = self.daemon.path("library", "Live.pdf")
        text_pdf(path, ["a revision while a feed is open"])
        status, answer = self.client.json("POST", "/api/save", {"path": "Live.pdf", "base_end": os.path.getsize(path),
                                                                 "edits": [{"op": "rotate", "pages": [1], "degrees": 90}]})
        self.assertEqual(status, 200, answer)
        # The live session's feed tells of the revision; the ended one's ends instead of telling it.
        line = b""
        while not line.startswith(b"event: revision"):
            line = kept_feed.readline()
            self.assertTrue(line, "the live feed ended")
        # Its end comes at once: waiting here for the 15 s keep-alive would be a feed that went on.
        ended.sock.settimeout(10)
        self.assertNotIn(b"event: revision", ended_feed.read())
        for connection in (ended, kept):
            connection.close()

    def test_web_url_new_token_ends_every_session_at_once(self):
        before, also = Client(self.daemon), Client(self.daemon)
        old = self.daemon.token
        url = subprocess.run([BIN, "web-url", "--new-token", "--config", self.daemon.config], capture_output=True, text=True,
                             check=True).stdout.strip()
        self.assertRegex(url, r"^http://127\.0\.0\.1:\d+/login\?token=[0-9a-f]{64}$")
        new = url.split("token=")[1]
        self.assertNotEqual(new, old)
        # The running daemon takes it at the next request: every old cookie, and the old address, get nothing.
        for client in (before, also, self.client):
            self.assertEqual(self.status("GET", "/api/library", client=client), 401)
        self.assertEqual(self.status("GET", "/login?token=" + old, client=Client(self.daemon, login=False)), 401)
        self.__class__.daemon.token = new
        after = Client(self.daemon)
        self.assertEqual(self.status("GET", "/api/library", client=after), 200)
        # web-url without the flag prints the new address again.
        again = subprocess.run([BIN, "web-url", "--config", self.daemon.config], capture_output=True, text=True,
                               check=True).stdout.strip()
        self.assertEqual(again, url)
        self.__class__.client = after
        self.client = after

    def test_a_cross_origin_post_is_refused(self):
        before = tree_digest(self.daemon.path("library"))
        body = {"path": "Letter.pdf", "base_end": os.path.getsize(self.daemon.path("library", "Letter.pdf")),
                "edits": [{"op": "rotate", "pages": [1], "degrees": 90}]}
        # No CSRF header: what a form on another site sends.
        status, _, _ = self.client.request("POST", "/api/save", body, headers={"X-PDFTrapper-CSRF": ""})
        self.assertEqual(status, 403)
        # The header, but from another origin.
        self.assertEqual(self.status("POST", "/api/save", body, headers={"Origin": "http://evil.example"}), 403)
        self.assertEqual(tree_digest(self.daemon.path("library")), before)

    def test_a_foreign_host_header_is_refused(self):
        for host in ["evil.example", "evil.example:%d" % self.daemon.port, "127.0.0.2:%d" % self.daemon.port, ""]:
            self.assertEqual(self.status("GET", "/api/library", headers={"Host": host}), 421, host)

    def test_paths_outside_the_library_are_not_there(self):
        secret = os.path.relpath(self.secret, self.daemon.path("library"))
        for bad in ["../secret.pdf", "%2e%2e/secret.pdf", "%2e%2e%2fsecret.pdf", self.secret, "Linked.pdf", "Out/secret.pdf", secret, ".pdftrapper/x.pdf", "Letter.pdf%00.txt", "", "/etc/passwd",
                    "Letter.pdf/..", "./Letter.pdf"]:
            for route in ["/api/document?path=", "/api/page?page=1&width=100&path=", "/api/words?page=1&path=",
                          "/api/annotations?page=1&path=", "/api/photo?page=1&width=100&path="]:
                self.assertEqual(self.status("GET", route + bad), 404, route + bad)
        for raw in ["/static/../config.toml", "/static/%2e%2e/config.toml", "/static/app.js/../../config.toml", "/../config.toml"]:
            self.assertEqual(self.status("GET", raw), 404, raw)
        before = tree_digest(self.daemon.dir)
        self.assertEqual(self.status("POST", "/api/save", {"path": "../secret.pdf", "base_end": 1,
                                                             "edits": [{"op": "rotate", "pages": [1], "degrees": 90}]}), 404)
        self.assertEqual(self.status("POST", "/api/save", {"path": "Linked.pdf", "base_end": 1,
                                                             "edits": [{"op": "rotate", "pages": [1], "degrees": 90}]}), 404)
        after = tree_digest(self.daemon.dir)
        changed = {path for path in set(before) | set(after) if before.get(path) != after.get(path)}
        # The daemon's own status file may be rewritten; nothing else.
        self.assertEqual({path for path in changed if not path.endswith("status.json") and "/state/" not in path}, set())

    def test_an_oversized_body_gets_413(self):
        limit = 32 << 20   # web.max_body's default: room for a million ink points
        # Refused by its length, before a byte of it is read.
        connection = socket.create_connection(("127.0.0.1", self.daemon.port))
        connection.sendall(("POST /api/save HTTP/1.1\r\nHost: %s\r\nCookie: pdftrapper_session=%s\r\nX-PDFTrapper-CSRF: 1\r\n"
                            "Content-Length: %d\r\n\r\n" % (self.daemon.host, self.client.cookie, limit + 1)).encode())
        self.assertTrue(connection.recv(100).startswith(b"HTTP/1.1 413"))
        connection.close()
        # Just within the limit is read (and refused for what it says, not for its size).
        status, _, _ = self.client.request("POST", "/api/save", body=b"{" + b" " * (limit - 10) + b"}")
        self.assertEqual(status, 404)
        # Chunked, without a length to refuse it by up front.
        connection = socket.create_connection(("127.0.0.1", self.daemon.port))
        connection.sendall(("POST /api/save HTTP/1.1\r\nHost: %s\r\nCookie: pdftrapper_session=%s\r\nX-PDFTrapper-CSRF: 1\r\n"
                            "Transfer-Encoding: chunked\r\n\r\n" % (self.daemon.host, self.client.cookie)).encode())
        chunk = b"x" * 65536
        try:
            for _ in range(limit // len(chunk) + 2):
                connection.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            connection.sendall(b"0\r\n\r\n")
        except BrokenPipeError:
            pass
        answer = connection.recv(100)
        connection.close()
        self.assertTrue(answer.startswith(b"HTTP/1.1 413"), answer)

    def test_malformed_requests_get_errors_not_crashes(self):
        for raw in [b"GARBAGE\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n", b"GET /api/library HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
                    b"GET " + b"/" * 70000 + b" HTTP/1.1\r\n\r\n", b"\x00\x01\x02\x03\r\n\r\n",
                    b"POST /api/save HTTP/1.1\r\nHost: %s\r\nContent-Length: -5\r\n\r\n" % self.daemon.host.encode()]:
            connection = socket.create_connection(("127.0.0.1", self.daemon.port), timeout=10)
            try:
                connection.sendall(raw)
                answer = connection.recv(200)
            except (ConnectionResetError, BrokenPipeError, TimeoutError):
                # Bytes that never make a request line: the connection waits for more, or closes.
                answer = b""
            connection.close()
            if answer:
                self.assertRegex(answer, rb"^HTTP/1\.[01] (4\d\d|5\d\d)", raw[:40])
        # A body that is not JSON, or JSON of the wrong shape, with a session.
        for body in [b"not json", b"[]", b'{"path": 5}', b'{"path": "Letter.pdf", "base_end": "x", "edits": []}']:
            self.assertIn(self.status("POST", "/api/save", body), (404, 422), body)
        self.assertEqual(self.status("PUT", "/api/save", b"{}"), 405)
        self.assertTrue(self.daemon.alive())
        self.assertEqual(self.client.json("GET", "/api/library")[0], 200)

    def test_idle_connections_do_not_starve_a_real_client_and_capture_goes_on(self):
        idle = []
        for _ in range(200):
            connection = socket.create_connection(("127.0.0.1", self.daemon.port))
            connection.sendall(b"GET /api/library HTTP/1.1\r\nHost: %s\r\n" % self.daemon.host.encode())  # never finished
            idle.append(connection)
        try:
            for _ in range(20):
                status, body = self.client.json("GET", "/api/library")
                self.assertEqual(status, 200)
            # Meanwhile the daemon takes what lands in the inbox.
            page = self.daemon.path("drop.pdf")
            text_pdf(page, ["dropped while idle connections wait"])
            self.daemon.drop("drop.pdf", page)
            self.daemon.wait_for(lambda: os.path.exists(self.daemon.path("library", "Inbox.pdf")), what="the dropped page")
            status, _, picture = self.client.request("GET", "/api/page?path=Inbox.pdf&page=1&width=200")
            self.assertEqual(status, 200)
            self.assertTrue(picture.startswith(b"\x89PNG"))
        finally:
            for connection in idle:
                connection.close()
        self.assertTrue(self.daemon.alive())


if __name__ == "__main__":
    unittest.main()


class UnixSocketTests(unittest.TestCase):
    """`pdftrapper serve` alone, on a unix socket (what a reverse proxy connects to)."""

    def test_serve_answers_on_a_socket_with_the_proxy_s_host_and_stops_on_sigterm(self):
        import json
        import signal
        import subprocess
        import tempfile

        from workspace import BIN
        folder = tempfile.mkdtemp(prefix="pdftrapper-socket-")
        os.makedirs(os.path.join(folder, "library"))
        text_pdf(os.path.join(folder, "library", "Letter.pdf"), ["Dear reader"])
        socket_path = os.path.join(folder, "web.sock")
        config = os.path.join(folder, "config.toml")
        with open(config, "w") as f:
            f.write('[daemon]\nstate_dir = "state"\n[library]\nroot = "library"\n[inbox]\npath = "inbox"\n'
                    f'[web]\nlisten = "web.sock"\nhosts = ["scans.example.org"]\n')
        server = subprocess.Popen([BIN, "serve", "--config", config], stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.time() + 20
            while not os.path.exists(socket_path) and time.time() < deadline:
                time.sleep(0.05)
            self.assertEqual(os.stat(socket_path).st_mode & 0o777, 0o660)
            url = subprocess.run([BIN, "web-url", "--config", config], capture_output=True, text=True, check=True).stdout
            self.assertIn("http://scans.example.org/login?token=", url)
            token = url.split("token=")[1].split()[0]

            def ask(path, host="scans.example.org", cookie=None):
                connection = socket.socket(socket.AF_UNIX)
                connection.connect(socket_path)
                request = f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n"
                if cookie:
                    request += f"Cookie: pdftrapper_session={cookie}\r\n"
                connection.sendall((request + "\r\n").encode())
                answer = b""
                while chunk := connection.recv(65536):
                    answer += chunk
                connection.close()
                head, _, body = answer.partition(b"\r\n\r\n")
                return int(head.split()[1]), head.decode(), body

            status, head, _ = ask("/login?token=" + token)
            self.assertEqual(status, 303)
            cookie = head.split("pdftrapper_session=")[1].split(";")[0]
            status, _, body = ask("/api/library", cookie=cookie)
            self.assertEqual(status, 200)
            self.assertEqual([d["path"] for d in json.loads(body)["documents"]], ["Letter.pdf"])
            self.assertEqual(ask("/api/library", host="evil.example", cookie=cookie)[0], 421)
            self.assertEqual(ask("/api/library")[0], 401)
        finally:
            server.send_signal(signal.SIGTERM)
            self.assertEqual(server.wait(10), 0, server.stderr.read())
        self.assertFalse(os.path.exists(socket_path), "the socket is removed at the stop")
        shutil.rmtree(folder, ignore_errors=True)


class ReloadTests(unittest.TestCase):
    """A SIGHUP that changes [web] starts the workspace anew with it; the session stays valid."""

    def test_a_reload_takes_new_web_settings(self):
        import signal
        daemon = Daemon()
        try:
            client = Client(daemon)
            self.assertEqual(client.request("GET", "/api/library", headers={"Host": "scans.example.org"})[0], 421)
            with open(daemon.config) as f:
                text = f.read()
            with open(daemon.config, "w") as f:
                f.write(text.replace("[web]\n", '[web]\nhosts = ["scans.example.org"]\n'))
            daemon.process.send_signal(signal.SIGHUP)
            daemon.wait_for(lambda: daemon.log_text().count(f"workspace on 127.0.0.1:{daemon.port}") == 2,
                            what="the workspace to start again")
            def proxied():
                try:
                    return client.request("GET", "/api/library", headers={"Host": "scans.example.org"})[0]
                except OSError:  # between the old server's stop and the new one's start
                    return None
            daemon.wait_for(lambda: proxied() == 200, what="the new host to be taken")
            self.assertEqual(client.request("GET", "/api/library", headers={"Host": "evil.example"})[0], 421)
            self.assertTrue(daemon.alive())
        finally:
            daemon.stop()


class SessionLifetimeTests(unittest.TestCase):
    """What a session outlives and what it does not, each on a daemon of its own."""

    def test_a_session_ends_after_session_days(self):
        # 0.0001 days: 8.64 s, so the test sees a session expire on the server's own clock.
        daemon = Daemon(extra="session_days = 0.0001")
        try:
            client = Client(daemon)
            logged_in = time.time()
            status, headers, _ = client.request("GET", "/login?token=" + daemon.token, cookie=False)
            self.assertIn("Max-Age=9;", headers["set-cookie"])
            self.assertEqual(client.request("GET", "/api/library")[0], 200)
            time.sleep(max(0, logged_in + 8.64 + 0.5 - time.time()))
            # Expired: as without a session, 401 and nothing else, the app's page too.
            for path in ["/", "/api/library"]:
                status, _, body = client.request("GET", path)
                self.assertEqual((status, body), (401, b""), path)
            # The address logs in again, a session as long.
            self.assertEqual(Client(daemon).request("GET", "/api/library")[0], 200)
        finally:
            daemon.stop()

    def test_a_logged_out_session_stays_ended_after_a_restart(self):
        daemon = Daemon()
        try:
            leaving, staying = Client(daemon), Client(daemon)
            self.assertEqual(leaving.request("POST", "/logout", {})[0], 204)
            daemon.restart()
            self.assertEqual(leaving.request("GET", "/api/library")[0], 401)
            self.assertEqual(staying.request("GET", "/api/library")[0], 200)
        finally:
            daemon.stop()
