import CMicroHTTPD
import Foundation
import Glibc
import System
import TrapperCore

/// libmicrohttpd, opened when the first server starts.
enum MicroHTTPD {
    static let library = SharedLibrary.open("libmicrohttpd.so.12", for: "the workspace's HTTP server") { trapper_mhd_load($0, $1) }
}

/// An HTTP/1.1 server on a socket of our own (TCP or unix), through libmicrohttpd: one thread a
/// connection, at most `connectionLimit` at once and `addressLimit` from one client address, idle
/// ones closed after `idleSeconds`. Slow clients (slowloris: headers sent a byte a second) each
/// hold one thread of their own, and from one address no more than `addressLimit`: the rest of
/// the connections, the login page's among them, stay for everyone else.
public final class HTTPListener: @unchecked Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    let handler: any HTTPHandler
    let mhd: trapper_mhd
    private var daemon: OpaquePointer?
    private let socket: Int32
    private let socketPath: String?
    private let streams = OpenStreams()

    /// `addressLimit` leaves room for a household behind one NAT address with many tabs open (each
    /// with its live feed and six connections of its own) and for the suite's 200 idle connections
    /// beside a client; one address alone can never take the whole of `connectionLimit`.
    public init(listen: WebSettings.Listen, handler: any HTTPHandler, connectionLimit: Int = 1000, addressLimit: Int = 256,
                idleSeconds: Int = 30) throws(Failure) {
        switch MicroHTTPD.library {
        case .success(let api): mhd = api
        case .failure(let failure): throw Failure(description: failure.description)
        }
        self.handler = handler
        (socket, socketPath) = try Self.listeningSocket(listen)
        let context = Unmanaged.passUnretained(self).toOpaque()
        let limit = UInt32(Self.connectionsThatFit(connectionLimit))
        daemon = withUnsafePointer(to: mhd) {
            trapper_mhd_start($0, socket, limit, UInt32(addressLimit), UInt32(idleSeconds), accessHandler, requestCompleted, context)
        }
        guard daemon != nil else {
            Glibc.close(socket)
            if let socketPath { unlink(socketPath) }
            throw Failure(description: "libmicrohttpd would not start on \(listen)")
        }
    }

    /// Descriptors the daemon keeps for its own work beside the connections: targets, the inbox's
    /// files and watches, its state, worker pipes.
    static let reservedDescriptors = 256

    /// Each connection is a descriptor. Under the soft limit systemd gives (1,024), a thousand
    /// connections would leave the daemon none to open a target or an inbox file with (EMFILE): the
    /// soft limit is raised to the hard one, as systemd asks of programs that need many, and the
    /// connections get what stays beyond the daemon's own reserve.
    static func connectionsThatFit(_ wanted: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return wanted }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        // No limit (RLIM_INFINITY) clamps to Int.max.
        return max(16, min(wanted, Int(clamping: limit.rlim_cur) - reservedDescriptors))
    }

    /// Ends every stream, then stops: MHD waits for each connection's thread to finish.
    /// MHD closes the listening socket itself.
    public func stop() {
        guard let daemon else { return }
        streams.closeAll()
        mhd.MHD_stop_daemon(daemon)
        self.daemon = nil
        if let socketPath { unlink(socketPath) }
    }

    deinit { stop() }

    /// The port the kernel gave a TCP socket (for `127.0.0.1:0` in tests).
    public var port: Int? {
        var address = sockaddr_in6()
        var length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        let got = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        guard got == 0 else { return nil }
        switch Int32(address.sin6_family) {
        case AF_INET6: return Int(UInt16(bigEndian: address.sin6_port))
        case AF_INET: return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
        default: return nil
        }
    }

    // MARK: requests

    /// What MHD keeps for one request between its calls of the access handler.
    final class PendingRequest {
        var request: HTTPRequest
        var body: [UInt8] = []
        var tooLarge = false
        /// The body goes here instead, when the handler takes it as an upload; `refusal` once it refused.
        var upload: (any HTTPUpload)?
        var refusal: HTTPResponse?
        var answered = false

        init(_ request: HTTPRequest) { self.request = request }
    }

    /// The request as MHD parsed it: every header, query argument and cookie, decoded.
    private func parsedRequest(_ connection: OpaquePointer, method: String, path: String) -> HTTPRequest {
        var request = HTTPRequest(method: method, path: path)
        withUnsafeMutablePointer(to: &request) { pointer in
            for kind in [MHD_ValueKind.HEADER_KIND, .GET_ARGUMENT_KIND, .COOKIE_KIND] {
                _ = mhd.MHD_get_connection_values_n(connection, kind, collectValue, UnsafeMutableRawPointer(pointer))
            }
        }
        return request
    }

    fileprivate func handle(_ connection: OpaquePointer, _ url: UnsafePointer<CChar>, _ method: UnsafePointer<CChar>,
                            _ uploadData: UnsafePointer<CChar>?, _ uploadSize: UnsafeMutablePointer<Int>,
                            _ state: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let existing = state.pointee else {
            // First call: only the headers are in.
            let request = parsedRequest(connection, method: String(cString: method), path: String(cString: url))
            if let answer = handler.admit(request) { return queue(answer, on: connection) }
            let pending = PendingRequest(request)
            pending.upload = handler.upload(for: request)
            if pending.upload == nil, let length = request.header("Content-Length").flatMap(Int.init), length > handler.bodyLimit {
                return queue(Self.tooLarge(handler.bodyLimit), on: connection)
            }
            state.pointee = Unmanaged.passRetained(pending).toOpaque()
            return .YES
        }
        let pending = Unmanaged<PendingRequest>.fromOpaque(existing).takeUnretainedValue()
        if let upload = pending.upload {
            if uploadSize.pointee > 0 {
                if pending.refusal == nil, let uploadData {
                    pending.refusal = upload.receive(UnsafeRawBufferPointer(start: uploadData, count: uploadSize.pointee))
                    if pending.refusal != nil { upload.abandon() }
                }
                uploadSize.pointee = 0
                return .YES
            }
            pending.answered = true
            return queue(pending.refusal ?? upload.finish(), on: connection)
        }
        if uploadSize.pointee > 0 {
            // A body sent in chunks, past the limit: the rest is read and dropped, then refused.
            if !pending.tooLarge, let uploadData {
                if pending.body.count + uploadSize.pointee > handler.bodyLimit {
                    pending.tooLarge = true
                    pending.body = []
                } else {
                    uploadData.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) {
                        pending.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: uploadSize.pointee))
                    }
                }
            }
            uploadSize.pointee = 0
            return .YES
        }
        if pending.tooLarge { return queue(Self.tooLarge(handler.bodyLimit), on: connection) }
        pending.request.body = pending.body
        return queue(handler.respond(to: pending.request), on: connection)
    }

    /// MHD_RESPMEM_MUST_COPY: MHD keeps its own copy of a body (the enum's cases lose their names in Swift).
    static let mustCopy = MHD_ResponseMemoryMode(rawValue: 2)!

    static func tooLarge(_ limit: Int) -> HTTPResponse {
        HTTPResponse(status: 413, headers: [("Content-Type", "text/plain; charset=utf-8")],
                     body: .bytes(Array("the body is larger than web.max_body (\(limit) bytes)\n".utf8)))
    }

    fileprivate func completed(_ state: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        guard let state, let pending = state.pointee else { return }
        let request = Unmanaged<PendingRequest>.fromOpaque(pending)
        // An upload cut off before its end (the phone lost its signal) leaves nothing behind.
        let ended = request.takeUnretainedValue()
        if let upload = ended.upload, !ended.answered, ended.refusal == nil { upload.abandon() }
        request.release()
        state.pointee = nil
    }

    private func queue(_ answer: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let response: OpaquePointer?
        switch answer.body {
        case .bytes(let bytes):
            response = bytes.withUnsafeBytes {
                mhd.MHD_create_response_from_buffer($0.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), Self.mustCopy)
            }
        case .stream(let stream):
            let reader = Unmanaged.passRetained(StreamReader(stream, registry: streams))
            response = mhd.MHD_create_response_from_callback(UInt64.max, 4096, readStream, reader.toOpaque(), freeStream)
            // Without a response MHD never calls freeStream: the reader is let go here.
            if response == nil { reader.release() }
        }
        guard let response else { return .NO }
        defer { mhd.MHD_destroy_response(response) }
        for (name, value) in answer.headers { _ = mhd.MHD_add_response_header(response, name, value) }
        return mhd.MHD_queue_response(connection, UInt32(answer.status), response)
    }

    // MARK: the listening socket

    private static func listeningSocket(_ listen: WebSettings.Listen) throws(Failure) -> (Int32, String?) {
        func failure(_ step: String) -> Failure {
            Failure(description: "web.listen = \"\(listen)\": \(step): \(String(cString: strerror(errno)))")
        }
        switch listen {
        case .socket(let path):
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
                throw Failure(description: "web.listen = \"\(path)\": a socket's path may have at most 107 bytes")
            }
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
            // A socket left by a run that stopped is replaced; anything else there is not.
            var status = stat()
            if lstat(path, &status) == 0 {
                guard status.st_mode & S_IFMT == S_IFSOCK else {
                    throw Failure(description: "web.listen = \"\(path)\": something other than a socket is there")
                }
                unlink(path)
            }
            let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw failure("socket") }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            // The owner and its group (a reverse proxy's) may connect; nobody else.
            guard bound == 0, chmod(path, 0o660) == 0, Glibc.listen(fd, 128) == 0 else {
                let error = failure("bind")
                Glibc.close(fd)
                throw error
            }
            return (fd, path)
        case .tcp(let host, let port):
            let name = host == "localhost" ? "127.0.0.1" : host
            var v4 = sockaddr_in(), v6 = sockaddr_in6()
            let family: Int32
            if inet_pton(AF_INET, name, &v4.sin_addr) == 1 {
                family = AF_INET
                v4.sin_family = sa_family_t(AF_INET)
                v4.sin_port = UInt16(port).bigEndian
            } else if inet_pton(AF_INET6, name, &v6.sin6_addr) == 1 {
                family = AF_INET6
                v6.sin6_family = sa_family_t(AF_INET6)
                v6.sin6_port = UInt16(port).bigEndian
            } else {
                throw Failure(description: "web.listen = \"\(listen)\": \(host) is not an IP address (write 127.0.0.1 or ::1)")
            }
            let fd = Glibc.socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw failure("socket") }
            var on: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            let bound = family == AF_INET
                ? withUnsafePointer(to: &v4) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
                : withUnsafePointer(to: &v6) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
            guard bound == 0, Glibc.listen(fd, 128) == 0 else {
                let error = failure("bind")
                Glibc.close(fd)
                throw error
            }
            return (fd, nil)
        }
    }
}

