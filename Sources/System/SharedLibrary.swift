import Glibc

/// A C library opened with dlopen(3) the first time an adapter needs it, rather than linked: help,
/// status or a JPEG ingest never call tesseract, poppler or qpdf, and loading them all took 19 of
/// the 22 ms such a command ran. Each adapter keeps its library in a `static let` (Swift opens it
/// once, thread-safely, on first use) as a table of function pointers, which the shim's
/// `trapper_*_load` fills from the list of functions the adapter calls (Sources/CLinux/lazy.h).
/// The library stays open for the life of the process: the table points into it.
public enum SharedLibrary {
    /// Why a library cannot be used, in one line: "OCR needs libtesseract.so.5 (cannot open shared
    /// object file: No such file or directory)".
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// Opens `soname` and fills its table with `load`, which returns the name of the first
    /// function the library lacks (nil when it has them all). `purpose` starts the error.
    public static func open<Table>(
        _ soname: String, for purpose: String,
        _ load: (UnsafeMutableRawPointer, UnsafeMutablePointer<Table>) -> UnsafePointer<CChar>?
    ) -> Result<Table, Failure> {
        // RTLD_LOCAL: its symbols stay out of the global namespace, where other libraries could bind to them.
        guard let library = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            var reason = dlerror().map { String(cString: $0) } ?? "dlopen failed"
            // dlerror starts with the name again: "libx.so.1: cannot open shared object file: ...".
            if reason.hasPrefix(soname + ": ") { reason.removeFirst(soname.count + 2) }
            return .failure(Failure(description: "\(purpose) needs \(soname) (\(reason))"))
        }
        // Uninitialised until `load` has set every field: the fields are non-null, so the table is
        // read only once all are there.
        let table = UnsafeMutablePointer<Table>.allocate(capacity: 1)
        defer { table.deallocate() }
        if let missing = load(library, table) {
            dlclose(library)
            return .failure(Failure(description: "\(purpose) needs \(soname) with \(String(cString: missing)), which this one lacks"))
        }
        return .success(table.pointee)
    }
}
