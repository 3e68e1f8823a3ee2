import Daemon
import Foundation
import Glibc
import HTTPServer
import System
import TrapperCore

/// The saved signatures: listed and shown from the signatures folder, and a new one from the
/// signature pad saved there as pen strokes (`NAME.json`, which `signature` ops read).
extension Workspace {
    func signatureList() -> HTTPResponse {
        let folder = config.signatures.path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        var list: [[String: Any]] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            let ext = (name as NSString).pathExtension.lowercased()
            guard SignatureLibrary.extensions.contains(ext) else { continue }
            list.append(["name": (name as NSString).deletingPathExtension, "kind": ext == "png" ? "png" : "ink"])
        }
        return WebJSON.response(["signatures": list])
    }

    func signature(_ request: HTTPRequest) -> HTTPResponse {
        guard let name = request.query("name"), Self.isSignatureName(name) else { return HTTPResponse(status: 404) }
        let library = SignatureLibrary(folder: config.signatures.path)
        do {
            switch try library.load(name) {
            case .image:
                guard let data = library.root?.read(config.signatures.path + "/" + name + ".png") else { return HTTPResponse(status: 404) }
                return HTTPResponse(status: 200, headers: [("Content-Type", "image/png"), ("Cache-Control", "no-cache")],
                                    body: .bytes(Array(data)))
            case .ink(let strokes, let width, let color):
                // y down for the browser, as a signature pad records it.
                let top = strokes.flatMap { $0 }.map(\.y).max() ?? 0
                return WebJSON.response([
                    "strokes": strokes.map { $0.map { [WebJSON.rounded($0.x), WebJSON.rounded(top - $0.y)] } },
                    "width": width,
                    "color": String(format: "#%02x%02x%02x", Int(color.red * 255), Int(color.green * 255), Int(color.blue * 255)),
                ])
            }
        } catch {
            return WebJSON.error(404, "\(error)")
        }
    }

    /// A new signature from the pad: its strokes as drawn (pad pixels, y down) and pen width.
    func saveSignature(_ request: HTTPRequest) -> HTTPResponse {
        guard let body = WebJSON.object(request.body), let name = body["name"] as? String, Self.isSignatureName(name) else {
            return WebJSON.error(422, "a signature needs a name of letters, digits, - and _ (at most 64)")
        }
        guard let strokes = body["strokes"] as? [[[Double]]], !strokes.isEmpty, strokes.allSatisfy({ $0.allSatisfy { $0.count == 2 } }),
              strokes.reduce(0, { $0 + $1.count }) <= 100_000 else {
            return WebJSON.error(422, "a signature needs strokes: lists of [x, y] points")
        }
        let width = (body["width"] as? Double).map { min(max($0, 0.5), 50) } ?? 2.5
        let folder = config.signatures.path
        guard !SignatureLibrary.extensions.contains(where: { FileManager.default.fileExists(atPath: "\(folder)/\(name).\($0)") }) else {
            return WebJSON.error(409, "a signature named \(name) exists already")
        }
        let file: [String: Any] = ["origin": "top-left", "width": width, "strokes": strokes]
        do {
            let data = try JSONSerialization.data(withJSONObject: file, options: [.sortedKeys])
            // Parsed as a script's `signature` op will read it, before it is kept.
            _ = try SignatureInkParser.parse(Array(data), file: "\(name).json")
            try Durable.makeFolder(folder)
            guard let root = SignatureLibrary(folder: folder).root else { return WebJSON.error(503, "the signatures folder cannot be opened") }
            // Written whole under a hidden name, then given its own without replacing: of two pads
            // saving one name at once the second is told, and no reader sees the file half-written.
            do { try root.create("\(folder)/\(name).json", with: data) } catch {
                if error.code == EEXIST { return WebJSON.error(409, "a signature named \(name) exists already") }
                return WebJSON.error(503, "the signature could not be written: \(error)")
            }
        } catch {
            return WebJSON.error(422, "\(error)")
        }
        return WebJSON.response(["name": name, "kind": "ink"])
    }

    static func isSignatureName(_ name: String) -> Bool {
        (1...64).contains(name.count) && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }
}