// MARK: streams

/// The streams being read, so that a stop can end each (its reader is blocked in `next`).
final class OpenStreams: @unchecked Sendable {
    private let lock = NSLock()
    private var open: [ObjectIdentifier: any HTTPStream] = [:]
    private var stopped = false

    func add(_ stream: any HTTPStream) {
        lock.lock()
        let late = stopped
        if !late { open[ObjectIdentifier(stream)] = stream }
        lock.unlock()
        if late { stream.close() }
    }

    func remove(_ stream: any HTTPStream) {
        lock.lock()
        open[ObjectIdentifier(stream)] = nil
        lock.unlock()
    }

    func closeAll() {
        lock.lock()
        stopped = true
        let all = Array(open.values)
        lock.unlock()
        for stream in all { stream.close() }
    }
}

/// One stream being sent: bytes the stream gave that did not fit MHD's buffer wait here.
final class StreamReader {
    let stream: any HTTPStream
    let registry: OpenStreams
    var waiting: [UInt8] = []

    init(_ stream: any HTTPStream, registry: OpenStreams) {
        self.stream = stream
        self.registry = registry
        registry.add(stream)
    }

    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        if waiting.isEmpty {
            guard let next = stream.next() else { return -1 }
            waiting = next
        }
        let count = min(max, waiting.count)
        waiting.withUnsafeBytes { bytes in
            UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress!, byteCount: count)
        }
        waiting.removeFirst(count)
        return count
    }

    deinit {
        registry.remove(stream)
        stream.close()
    }
}

