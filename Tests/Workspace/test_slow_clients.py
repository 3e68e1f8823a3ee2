"""The workspace's server under slow clients (slowloris): connections that send their headers one
byte a second, from one address, while someone else logs in from another. Bounded in time: the
login is waited for 10 s at most; how fast it is answered is bench/web.py's to measure, not asserted.
"""
import http.client
import resource
import socket
import threading
import time
import unittest

from workspace import Daemon

# Loopback is all of 127/8: the slow clients come from 127.0.0.2, the person from 127.0.0.1.
SLOW_ADDRESS = "127.0.0.2"


def get(daemon, path, cookie=None):
    """GET from 127.0.0.1, waited for 10 s at most: the status and the cookie set, if any."""
    connection = http.client.HTTPConnection("127.0.0.1", daemon.port, timeout=10)
    connection.request("GET", path, headers={"Host": daemon.host, **({"Cookie": cookie} if cookie else {})})
    response = connection.getresponse()
    response.read()
    connection.close()
    return response.status, (response.getheader("Set-Cookie") or "").split(";")[0]


def open_slow_connections(daemon, count):
    """`count` connections from SLOW_ADDRESS, each with the start of a request line and no more;
    those the server takes (it may close the rest at once)."""
    slow = []
    for _ in range(count):
        connection = socket.socket()
        connection.bind((SLOW_ADDRESS, 0))
        try:
            connection.connect(("127.0.0.1", daemon.port))
            connection.sendall(b"GET /login?token=")
            slow.append(connection)
        except OSError:
            connection.close()
    return slow


class SlowClientTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # A thousand sockets here: more than the usual soft limit of 1024 descriptors.
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != resource.RLIM_INFINITY and soft < 4096:
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(4096, hard), hard))
        cls.daemon = Daemon()

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()

    def test_slow_connections_from_one_address_leave_the_login_to_everyone_else(self):
        # More than the server's whole connection limit (1,000), from one address, sending one byte
        # a second: before the limit per address, every connection the server had was theirs.
        slow = open_slow_connections(self.daemon, 1100)
        stop = threading.Event()

        def trickle():
            while not stop.is_set():
                for connection in slow:
                    try:
                        connection.send(b"x")
                    except OSError:
                        pass
                stop.wait(1)
        trickler = threading.Thread(target=trickle)
        trickler.start()
        try:
            # The login page, then the workspace's own page, from another address.
            status, cookie = get(self.daemon, "/login?token=" + self.daemon.token)
            self.assertEqual(status, 303)
            self.assertEqual(get(self.daemon, "/", cookie)[0], 200)
            # The server took some of them: a slow client is still served, only not without limit.
            self.assertGreater(sum(1 for connection in slow if still_open(connection)), 0)
        finally:
            stop.set()
            trickler.join()
            for connection in slow:
                connection.close()
        self.assertTrue(self.daemon.alive())


def still_open(connection):
    """Whether the server has not closed this connection (nothing to read, no end of stream)."""
    connection.setblocking(False)
    try:
        return connection.recv(1) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        connection.setblocking(True)


if __name__ == "__main__":
    unittest.main()
