import Daemon
import Foundation
import Glibc
import PDFAccess
import System
import TrapperCore

/// The library as the workspace sees it: PDFs named by their path below the root, and nothing
/// else. A name that climbs out, is absolute, hidden (the library's own `.pdftrapper` state), not a
/// PDF, or leads out through a link is not there at all: the caller answers 404 and reads nothing.
struct LibraryFiles: Sendable {
    let root: String
    /// The root with its links resolved: what every resolved path must stay below.
    let realRoot: String

    /// The folders' listings, kept while they do not change.
    let folders = FolderListings()

    init(root: String) {
        self.root = root
        realRoot = Self.realPath(root) ?? root
    }

    /// The file `relative` names, links resolved, when it is a regular PDF below the root.
    func resolve(_ relative: String?) -> String? {
        guard let relative, !relative.isEmpty, relative.utf8.count < 4096, !relative.hasPrefix("/"),
              !relative.utf8.contains(0), relative.lowercased().hasSuffix(".pdf") else { return nil }
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && !$0.hasPrefix(".") }) else { return nil }
        // The file the name leads to must pass the same rules: a link to a hidden or non-PDF file is not there.
        guard let real = Self.realPath(root + "/" + relative),
              let resolved = FolderRoot.relative(real, to: realRoot), !resolved.isEmpty, resolved.lowercased().hasSuffix(".pdf"),
              resolved.split(separator: "/").allSatisfy({ !$0.hasPrefix(".") }),
              ConfinedFolders.isTarget(real, inLibrary: realRoot) else { return nil }
        var status = stat()
        guard stat(real, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return real
    }

    /// The name below the root that the workspace shows for a file of the library.
    func relative(_ path: String) -> String? {
        FolderRoot.relative(path, to: root) ?? FolderRoot.relative(Self.realPath(path) ?? path, to: realRoot)
    }

    /// A PDF of the library as its folder lists it: nothing read from the file itself.
    struct Listed {
        var relative: String
        var size: Int
        var modified: Date
        /// Device, inode, modification time and size (`fileIdentity`): a new state of the file is a new identity.
        var identity: String
    }

    /// Every PDF below the root (not in hidden folders, not through links), sorted by path.
    func documents() -> [Listed] {
        documentNames().compactMap(listed)
    }

    /// The PDF `relative` names as its folder has it now; nil once it is gone or not a plain file.
    func listed(_ relative: String) -> Listed? {
        var status = stat()
        guard lstat(root + "/" + relative, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return Listed(relative: relative, size: Int(status.st_size), modified: Date(timeIntervalSince1970: Double(status.st_mtim.tv_sec)),
                      identity: fileIdentity(status))
    }

    /// The path below the root of every PDF (not in hidden folders, not through links), sorted, from
    /// the folders' listings: a folder is read again only when it changed (`FolderListings`), so a
    /// library of 10,000 PDFs in 100 folders costs 100 stats, not 10,000.
    func documentNames() -> [String] {
        var found: [String] = []
        func walk(_ folder: String, _ prefix: String, depth: Int) {
            guard depth < 32, let entries = folders.entries(folder) else { return }
            for entry in entries {
                if entry.isFolder {
                    walk(folder + "/" + entry.name, prefix + entry.name + "/", depth: depth + 1)
                } else {
                    found.append(prefix + entry.name)
                }
            }
        }
        walk(root, "", depth: 0)
        return found
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// Each folder's PDFs and subfolders (not hidden, not links), sorted, kept by the folder's device,
/// inode and modification time: a name added, removed or renamed in a folder changes its time, so
/// an unchanged folder is not read again. A folder changed within the last 2 s is read every time:
/// on a file system with coarse times, a change in the same tick as the reading would not show.
final class FolderListings: @unchecked Sendable {
    struct Entry {
        var name: String
        var isFolder: Bool
    }

    private let kept = Locked<[String: (stamp: String, entries: [Entry])]>([:])

    func entries(_ folder: String) -> [Entry]? {
        var status = stat()
        guard stat(folder, &status) == 0 else { return nil }
        let stamp = "\(status.st_dev)-\(status.st_ino)-\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)"
        let settled = Double(status.st_mtim.tv_sec) < Date().timeIntervalSince1970 - 2
        if settled, let known = kept.withLock({ $0[folder] }), known.stamp == stamp { return known.entries }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return nil }
        var entries: [Entry] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            var entry = stat()
            guard lstat(folder + "/" + name, &entry) == 0 else { continue }
            switch entry.st_mode & S_IFMT {
            case S_IFDIR: entries.append(Entry(name: name, isFolder: true))
            case S_IFREG where name.lowercased().hasSuffix(".pdf"): entries.append(Entry(name: name, isFolder: false))
            default: continue
            }
        }
        kept.withLock { $0[folder] = settled ? (stamp, entries) : nil }
        return entries
    }
}

