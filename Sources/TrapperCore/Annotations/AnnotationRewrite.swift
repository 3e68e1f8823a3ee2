import Foundation

/// `op = "change"`: one annotation already on a page, drawn again after a change. Its geometry
/// is read back from its own keys (/InkList, /L, /QuadPoints, /Rect), moved and scaled from its
/// rectangle as listed into the new one, and drawn by the same `AnnotationBuilder` that drew it
/// (or would have). Every key the annotation had stays, /NM, /T, /CreationDate, /Popup and any
/// other program's own keys included; only those the drawing sets are replaced. A stamp (a
/// signature, another program's picture) is not drawn again: its appearance is kept as it is and
/// drawn by a new one, moved, scaled and turned.
public enum AnnotationRewrite {
    /// The appearance a stamp is drawn with now: the stream stored in the file (its object, box
    /// and matrix), or one this revision made and has not written yet.
    public enum StampAppearance {
        case stored(PDFReference, bbox: Rect, matrix: [Double])
        case pending
    }

    /// The annotation `old` (its values resolved through `resolve`) as `change` leaves it: the
    /// dictionary to write (without /AP and /P, as a draft) and its new appearance. `id` is
    /// the /NM it gets: its own, or a new one for a copy.
    public static func rewrite(_ old: PDFDictionary, _ change: AnnotationChange, frame: PageFrame, date: Date, id: String,
                               stamp: StampAppearance?, loupePage: PDFStream? = nil,
                               resolve: @escaping (PDFObject) throws -> PDFObject) throws -> AnnotationDraft {
        let read = Reader(dictionary: old, resolve: resolve)
        let subtype = read.name("Subtype") ?? "?"
        guard let userRect = read.numbers("Rect").flatMap(Rect.init) else {
            throw MarkupError("annotation \(id) has no /Rect to change")
        }
        if change.rotate != nil, subtype != "Stamp" {
            throw MarkupError("only a stamp or signature turns; annotation \(id) is \(describe(subtype))")
        }
        let before = frame.toShown(userRect)
        let after = target(before, change, frame: frame)
        try AnnotationBuilder.inside([after], frame, what: "the changed annotation")
        func place(_ point: Point) -> Point {
            let sx = before.width > 0 ? after.width / before.width : 1
            let sy = before.height > 0 ? after.height / before.height : 1
            return Point(after.x0 + (point.x - before.x0) * sx, after.y0 + (point.y - before.y0) * sy)
        }
        func shown(_ numbers: [Double]) -> [Point] {
            stride(from: 0, to: numbers.count - 1, by: 2).map { place(frame.toShown(Point(numbers[$0], numbers[$0 + 1]))) }
        }

        let opacity = change.opacity ?? read.number("CA") ?? 1
        let color = change.color ?? read.color("C")
        let width = change.width ?? read.borderWidth() ?? 1
        let style = Markup(page: change.page, shape: .note(at: ScriptPoint(0, 0)), color: color, opacity: opacity,
                           author: nil, contents: nil)
        var draft: AnnotationDraft
        switch subtype {
        case "Ink":
            let strokes = (read.array("InkList") ?? []).compactMap { item in (try? resolve(item)).flatMap(Reader.numbers) }
                .map(shown).filter { !$0.isEmpty }
            guard !strokes.isEmpty else { throw MarkupError("ink annotation \(id) has no strokes (/InkList)") }
            draft = AnnotationBuilder.ink(strokes, width: width, style, frame, id, date)
        case "Square", "Circle":
            var shape = style
            shape.color = change.color ?? read.color("C")
            let fill = read.color("IC")
            guard shape.color != nil || fill != nil else { throw MarkupError("annotation \(id) has neither an outline nor a fill") }
            draft = AnnotationBuilder.shape(subtype, after, fill: fill, width: width, shape, frame, id, date)
        case "Line":
            let ends = shown(read.numbers("L") ?? [])
            guard ends.count == 2 else { throw MarkupError("line annotation \(id) has no ends (/L)") }
            let arrow = (read.array("LE") ?? []).contains { (try? resolve($0))?.nameValue?.string.contains("Arrow") == true }
            draft = AnnotationBuilder.line(ends[0], ends[1], arrow: arrow, width: width, style, frame, id, date)
        case "Polygon":
            let corners = shown(read.numbers("Vertices") ?? [])
            guard corners.count >= 3 else { throw MarkupError("polygon \(id) has fewer than three corners (/Vertices)") }
            var outline = style
            outline.color = change.color ?? read.color("C")
            let fill = read.color("IC")
            guard outline.color != nil || fill != nil else { throw MarkupError("annotation \(id) has neither an outline nor a fill") }
            draft = AnnotationBuilder.polygon(corners, fill: fill, width: width, outline, frame, id, date)
        case "FreeText":
            let text = change.text ?? read.text("Contents") ?? ""
            guard !text.allSatisfy({ $0.isWhitespace }) else { throw MarkupError("text box \(id) has no text") }
            let appearance = read.textAppearance()
            let size = change.size ?? appearance.size ?? 12
            var written = style
            written.color = change.color ?? appearance.color ?? read.color("C") ?? .black
            written.contents = text
            draft = try AnnotationBuilder.textbox(fitted(after, text: text, size: size, frame: frame, keepBox: change.box != nil),
                                                  text, size: size, written, frame, id, date)
        case "Text":
            let icon = Rect(x0: after.x0, y0: after.y1 - AnnotationBuilder.noteSize, x1: after.x0 + AnnotationBuilder.noteSize,
                            y1: after.y1)
            try AnnotationBuilder.inside([icon], frame, what: "the note's icon")
            draft = AnnotationBuilder.note(icon, style, frame, id, date)
        case "Highlight", "Underline", "StrikeOut", "Squiggly":
            let quads = read.numbers("QuadPoints") ?? []
            let rects = stride(from: 0, to: quads.count - 7, by: 8).compactMap { start in
                Rect.bounding(shown(Array(quads[start..<start + 8])))
            }
            guard !rects.isEmpty else { throw MarkupError("annotation \(id) marks no text (/QuadPoints)") }
            let kind: TextMarkupKind = switch subtype {
            case "Highlight": .highlight
            case "Underline": .underline
            case "StrikeOut": .strikeout
            default: .squiggly
            }
            draft = AnnotationBuilder.textMarkup(kind, rects, style, frame, id, date)
        case "Stamp" where read.name("Name") == "Loupe" && loupePage != nil && change.rotate == nil:
            // A loupe moved or resized shows the page where it now is: drawn again, not carried.
            let zoom = read.text("Contents").flatMap { Double($0.dropFirst(AnnotationBuilder.loupePrefix.count)) } ?? 2
            draft = AnnotationBuilder.loupe(centre: Point((after.x0 + after.x1) / 2, (after.y0 + after.y1) / 2),
                                            radius: min(after.width, after.height) / 2, zoom: zoom, author: nil, page: loupePage!,
                                            frame: frame, date: date, id: id)
        case "Stamp":
            if change.color != nil || change.width != nil || change.text != nil || change.size != nil {
                throw MarkupError("a stamp or signature keeps its own colours and has no line width or text; "
                                  + "annotation \(id) can be moved, resized, turned and made more transparent")
            }
            guard case .stored(let reference, let bbox, let matrix)? = stamp else {
                throw MarkupError("stamp \(id) is placed or changed already in this script; give its box and rotate in one change")
            }
            draft = turned(reference, bbox: bbox, matrix: matrix, from: userRect, to: frame.toUser(after),
                           degrees: change.rotate ?? 0, opacity: change.opacity, id: id, date: date)
        default:
            throw MarkupError("annotation \(id) is \(describe(subtype)), which PDFTrapper does not redraw")
        }

        // Every key the annotation had stays, unless the drawing sets it anew or no longer means it.
        var dictionary = old
        for key in ["AP", "AS", "RD", "RC", "DS", "P"] { dictionary[PDFName(key)] = nil }
        let kept: Set<PDFName> = ["NM", "T", "CreationDate", "F", "Contents", "Name", "Open"]
        for (key, value) in draft.dictionary where !kept.contains(key) { dictionary[key] = value }
        if let text = change.text { dictionary["Contents"] = .string(PDFPageEditor.textString(text)) }
        if change.opacity == 1 { dictionary["CA"] = nil }
        // One without an /NM keeps its place in /Annots, and so its id; a copy gets an /NM of its own.
        if change.copy || old["NM"] != nil { dictionary["NM"] = .string(PDFString(id)) }
        dictionary["M"] = .string(PDFString(RevisionRecord.pdfDate(date)))
        if change.copy {
            dictionary["CreationDate"] = .string(PDFString(RevisionRecord.pdfDate(date)))
            // The original's popup window and replies stay the original's.
            for key in ["Popup", "IRT", "RT"] { dictionary[PDFName(key)] = nil }
        }
        draft.dictionary = dictionary
        return draft
    }

