import CQPDF
import TrapperCore

/// One qpdf handle (`qpdf_data`), owned by exactly one object: created in `init`, cleaned in
/// `deinit`, never shared across threads (the class is not Sendable, so Swift 6 keeps it in the
/// isolation domain that made it). qpdf keeps per-handle state (the last error, the warning list,
/// one dictionary-key iterator, the buffer behind every `char const*` it returns), so every C string
/// is copied out before the next call.
final class QPDFHandle {
    let data: qpdf_data
    /// qpdf's functions: `qpdf.api.qpdf_read(qpdf.data, ...)`.
    let api: trapper_qpdf

    /// A qpdf failure: its error code (qpdf_e_*) and its full text.
    struct Failure: Error {
        var code: qpdf_error_code_e
        var message: String
    }

    /// Throws, as `qpdf_e_internal`, when libqpdf.so.29 cannot be opened.
    init() throws(Failure) {
        do {
            api = try QPDF.functions()
        } catch {
            throw Failure(code: qpdf_e_internal, message: error.description)
        }
        guard let data = api.qpdf_init() else { throw Failure(code: qpdf_e_internal, message: "qpdf_init failed") }
        self.data = data
        // We check every call ourselves; without this, qpdf prints errors to stderr.
        api.qpdf_silence_errors(data)
        api.qpdf_set_suppress_warnings(data, QPDF_TRUE)
    }

    deinit {
        var handle: qpdf_data? = data
        api.qpdf_cleanup(&handle)
    }

    /// Throws the pending error, if the last call left one (and clears it).
    func check() throws(Failure) {
        guard api.qpdf_has_error(data) != QPDF_FALSE, let error = api.qpdf_get_error(data) else { return }
        throw failure(error)
    }

    private func failure(_ error: qpdf_error) -> Failure {
        let code = api.qpdf_get_error_code(data, error)
        let text = api.qpdf_get_error_full_text(data, error).map { String(cString: $0) } ?? "unknown qpdf error"
        return Failure(code: code, message: Self.oneLine(text))
    }

    /// Throws if a status-returning call set QPDF_ERRORS (or left an error).
    func check(_ status: QPDF_ERROR_CODE) throws(Failure) {
        if status & QPDF_ERRORS != 0 {
            if api.qpdf_has_error(data) != QPDF_FALSE, let error = api.qpdf_get_error(data) { throw failure(error) }
            throw Failure(code: qpdf_e_internal, message: "qpdf reported an error without details")
        }
        try check()
    }

    /// The warnings collected since the last call, oldest first (and clears them).
    func takeWarnings() -> [String] {
        var warnings: [String] = []
        while api.qpdf_more_warnings(data) != QPDF_FALSE {
            guard let warning = api.qpdf_next_warning(data) else { break }
            let text = api.qpdf_get_error_full_text(data, warning).map { String(cString: $0) } ?? "unknown qpdf warning"
            warnings.append(Self.oneLine(text))
        }
        return warnings
    }

    /// Reads `path`; `password` may be nil (qpdf then tries the empty user password).
    func read(_ path: String, password: String?) throws(Failure) {
        let status: QPDF_ERROR_CODE
        if let password {
            status = api.qpdf_read(data, path, password)
        } else {
            status = api.qpdf_read(data, path, nil)
        }
        try check(status)
    }

    var isEncrypted: Bool { api.qpdf_is_encrypted(data) != QPDF_FALSE }

    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters() }.joined(separator: " ")
    }
}

extension Substring {
    fileprivate func trimmingCharacters() -> Substring {
        var slice = self
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return slice
    }
}