/// What the workspace shows of one document at one length: each page as shown, and its history.
/// Read once per (file, length) and kept while the file stays that long.
struct DocumentInfo: Sendable {
    struct Page: Sendable {
        var mediaBox: [Double]
        var cropBox: [Double]
        var rotation: Int
        /// The photo `find_page` cut the page from, when the file keeps it (`reframe`).
        var photo: KeptPhoto?
        var shown: ShownPage { ShownPage(mediaBox: mediaBox, cropBox: cropBox, rotation: rotation) }
    }

    var path: String
    /// Which file, and which state of it: a revision ending at the same byte after an undo is another.
    var identity: String
    var end: Int
    var pages: [Page]
    var history: [RevisionHistory.Entry]
    /// `pages` as the browser takes them, [{"width", "height", "rotate"}], written once.
    var pagesJSON: [UInt8]

    /// The document as the revision ending at `end` left it (the whole file when `end` is its length).
    static func read(_ path: String, identity: String, end: Int? = nil) throws -> DocumentInfo {
        let file = try PDFFileSource(path: path)
        let length = end ?? file.length
        let source: any PDFByteSource = length == file.length ? file : PDFPrefixSource(file, length: length)
        let editor = try PDFPageEditor(reader: PDFTailReader(source: source, decoder: FlateStreamDecoder()))
        let pages = try (0..<editor.pageCount).map { index in
            Page(mediaBox: try editor.mediaBox(ofPage: index), cropBox: try editor.cropBox(ofPage: index),
                 rotation: try editor.rotation(ofPage: index), photo: try editor.keptPhoto(ofPage: index))
        }
        let history = (try? RevisionHistory.read(source, decoder: FlateStreamDecoder())) ?? []
        let list: [[String: Any]] = pages.map { page in
            let shown = page.shown
            var entry: [String: Any] = ["width": WebJSON.rounded(shown.width), "height": WebJSON.rounded(shown.height),
                                        "rotate": page.rotation]
            if let photo = page.photo {
                var kept: [String: Any] = ["width": photo.width, "height": photo.height, "corners": photo.corners.map { [$0.x, $0.y] }]
                // No sheet found: the best candidate, where the crop dialog places the corners.
                if let suggested = photo.suggested { kept["suggested"] = suggested.map { [$0.x, $0.y] } }
                entry["photo"] = kept
            }
            return entry
        }
        let json = Array(try JSONSerialization.data(withJSONObject: list, options: [.sortedKeys]))
        return DocumentInfo(path: path, identity: identity, end: length, pages: pages, history: history, pagesJSON: json)
    }

    /// Its last revision, as the library list shows it.
    var last: [String: Any]? { history.last.map(Self.shown) }

    /// A revision as the library list shows it.
    static func shown(_ entry: RevisionHistory.Entry) -> [String: Any] {
        guard let record = entry.record else { return ["operation": "other program", "end": entry.end] }
        return ["operation": record.operation.rawValue, "date": WebJSON.date(record.date), "note": record.note ?? "",
                "end": entry.end]
    }
}

/// Keeps the latest `DocumentInfo` of each file, so that a 5,000-page document's tree is walked
/// once per revision, not once per request.
final class DocumentInfoCache: Sendable {
    private let kept = KeptValues<DocumentInfo>(count: 64)

    func info(_ path: String, end: Int? = nil) throws -> DocumentInfo {
        let identity = try Self.identity(path)
        let length = try end ?? PDFFileSource(path: path).length
        return try kept.value("\(path)\u{0}\(identity)\u{0}\(length)") {
            try DocumentInfo.read(path, identity: identity, end: length)
        }
    }

    static func identity(_ path: String) throws -> String {
        guard let identity = fileIdentity(path) else { throw Durable.Failure(step: "stat", path: path, code: errno) }
        return identity
    }
}

/// A file's device, inode, modification time to the nanosecond, and length: what tells one state
/// of it from another (a revision ending at the same byte after an undo, a token file replaced).
func fileIdentity(_ path: String) -> String? {
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    return fileIdentity(status)
}

func fileIdentity(_ status: stat) -> String {
    "\(status.st_dev)-\(status.st_ino)-\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)-\(status.st_size)"
}
