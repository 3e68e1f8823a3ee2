import CCurl
import System
import TrapperCore

/// Posts webhooks through libcurl, which is opened (and globally initialised) on the first post.
/// Each post has an easy handle of its own, so posts from several threads never share curl state.
public enum WebhookPoster {
    /// curl_global_init is not safe to race with other curl calls: a `static let` runs it once,
    /// before any handle exists.
    private static let curl: Result<trapper_curl, HTTPPostFailure> =
        SharedLibrary.open("libcurl.so.4", for: "webhook delivery") { trapper_curl_load($0, $1) }
            .mapError { HTTPPostFailure.library($0.description) }
            .flatMap { api in
                var api = api
                let code = trapper_curl_global_init(&api)
                guard code == CURLE_OK else {
                    return .failure(.library("webhook delivery could not start libcurl: \(message(api, code))"))
                }
                return .success(api)
            }

    /// Posts `request` and waits for the answer, at most its timeout.
    public static func post(_ request: HTTPPost) -> Result<HTTPAnswer, HTTPPostFailure> {
        curl.flatMap { api in
            withUnsafePointer(to: api) { post(request, $0) }
        }
    }

    private static func post(_ request: HTTPPost, _ api: UnsafePointer<trapper_curl>) -> Result<HTTPAnswer, HTTPPostFailure> {
        // An empty "Expect:" removes the header: curl would otherwise hold a large body back until
        // the receiver says 100 Continue, or a second has passed.
        var headers: UnsafeMutablePointer<curl_slist>?
        defer { api.pointee.curl_slist_free_all(headers) }
        for line in request.headers.map({ "\($0.0): \($0.1)" }) + ["Expect:"] {
            guard let longer = api.pointee.curl_slist_append(headers, line) else {
                return .failure(.transfer(code: Int(CURLE_OUT_OF_MEMORY.rawValue), reason: "curl_slist_append failed"))
            }
            headers = longer
        }
        let errors = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        defer { errors.deallocate() }
        errors.initialize(to: 0)
        // Made after the header list and the error buffer, so it is cleaned up before they are freed.
        guard let handle = api.pointee.curl_easy_init() else {
            return .failure(.transfer(code: Int(CURLE_OUT_OF_MEMORY.rawValue), reason: "curl_easy_init failed"))
        }
        defer { api.pointee.curl_easy_cleanup(handle) }
        let collector = AnswerCollector()
        // curl reads POSTFIELDS during perform without copying it; a NULL one would make it read
        // the body from stdin, so an empty body is posted from a one-byte array with size 0.
        let body = request.body.isEmpty ? [0] : request.body
        let code: CURLcode = body.withUnsafeBytes { bytes in
            withExtendedLifetime(collector) {
                let setLong = { trapper_curl_setopt_long(api, handle, $0, $1) }
                let setPointer = { trapper_curl_setopt_pointer(api, handle, $0, $1) }
                let settings = [
                    setPointer(CURLOPT_ERRORBUFFER, errors),
                    setPointer(CURLOPT_URL, request.url),
                    // A webhook URL from the config must not read file:// or talk to anything but HTTP.
                    setPointer(CURLOPT_PROTOCOLS_STR, "http,https"),
                    // A redirect is not delivery: its status comes back as the answer.
                    setLong(CURLOPT_FOLLOWLOCATION, 0),
                    setLong(CURLOPT_POST, 1),
                    setPointer(CURLOPT_POSTFIELDS, bytes.baseAddress),
                    trapper_curl_setopt_off(api, handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)),
                    setPointer(CURLOPT_HTTPHEADER, headers),
                    setPointer(CURLOPT_USERAGENT, "PDFTrapper"),
                    setLong(CURLOPT_TIMEOUT_MS, milliseconds(request.timeoutSeconds)),
                    setLong(CURLOPT_CONNECTTIMEOUT_MS, milliseconds(request.connectTimeoutSeconds)),
                    // Timeouts by alarm signals are not safe with several threads.
                    setLong(CURLOPT_NOSIGNAL, 1),
                    setLong(CURLOPT_SSL_VERIFYPEER, request.verifyTLS ? 1 : 0),
                    setLong(CURLOPT_SSL_VERIFYHOST, request.verifyTLS ? 2 : 0),
                    trapper_curl_setopt_callback(api, handle, CURLOPT_WRITEFUNCTION, AnswerCollector.write),
                    setPointer(CURLOPT_WRITEDATA, Unmanaged.passUnretained(collector).toOpaque()),
                ]
                if let refused = settings.first(where: { $0 != CURLE_OK }) { return refused }
                return api.pointee.curl_easy_perform(handle)
            }
        }
        guard code == CURLE_OK else {
            var reason = message(api.pointee, code)
            let detail = String(cString: errors)
            if !detail.isEmpty { reason += ": " + detail.split(separator: "\n").joined(separator: " ") }
            return .failure(.transfer(code: Int(code.rawValue), reason: reason))
        }
        var status = 0
        _ = trapper_curl_getinfo_long(api, handle, CURLINFO_RESPONSE_CODE, &status)
        return .success(HTTPAnswer(status: status, body: collector.body))
    }

    private static func message(_ api: trapper_curl, _ code: CURLcode) -> String {
        api.curl_easy_strerror(code).map { String(cString: $0) } ?? "curl error \(code.rawValue)"
    }

    /// curl's millisecond options take a long; 0 would mean no timeout, so the least is 1 ms.
    private static func milliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite else { return Int(Int32.max) }
        return max(1, Int(min(seconds * 1000, Double(Int32.max)).rounded()))
    }
}