    /// The rectangle (shown space) the annotation goes into: the box given, or its own moved.
    static func target(_ before: Rect, _ change: AnnotationChange, frame: PageFrame) -> Rect {
        if let box = change.box { return frame.shown(box) }
        if let move = change.move {
            let zero = frame.shown(ScriptPoint(0, 0)), by = frame.shown(move)
            let (dx, dy) = (by.x - zero.x, by.y - zero.y)
            return Rect(x0: before.x0 + dx, y0: before.y0 + dy, x1: before.x1 + dx, y1: before.y1 + dy)
        }
        return before
    }

    /// A text box's rectangle tall enough for its words: new words or a larger size grow it
    /// downwards (its top stays where it is) unless the change gave the box itself.
    static func fitted(_ box: Rect, text: String, size: Double, frame: PageFrame, keepBox: Bool) -> Rect {
        guard !keepBox else { return box }
        let lines = HelveticaText.wrap(text, size: size, width: box.width - 4).count
        let needed = 4 + size + Double(max(0, lines - 1)) * size * 1.2 + 0.5
        guard needed > box.height else { return box }
        return Rect(x0: box.x0, y0: max(0, box.y1 - needed), x1: box.x1, y1: box.y1)
    }

    /// A stamp's new appearance: a form that draws the stored one, fitted from its old rectangle
    /// to its new one (user space) as a viewer fits an appearance to /Rect (§12.5.5), then turned
    /// `degrees` clockwise about the new rectangle's centre.
    static func turned(_ reference: PDFReference, bbox: Rect, matrix: [Double], from old: Rect, to new: Rect, degrees: Double,
                       opacity: Double?, id: String, date: Date) -> AnnotationDraft {
        // Where the stored form lands by its own matrix, fitted onto /Rect; then onto the new rectangle.
        let corners = [Point(bbox.x0, bbox.y0), Point(bbox.x1, bbox.y0), Point(bbox.x0, bbox.y1), Point(bbox.x1, bbox.y1)]
        let landed = Rect.bounding(corners.map { apply(matrix, $0) })!
        let angle = -degrees * .pi / 180
        let (cx, cy) = ((new.x0 + new.x1) / 2, (new.y0 + new.y1) / 2)
        let turn = [cos(angle), sin(angle), -sin(angle), cos(angle),
                    cx - cos(angle) * cx + sin(angle) * cy, cy - sin(angle) * cx - cos(angle) * cy]
        // Drawn with Do, the stored form's own /Matrix applies first: this is all that follows it.
        let transform = multiply(multiply(fit(landed, old), fit(old, new)), turn)
        let newCorners = [Point(new.x0, new.y0), Point(new.x1, new.y0), Point(new.x0, new.y1), Point(new.x1, new.y1)]
        let bounds = Rect.bounding(newCorners.map { apply(turn, $0) })!
        var content = ContentStream()
        content.raw("q")
        if let opacity, opacity < 1 { content.raw("/GS0 gs") }
        content.add(transform, "cm")
        content.raw("/PTStamp Do")
        content.raw("Q")
        var resources = AnnotationCommon.resources(opacity: opacity ?? 1)
        resources["XObject"] = .dictionary(["PTStamp": .reference(reference)])
        let form = AppearanceForm(bbox: bounds, matrix: [1, 0, 0, 1, 0, 0], content: content.bytes, resources: resources)
        var dictionary: PDFDictionary = ["Rect": .array(bounds.numbers.map { PDFPageTree.number(AnnotationCommon.round($0)) })]
        if let opacity { dictionary["CA"] = PDFPageTree.number(opacity) }
        return AnnotationDraft(dictionary: dictionary, appearance: form)
    }

