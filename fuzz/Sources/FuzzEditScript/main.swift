import CFuzzerDriver
import Foundation
import TrapperCore

/// The edit-script parser on arbitrary bytes, as TOML or as JSON (the first byte's low bit chooses;
/// the rest is the script): it may throw `EditScriptError`, never crash. A script that passes has its
/// page selections resolved against a few page counts and its extract templates rendered, as
/// applying it would.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEditScript(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let file = data[0] & 1 == 0 ? "x.toml" : "x.json"
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    guard let script = try? EditScriptParser.parse(bytes, file: file, libraryRoot: "/lib") else { return 0 }
    for edit in script.edits {
        switch edit.operation {
        case .rotate(let pages, _), .delete(let pages), .move(let pages, _), .duplicate(let pages),
            .crop(let pages, _):
            resolve(pages)
        case .extract(let pages, let into):
            resolve(pages)
            _ = into.render(Fixtures.values)
        case .erase(let filter):
            resolve(filter.pages)
        case .reframe(_, let corners):
            // What the parser promises the editor: four corners on the photo, a convex shape.
            precondition(corners.count == 4 && corners.allSatisfy { (0...1).contains($0.x) && (0...1).contains($0.y) }
                         && SheetGeometry.quadrilateral(corners) != nil)
        case .change(let change):
            // What the parser promises: an id, and something to change.
            precondition(!change.id.isEmpty && (!change.isEmpty || change.copy) && !(change.box != nil && change.move != nil))
        case .loupe(let loupe):
            precondition((5...500).contains(loupe.radius) && (1.25...8).contains(loupe.zoom))
        case .insertBlank, .metadata, .bookmark, .undo, .redo, .markup, .signature:
            break
        }
    }
    return 0
}

func resolve(_ pages: PageSelection) {
    for count in [0, 1, 7, 1000] { _ = try? pages.resolve(pageCount: count) }
}

/// Fixed, so that a crash replays the same way.
enum Fixtures {
    static let values = TemplateValues(date: Date(timeIntervalSince1970: 1_700_000_000),
                                       timeZone: TimeZone(identifier: "UTC")!, relativePath: "edits/x.toml")
}

fuzz_run_driver(CommandLine.argc, CommandLine.unsafeArgv, fuzzEditScript)