// The C callbacks: each finds its Swift object through the pointer MHD hands back.

private let accessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, _, uploadData, uploadSize, state in
    guard let context, let connection, let url, let method, let uploadSize, let state else { return .NO }
    let server = Unmanaged<HTTPListener>.fromOpaque(context).takeUnretainedValue()
    return server.handle(connection, url, method, uploadData, uploadSize, state)
}

private let requestCompleted: MHD_RequestCompletedCallback = { context, _, state, _ in
    guard let context else { return }
    Unmanaged<HTTPListener>.fromOpaque(context).takeUnretainedValue().completed(state)
}

/// One header, query argument or cookie into the request being parsed (the context). A value with
/// a NUL inside (`%00` decoded), or none at all (`?token`), is left out; the first of a name is kept.
private let collectValue: MHD_KeyValueIteratorN = { context, kind, key, keySize, value, valueSize in
    guard let context, let key, let value else { return .YES }
    let valueBytes = UnsafeRawBufferPointer(start: value, count: valueSize)
    guard !valueBytes.contains(0) else { return .YES }
    let name = String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self)
    let text = String(decoding: valueBytes, as: UTF8.self)
    let request = context.assumingMemoryBound(to: HTTPRequest.self)
    switch kind {
    case .HEADER_KIND: request.pointee.setHeader(name, text)
    case .GET_ARGUMENT_KIND: if request.pointee.queryArguments[name] == nil { request.pointee.queryArguments[name] = text }
    case .COOKIE_KIND: if request.pointee.cookies[name] == nil { request.pointee.cookies[name] = text }
    default: break
    }
    return .YES
}

private let readStream: MHD_ContentReaderCallback = { context, _, buffer, max in
    guard let context, let buffer else { return -1 }
    // An empty chunk would make MHD ask again at once; the stream's `next` blocks until it has bytes.
    return Unmanaged<StreamReader>.fromOpaque(context).takeUnretainedValue().read(into: buffer, max: max)
}

private let freeStream: MHD_ContentReaderFreeCallback = { context in
    guard let context else { return }
    Unmanaged<StreamReader>.fromOpaque(context).release()
}
