import Daemon
import Foundation
import Hashing
import TrapperCore

/// Save: what the browser drew becomes ONE edit script, applied exactly as a script dropped into
/// the edits folder is (the same worker, parser, checks, single revision and report in done/).
/// The script carries `base_end`, so a document that moved on meanwhile (a scan landed, another tab
/// saved) is refused, never merged. Markup comes first, measured on the pages the browser showed;
/// page operations follow in the order they were made.
struct WorkspaceSave {
    let config: Config
    let edits: EditWorkers
    /// The workspace's store: where the script is written (the configured folders only).
    let store: TargetStore

    struct Refusal: Error {
        var status: Int
        var message: String
        var problems: [String] = []
    }

    /// The ops a save may hold, and the browser's keys each takes besides `op` and `page`.
    static let markupOps: Set<String> = ["ink", "highlight", "underline", "strikeout", "rect", "oval", "line", "arrow",
                                         "textbox", "note", "polygon", "signature", "erase", "change", "loupe"]
    static let pageOps: Set<String> = ["rotate", "delete", "move", "insert-blank"]

    /// The script for `edits` on the document `info` (whose path below the library is `relative`).
    static func script(relative: String, baseEnd: Int, edits: [[String: Any]], info: DocumentInfo) throws(Refusal) -> [String: Any] {
        var markup: [[String: Any]] = [], pages: [[String: Any]] = []
        for (index, edit) in edits.enumerated() {
            guard let op = edit["op"] as? String else { throw Refusal(status: 422, message: "edit \(index + 1) has no op") }
            if pageOps.contains(op) {
                pages.append(edit)
                continue
            }
            guard markupOps.contains(op) || op == "reframe" else {
                throw Refusal(status: 422, message: "edit \(index + 1): unknown op \"\(op)\"")
            }
            guard let page = edit["page"] as? Int, info.pages.indices.contains(page - 1) else {
                throw Refusal(status: 422, message: "edit \(index + 1) (\(op)): the document has pages 1 to \(info.pages.count)")
            }
            // A reframe's corners are fractions of the photo, not points of the page: they go as they came.
            markup.append(op == "reframe" ? edit : try converted(edit, op: op, page: info.pages[page - 1].shown, index: index + 1))
        }
        return ["target": relative, "base_end": baseEnd, "units": "pt", "origin": "bottom-left", "edit": markup + pages]
    }

    /// One markup edit with its points and boxes in the script's space; every other value as the
    /// browser sent it, for the script's parser to check.
    private static func converted(_ edit: [String: Any], op: String, page: ShownPage, index: Int) throws(Refusal) -> [String: Any] {
        func refuse(_ key: String) -> Refusal {
            Refusal(status: 422, message: "edit \(index) (\(op)): \(key) must be numbers in the page's points")
        }
        func point(_ value: Any?, _ key: String) throws(Refusal) -> [Double] {
            guard let numbers = value as? [Any], numbers.count == 2, let x = number(numbers[0]), let y = number(numbers[1]) else {
                throw refuse(key)
            }
            let p = page.script(Point(x, y))
            return [tidy(p.x), tidy(p.y)]
        }
        func box(_ value: Any?, _ key: String) throws(Refusal) -> [Double] {
            guard let numbers = value as? [Any], numbers.count == 4 else { throw refuse(key) }
            let values = numbers.compactMap(number)
            guard values.count == 4 else { throw refuse(key) }
            return page.script(Rect(x0: values[0], y0: values[1], x1: values[2], y1: values[3])).numbers.map(tidy)
        }
        var out = edit
        switch op {
        case "ink":
            guard let strokes = edit["strokes"] as? [Any] else { throw refuse("strokes") }
            var converted: [String] = []
            for stroke in strokes {
                guard let text = scriptStroke(stroke, page: page) else { throw refuse("strokes") }
                converted.append(text)
            }
            out["strokes"] = converted
        case "highlight", "underline", "strikeout":
            guard let rects = edit["rects"] as? [Any] else { throw refuse("rects") }
            var converted: [[Double]] = []
            for rect in rects { converted.append(try box(rect, "rects")) }
            out["rects"] = converted
        case "rect", "oval", "textbox", "signature":
            out["box"] = try box(edit["box"], "box")
        case "line", "arrow":
            out["from"] = try point(edit["from"], "from")
            out["to"] = try point(edit["to"], "to")
        case "note", "loupe":
            out["at"] = try point(edit["at"], "at")
        case "polygon":
            guard let corners = edit["points"] else { throw refuse("points") }
            guard let text = scriptStroke(corners, page: page) else { throw refuse("points") }
            out["points"] = text
        case "change":
            if edit["box"] != nil { out["box"] = try box(edit["box"], "box") }
            if edit["move"] != nil {
                // A distance, not a place: the difference of two points, so y turns with the page.
                let (by, zero) = (try point(edit["move"], "move"), try point([0, 0], "move"))
                out["move"] = [tidy(by[0] - zero[0]), tidy(by[1] - zero[1])]
            }
        case "erase":
            out["pages"] = out.removeValue(forKey: "page")
            if let region = edit["region"] { out["region"] = try box(region, "region") }
        default:
            break
        }
        return out
    }