    // MARK: Matrices, as PDF writes them: [a b c d e f], a point (x, y) → (a·x + c·y + e, b·x + d·y + f)

    static func apply(_ m: [Double], _ p: Point) -> Point {
        Point(m[0] * p.x + m[2] * p.y + m[4], m[1] * p.x + m[3] * p.y + m[5])
    }

    /// `first`, then `then`.
    static func multiply(_ first: [Double], _ then: [Double]) -> [Double] {
        let (a, b) = (first, then)
        return [a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3],
                a[4] * b[0] + a[5] * b[2] + b[4], a[4] * b[1] + a[5] * b[3] + b[5]]
    }

    /// Scales and moves `from` onto `to`.
    static func fit(_ from: Rect, _ to: Rect) -> [Double] {
        let sx = from.width > 0 ? to.width / from.width : 1, sy = from.height > 0 ? to.height / from.height : 1
        return [sx, 0, 0, sy, to.x0 - from.x0 * sx, to.y0 - from.y0 * sy]
    }

    static func describe(_ subtype: String) -> String {
        let named = AnnotationKinds.subtypes.first { $0.value == subtype }?.key
        return named.map { "a \($0) (/\(subtype))" } ?? "a /\(subtype) annotation"
    }

    /// Reads an annotation's values, each resolved where it is indirect.
    struct Reader {
        let dictionary: PDFDictionary
        let resolve: (PDFObject) throws -> PDFObject

        func value(_ key: String) -> PDFObject? { dictionary[PDFName(key)].flatMap { try? resolve($0) } }
        func name(_ key: String) -> String? { value(key)?.nameValue?.string }
        func number(_ key: String) -> Double? { value(key)?.numberValue }
        func array(_ key: String) -> [PDFObject]? { value(key)?.arrayValue }
        func numbers(_ key: String) -> [Double]? { value(key).flatMap(Self.numbers) }
        func text(_ key: String) -> String? { value(key)?.stringValue.map(PDFPageEditor.text) }

        static func numbers(_ object: PDFObject) -> [Double]? {
            guard let items = object.arrayValue else { return nil }
            let values = items.compactMap(\.numberValue)
            return values.count == items.count ? values : nil
        }

        /// /C and /IC: gray, RGB or CMYK; nil when absent or empty (no colour).
        func color(_ key: String) -> RGBColor? {
            guard let values = numbers(key) else { return nil }
            switch values.count {
            case 1: return RGBColor(values[0], values[0], values[0])
            case 3: return RGBColor(values[0], values[1], values[2])
            case 4: return RGBColor((1 - values[0]) * (1 - values[3]), (1 - values[1]) * (1 - values[3]), (1 - values[2]) * (1 - values[3]))
            default: return nil
            }
        }

        /// /BS /W, else /Border's third number.
        func borderWidth() -> Double? {
            if let style = value("BS")?.dictionaryValue, let width = style["W"].flatMap({ try? resolve($0) })?.numberValue {
                return width > 0 ? width : nil
            }
            return numbers("Border").flatMap { $0.count >= 3 && $0[2] > 0 ? $0[2] : nil }
        }

        /// A free text's /DA: its font size (`Tf`) and fill colour (`rg` or `g`).
        func textAppearance() -> (size: Double?, color: RGBColor?) {
            guard let da = text("DA") else { return (nil, nil) }
            let words = da.split(whereSeparator: \.isWhitespace).map(String.init)
            var size: Double?, color: RGBColor?
            for (index, word) in words.enumerated() {
                switch word {
                case "Tf" where index >= 1: size = Double(words[index - 1]).flatMap { $0 > 0 ? $0 : nil }
                case "rg" where index >= 3:
                    let rgb = words[index - 3..<index].compactMap(Double.init)
                    if rgb.count == 3 { color = RGBColor(rgb[0], rgb[1], rgb[2]) }
                case "g" where index >= 1: color = Double(words[index - 1]).map { RGBColor($0, $0, $0) }
                default: break
                }
            }
            return (size, color)
        }
    }
}
