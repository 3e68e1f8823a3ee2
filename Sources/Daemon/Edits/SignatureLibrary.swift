import Foundation
import PDFAccess
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

    public init(folder: String) { self.folder = folder }

    public func load(_ name: String) throws -> SignatureArt {
        let candidates = Self.extensions.map { "\(folder)/\(name).\($0)" }
        guard let path = candidates.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw EditApplyError("no saved signature \"\(name)\" in \(folder) (\(available()))")
        }
        guard PathSafety.isInside(path, root: folder) else {
            throw EditApplyError("signature \(path) is a link or lies outside \(folder); signatures must be plain files there")
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw EditApplyError("signature \(path) is not a regular file")
        }
        if let reason = PathSafety.hardLinkReason(links: (attributes[.referenceCount] as? NSNumber)?.intValue ?? 1) {
            throw EditApplyError("signature \(path) is \(reason)")
        }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size <= Self.maximumBytes else {
            throw EditApplyError("signature \(path) is \(size) bytes, more than the limit of \(Self.maximumBytes)")
        }
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
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
