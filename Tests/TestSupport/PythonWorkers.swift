import Foundation

/// A few long-lived Python interpreters that run the tests' `python3 -c SCRIPT ARGS...` and
/// `python3 FILE ARGS...` calls, with pypdf, pypdfium2 and Pillow imported once.
///
/// A test run makes about 2,300 such calls (every reader check asks pypdf and pypdfium2), and a fresh
/// interpreter spends 0.15 s importing them, behind pyenv's shell shim where there is one: half the
/// CPU time of `swift test` went there. Each call still gets what a fresh process gives it: its own
/// `__main__`, its argv, empty stdin, its stdout and stderr captured, its exit status, the working
/// directory, environment and warning filters as they were. A script that kills its interpreter
/// (a crash in a C extension, `os._exit`) is run again as a process of its own, so the test sees
/// what that process does.
enum PythonWorkers {
    /// The interpreter side: requests and replies as JSON lines on a private pair of descriptors,
    /// so output a C library writes to fd 1 cannot garble them (fd 1 goes to fd 2 instead).
    static let program = #"""
        import base64, io, json, logging, os, runpy, sys, traceback, warnings
        import pypdf, pypdfium2, PIL.Image, PIL.ImageDraw
        requests = os.fdopen(os.dup(0), "rb")
        replies = os.fdopen(os.dup(0), "wb")
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(2, 1)
        home, environment = os.getcwd(), dict(os.environ)
        for line in requests:
            request = json.loads(line)
            out, err = io.BytesIO(), io.BytesIO()
            sys.stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
            sys.stderr = io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", write_through=True)
            sys.stdin = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
            status = 0
            with warnings.catch_warnings():
                try:
                    if "file" in request:
                        sys.argv = [request["file"]] + request["argv"]
                        runpy.run_path(request["file"], run_name="__main__")
                    else:
                        sys.argv = ["-c"] + request["argv"]
                        exec(compile(request["script"], "<string>", "exec"), {"__name__": "__main__"})
                except SystemExit as end:
                    if end.code is None:
                        status = 0
                    elif isinstance(end.code, int):
                        status = end.code
                    else:
                        print(end.code, file=sys.stderr)
                        status = 1
                except BaseException as error:
                    # (Without this loop's own frame, as a fresh interpreter would print it.)
                    traceback.print_exception(type(error), error, error.__traceback__.tb_next)
                    status = 1
            sys.stdout.flush()
            sys.stderr.flush()
            # (Read before the wrappers go: dropping one closes the buffer under it.)
            printed, complained = out.getvalue(), err.getvalue()
            sys.stdout, sys.stderr, sys.stdin = sys.__stdout__, sys.__stderr__, sys.__stdin__
            logging.root.handlers.clear()
            os.chdir(home)
            os.environ.clear()
            os.environ.update(environment)
            reply = {"status": status, "stdout": base64.b64encode(printed).decode(),
                     "stderr": complained.decode("utf-8", "replace")}
            replies.write(json.dumps(reply).encode() + b"\n")
            replies.flush()
        """#

    /// One interpreter and our end of the socket pair that is its stdin and stdout (a socket, so a
    /// write to an interpreter that died fails with EPIPE instead of raising SIGPIPE here).
    final class Worker {
        let process = Process()
        let socket: Int32
        var buffered: [UInt8] = []

        init(python: String) throws {
            var pair: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            socket = pair[0]
            let theirs = FileHandle(fileDescriptor: pair[1], closeOnDealloc: true)
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = ["-c", PythonWorkers.program]
            process.standardInput = theirs
            process.standardOutput = theirs
            process.standardError = FileHandle.standardError
            do {
                try process.run()
            } catch {
                close(socket)
                throw error
            }
            try? theirs.close()
        }

        /// The reply to `request`, or nil when the interpreter died on the way.
        func ask(_ request: [String: Any]) -> PDFReaders.Output? {
            guard let line = try? JSONSerialization.data(withJSONObject: request), send(Array(line) + [0x0A]),
                  let reply = readLine(),
                  let object = try? JSONSerialization.jsonObject(with: reply) as? [String: Any],
                  let status = object["status"] as? Int, let stdout = object["stdout"] as? String,
                  let stderr = object["stderr"] as? String
            else { return nil }
            return PDFReaders.Output(status: Int32(truncatingIfNeeded: status),
                                     stdout: Data(base64Encoded: stdout) ?? Data(), stderr: stderr)
        }

        private func send(_ bytes: [UInt8]) -> Bool {
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                sent += count
            }
            return true
        }

        private func readLine() -> Data? {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                if let end = buffered.firstIndex(of: 0x0A) {
                    let line = Data(buffered[..<end])
                    buffered.removeSubrange(...end)
                    return line
                }
                let count = chunk.withUnsafeMutableBytes { read(socket, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return nil }
                buffered += chunk[..<count]
            }
        }

        /// Stops the interpreter and waits for it.
        func end() {
            shutdown(socket, Int32(SHUT_RDWR))
            close(socket)
            process.terminate()
            process.waitUntilExit()
        }
    }

    private static let lock = NSCondition()
    nonisolated(unsafe) private static var idle: [Worker] = []
    nonisolated(unsafe) private static var live = 0
    private static let limit = 4

    /// The interpreter `python3` on PATH stands for (pyenv's shim resolved once), or nil.
    static let python: String? = {
        guard PDFReaders.find("python3") != nil,
              let output = try? PDFReaders.spawn("python3", ["-c", "import sys; print(sys.executable)"]),
              output.status == 0
        else { return nil }
        let path = output.text.trimmingCharacters(in: .whitespacesAndNewlines)
        return path.isEmpty ? nil : path
    }()

    /// `python3 ARGUMENTS` as a fresh process would answer it, or nil when these arguments are not
    /// a script the workers run (an option other than -c, say) or no worker can start.
    static func run(_ arguments: [String]) -> PDFReaders.Output? {
        let request: [String: Any]
        if arguments.first == "-c", arguments.count >= 2 {
            request = ["script": arguments[1], "argv": Array(arguments.dropFirst(2))]
        } else if let file = arguments.first, file.hasSuffix(".py") {
            request = ["file": file, "argv": Array(arguments.dropFirst())]
        } else {
            return nil
        }
        guard let worker = take() else { return nil }
        guard let output = worker.ask(request) else {
            worker.end()
            give(back: nil)
            return nil
        }
        give(back: worker)
        return output
    }

    private static func take() -> Worker? {
        lock.lock()
        defer { lock.unlock() }
        while idle.isEmpty && live >= limit { lock.wait() }
        if let worker = idle.popLast() { return worker }
        guard let python, let worker = try? Worker(python: python) else { return nil }
        live += 1
        return worker
    }

    private static func give(back worker: Worker?) {
        lock.lock()
        if let worker { idle.append(worker) } else { live -= 1 }
        lock.signal()
        lock.unlock()
    }
}
