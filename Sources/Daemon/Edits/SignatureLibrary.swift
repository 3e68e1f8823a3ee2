import Foundation
import PDFAccess
import System
import TrapperCore

/// The saved signatures a script's `signature` op names: `NAME.png` (a picture; its transparency
/// is kept) or `NAME.toml` / `NAME.json` (pen strokes, see `SignatureInkParser`), in the
/// signatures folder. A name can only be a plain name (the parser sees to that), and the file
/// must be a regular file inside the folder: never a link out of it.
public struct SignatureLibrary {
    public let folder: String
    public static let extensions = ["png", "toml", "json"]
    /// A signature is a small file; anything larger is refused unread.
    public static let maximumBytes = 8 << 20

    /// The signatures folder is read beneath its own descriptor: a link in it leads nowhere.
    public let root: FolderRoot?

    public init(folder: String) {
        self.folder = folder
        self.root = try? FolderRoot(folder)
    }

    public func load(_ name: String) throws -> SignatureArt {
        guard let root else { throw EditApplyError("the signatures folder \(folder) cannot be opened") }
        let candidates = Self.extensions.map { "\(folder)/\(name).\($0)" }
        guard let path = candidates.first(where: { root.exists($0) }), let status = root.status(path) else {
            throw EditApplyError("no saved signature \"\(name)\" in \(folder) (\(available()))")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw EditApplyError("signature \(path) is a link or not a regular file; signatures must be plain files there")
        }
        if let reason = InputFiles.hardLinkReason(links: Int(status.st_nlink)) {
            throw EditApplyError("signature \(path) is \(reason)")
        }
        guard status.st_size <= Self.maximumBytes else {
            throw EditApplyError("signature \(path) is \(status.st_size) bytes, more than the limit of \(Self.maximumBytes)")
        }
        guard let data = root.read(path) else { throw EditApplyError("signature \(path) cannot be read") }
        let bytes = Array(data)
        if path.hasSuffix(".png") {
            do {
                let header = try PNGFile(bytes)
                let page = try PNGFile.page(bytes, flate: ZlibFlate())
                return .image(page.image, softMask: page.softMask, pixelWidth: header.width, pixelHeight: header.height)
            } catch {
                throw EditApplyError("signature \(path): \(error)")
            }
        }
        let ink = try SignatureInkParser.parse(bytes, file: path)
        return .ink(strokes: ink.strokes, width: ink.width, color: ink.color)
    }

    /// What the folder does hold, for the message when a name is not there.
    func available() -> String {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { name in Self.extensions.contains { name.hasSuffix(".\($0)") } && !name.hasPrefix(".") }
            .map { ($0 as NSString).deletingPathExtension }
        return names.isEmpty ? "it has none" : "it has " + Set(names).sorted().joined(separator: ", ")
    }
}