    /// An ink stroke as the script gets it: one string "x y x y …" (PointText) in the script's
    /// space, however the browser sent it (the workspace sends such strings; [[x, y], …] is read
    /// too). A million points as small arrays would cost the script's reader a node each.
    private static func scriptStroke(_ stroke: Any, page: ShownPage) -> String? {
        var numbers: [Double] = []
        if let text = stroke as? String {
            guard case .success(let read) = PointText.numbers(text), read.count % 2 == 0 else { return nil }
            numbers = read
        } else if let points = stroke as? [Any] {
            for value in points {
                guard let pair = value as? [Any], pair.count == 2, let x = number(pair[0]), let y = number(pair[1]) else { return nil }
                numbers += [x, y]
            }
        } else {
            return nil
        }
        var text: [UInt8] = []
        text.reserveCapacity(numbers.count * 8)
        for index in stride(from: 0, to: numbers.count, by: 2) {
            guard numbers[index].isFinite, numbers[index + 1].isFinite else { return nil }
            let point = page.script(Point(numbers[index], numbers[index + 1]))
            if index > 0 { text.append(0x20) }
            PointText.write(point.x, to: &text)
            text.append(0x20)
            PointText.write(point.y, to: &text)
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func number(_ value: Any) -> Double? {
        guard let number = value as? NSNumber else { return nil }
        let double = number.doubleValue
        return double.isFinite ? double : nil
    }

    private static func tidy(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    // MARK: applying

    /// Writes the script among this daemon's claimed edit scripts (`web/NAME.json`, which the
    /// edits folder's watch never takes) and applies it through the edit workers; returns what
    /// the worker reported.
    func apply(_ script: [String: Any], label: String) throws(Refusal) -> EditApply.Applied {
        let job = EditJob(config: config, store: store)
        let stamp = Self.stamp.string(from: Date())
        var random = SystemRandomNumberGenerator()
        // Six hex digits always: every save's name (and the history note that quotes it) has one length.
        let name = "\(label)-\(stamp)-\(String(format: "%06x", UInt32(random.next() & 0xFFFFFF))).json"
        let relativePath = "web/" + name
        let path = job.claims + "/" + relativePath
        // Not pretty-printed: a drawing of a million points would be four times the bytes, a line a number.
        guard let data = try? JSONSerialization.data(withJSONObject: script, options: [.sortedKeys]) else {
            throw Refusal(status: 422, message: "the edits cannot be written as a script")
        }
        do {
            try store.folders.makeFolder(job.claims + "/web")
            try store.folders.replace(path, with: data)
        } catch {
            throw Refusal(status: 503, message: "the script cannot be written: \(error)")
        }
        let target = (script["target"] as? String).map { EditScriptParser.target($0, libraryRoot: config.library.root) }
        guard let finished = edits.applyAndWait(path: path, relativePath: relativePath, config: config, target: target) else {
            throw Refusal(status: 503, message: "the daemon is stopping; the save is applied at its next start")
        }
        if let applied = finished.outcome.applied { return applied }
        let problems = finished.outcome.problems
        let conflict = problems.contains { $0.contains("has changed since") || $0.contains("changed since the undo") }
        throw Refusal(status: conflict ? 409 : 422,
                      message: conflict ? "The document changed since you opened it (a scan landed, or another tab saved). "
                          + "Reload to see it; nothing was saved." : (problems.first ?? "the edits were refused"),
                      problems: problems)
    }

    private static let stamp: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        return formatter
    }()
}
