import Foundation

/// Turns a markup op into annotations with appearance streams (§12.5.5), drawn in the page's
/// shown space so that every viewer shows them alike, upright on a rotated page too. Pure: the
/// page's frame comes in, and text search results come in as rectangles in shown space.
public enum AnnotationBuilder {
    /// Every annotation PDFTrapper makes has an /NM that starts so: `erase` finds them by it.
    public static let idPrefix = "pdftrapper-"

    /// A fresh id: the prefix and 16 random hex digits.
    public static func newID() -> String {
        idPrefix + String(UInt64.random(in: 0...UInt64.max), radix: 16).leftPadded(to: 16)
    }

    /// The annotations of one markup op. `found` holds, for `text =` markup, the rectangles of each
    /// place the text was found (one annotation each); it is ignored for every other shape.
    public static func annotations(_ markup: Markup, frame: PageFrame, found: [[Rect]] = [],
                                   date: Date = Date(), id: () -> String = newID) throws(MarkupError) -> [AnnotationDraft] {
        switch markup.shape {
        case .text(let kind, .rects(let boxes)):
            let rects = boxes.map(frame.shown)
            try inside(rects, frame, what: "rects")
            return [textMarkup(kind, rects, markup, frame, id(), date)]
        case .text(let kind, .text):
            return found.map { textMarkup(kind, $0, markup, frame, id(), date) }
        case .ink(let strokes, let width):
            let shown = strokes.map { $0.map(frame.shown) }
            try inside(shown.flatMap { $0 }.map { Rect($0, $0) }, frame, what: "strokes")
            return [ink(shown, width: width, markup, frame, id(), date)]
        case .rect(let box, let fill, let width), .oval(let box, let fill, let width):
            let rect = frame.shown(box)
            try inside([rect], frame, what: "box")
            if case .oval = markup.shape { return [shape("Circle", rect, fill: fill, width: width, markup, frame, id(), date)] }
            return [shape("Square", rect, fill: fill, width: width, markup, frame, id(), date)]
        case .line(let from, let to, let arrow, let width):
            let (start, end) = (frame.shown(from), frame.shown(to))
            try inside([Rect(start, start), Rect(end, end)], frame, what: "from and to")
            return [line(start, end, arrow: arrow, width: width, markup, frame, id(), date)]
        case .textbox(let box, let text, let size):
            let rect = frame.shown(box)
            try inside([rect], frame, what: "box")
            return [try textbox(rect, text, size: size, markup, frame, id(), date)]
        case .polygon(let points, let fill, let width):
            let shown = points.map(frame.shown)
            try inside(shown.map { Rect($0, $0) }, frame, what: "points")
            return [polygon(shown, fill: fill, width: width, markup, frame, id(), date)]
        case .note(let at):
            let corner = frame.shown(at)
            let icon = Rect(x0: corner.x, y0: corner.y - noteSize, x1: corner.x + noteSize, y1: corner.y)
            try inside([icon], frame, what: "at (with its \(Int(noteSize)) pt icon)")
            return [note(icon, markup, frame, id(), date)]
        }
    }

    /// A saved signature fitted into the placement's box (aspect ratio kept, centred), as a stamp.
    public static func signature(_ placement: SignaturePlacement, art: SignatureArt, frame: PageFrame,
                                 date: Date = Date(), id: String = newID()) throws(MarkupError) -> AnnotationDraft {
        let box = frame.shown(placement.box)
        try inside([box], frame, what: "box")
        var content = ContentStream()
        let (artWidth, artHeight): (Double, Double)
        var images: [FormImage] = []
        var bounds: Rect?
        switch art {
        case .image(_, _, let width, let height): (artWidth, artHeight) = (Double(width), Double(height))
        case .ink(let strokes, let width, _):
            guard let found = Rect.bounding(strokes.flatMap { $0 }) else { throw MarkupError("the signature has no strokes") }
            bounds = found.insetBy(-width / 2)
            (artWidth, artHeight) = (max(bounds!.width, 1e-3), max(bounds!.height, 1e-3))
        }
        let scale = min(box.width / artWidth, box.height / artHeight)
        let placed = Rect(x0: box.x0 + (box.width - artWidth * scale) / 2, y0: box.y0 + (box.height - artHeight * scale) / 2,
                          x1: box.x0 + (box.width + artWidth * scale) / 2, y1: box.y0 + (box.height + artHeight * scale) / 2)
        switch art {
        case .image(let image, let softMask, _, _):
            var picture = image
            if softMask != nil { picture.dictionary["SMask"] = nil }
            images.append(FormImage(name: "Sig0", image: picture, softMask: softMask))
            content.add([placed.width, 0, 0, placed.height, placed.x0, placed.y0], "cm")
            content.raw("/Sig0 Do")
        case .ink(let strokes, let width, let color):
            let origin = bounds!
            content.add([width * scale], "w")
            content.raw("1 J 1 j")
            content.stroke(color)
            for stroke in strokes {
                content.polyline(stroke.map { Point(placed.x0 + ($0.x - origin.x0) * scale, placed.y0 + ($0.y - origin.y0) * scale) })
                content.raw("S")
            }
        }
        var dictionary = AnnotationCommon.dictionary(subtype: "Stamp", rect: frame.toUser(placed), id: id, date: date,
                                                     author: placement.author, contents: "Signature: \(placement.name)",
                                                     color: nil, opacity: 1)
        dictionary["Name"] = .name("Signature")
        let form = AppearanceForm(bbox: placed, matrix: frame.matrix, content: content.bytes, images: images)
        return AnnotationDraft(dictionary: dictionary, appearance: form)
    }

    /// A loupe: a stamp whose appearance draws `page` (the page's own content as a form, in user
    /// space) `zoom` times larger about the centre, inside a circle of `radius` points, with a rim.
    public static func loupe(_ placement: LoupePlacement, page: PDFStream, frame: PageFrame, date: Date = Date(),
                             id: String = newID()) throws(MarkupError) -> AnnotationDraft {
        let centre = frame.shown(placement.at)
        try inside([Rect(centre, centre)], frame, what: "at")
        return loupe(centre: centre, radius: placement.radius, zoom: placement.zoom, author: placement.author, page: page,
                     frame: frame, date: date, id: id)
    }

    /// The loupe round `centre` (shown space).
    static func loupe(centre: Point, radius: Double, zoom: Double, author: String?, page: PDFStream, frame: PageFrame,
                      date: Date, id: String) -> AnnotationDraft {
        let shownCircle = Rect(x0: centre.x - radius, y0: centre.y - radius, x1: centre.x + radius, y1: centre.y + radius)
        let circle = frame.toUser(shownCircle)
        let (cx, cy) = ((circle.x0 + circle.x1) / 2, (circle.y0 + circle.y1) / 2)
        let rim = 2.0
        var content = ContentStream()
        content.raw("q")
        content.ellipse(in: circle.insetBy(rim / 2))
        content.raw("W n")
        // Paper under the window; the page's content then starts from the default state, as on its page.
        content.raw("q")
        content.fill(RGBColor(1, 1, 1))
        content.rect(circle)
        content.raw("f")
        content.raw("Q")
        content.add([zoom, 0, 0, zoom, cx - zoom * cx, cy - zoom * cy], "cm")
        content.raw("/PTPage Do")
        content.raw("Q")
        content.stroke(RGBColor(0.45, 0.48, 0.52))
        content.add([rim], "w")
        content.ellipse(in: circle.insetBy(rim / 2))
        content.raw("S")
        var dictionary = AnnotationCommon.dictionary(subtype: "Stamp", rect: circle, id: id, date: date, author: author,
                                                     contents: loupePrefix + TableReader.format(zoom), color: nil, opacity: 1)
        dictionary["Name"] = .name("Loupe")
        let form = AppearanceForm(bbox: circle, matrix: [1, 0, 0, 1, 0, 0], content: content.bytes,
                                  images: [FormImage(name: "PTPage", image: page, softMask: nil)])
        return AnnotationDraft(dictionary: dictionary, appearance: form)
    }

    /// A loupe's /Contents begins so, its magnification after it.
    public static let loupePrefix = "Loupe ×"

    // MARK: Each kind

    static let noteSize = 20.0

    static func textMarkup(_ kind: TextMarkupKind, _ rects: [Rect], _ markup: Markup, _ frame: PageFrame,
                                   _ id: String, _ date: Date) -> AnnotationDraft {
        let color = markup.color ?? .black
        var content = ContentStream()
        let multiply = kind == .highlight
        if AnnotationCommon.graphicsState(opacity: markup.opacity, multiply: multiply) != nil { content.raw("/GS0 gs") }
        for rect in rects {
            let h = rect.height
            switch kind {
            case .highlight:
                content.fill(color)
                content.rect(rect)
                content.raw("f")
            case .underline, .strikeout:
                let y = kind == .underline ? rect.y0 + h * 0.08 : rect.y0 + h * 0.45
                content.stroke(color)
                content.add([max(0.5, h * 0.07)], "w")
                content.move(Point(rect.x0, y))
                content.line(Point(rect.x1, y))
                content.raw("S")
            case .squiggly:
                let step = max(1.5, h / 6)
                let (low, high) = (rect.y0 + h * 0.02, rect.y0 + h * 0.02 + step)
                content.stroke(color)
                content.add([max(0.5, h * 0.05)], "w")
                var x = rect.x0
                content.move(Point(x, low))
                var up = true
                while x < rect.x1 {
                    x = min(rect.x1, x + step)
                    content.line(Point(x, up ? high : low))
                    up.toggle()
                }
                content.raw("S")
            }
        }
        let bounds = rects.dropFirst().reduce(rects[0]) { $0.union($1) }
        let subtype = ["highlight": "Highlight", "underline": "Underline", "strikeout": "StrikeOut", "squiggly": "Squiggly"][kind.rawValue]!
        var dictionary = AnnotationCommon.dictionary(subtype: subtype, rect: frame.toUser(bounds), id: id, date: date,
                                                     author: markup.author, contents: markup.contents, color: color,
                                                     opacity: markup.opacity)
        // Upper-left, upper-right, lower-left, lower-right, as the text reads: what viewers expect.
        dictionary["QuadPoints"] = AnnotationCommon.points(rects.flatMap { rect in
            [Point(rect.x0, rect.y1), Point(rect.x1, rect.y1), Point(rect.x0, rect.y0), Point(rect.x1, rect.y0)].map(frame.toUser)
        })
        let form = AppearanceForm(bbox: bounds, matrix: frame.matrix, content: content.bytes,
                                  resources: AnnotationCommon.resources(opacity: markup.opacity, multiply: multiply))
        return AnnotationDraft(dictionary: dictionary, appearance: form)
    }

    static func ink(_ strokes: [[Point]], width: Double, _ markup: Markup, _ frame: PageFrame, _ id: String,
                            _ date: Date) -> AnnotationDraft {
        let color = markup.color ?? .black
        var content = ContentStream()
        if markup.opacity < 1 { content.raw("/GS0 gs") }
        content.add([width], "w")
        content.raw("1 J 1 j")
        content.stroke(color)
        for stroke in strokes {
            content.polyline(stroke)
            content.raw("S")
        }
        let bounds = Rect.bounding(strokes.flatMap { $0 })!.insetBy(-width / 2 - 1)
        var dictionary = AnnotationCommon.dictionary(subtype: "Ink", rect: frame.toUser(bounds), id: id, date: date,
                                                     author: markup.author, contents: markup.contents, color: color,
                                                     opacity: markup.opacity)
        dictionary["InkList"] = .array(strokes.map { AnnotationCommon.points($0.map(frame.toUser)) })
        dictionary["BS"] = .dictionary(["W": PDFPageTree.number(width), "S": .name("S")])
        let form = AppearanceForm(bbox: bounds, matrix: frame.matrix, content: content.bytes,
                                  resources: AnnotationCommon.resources(opacity: markup.opacity))
        return AnnotationDraft(dictionary: dictionary, appearance: form)
    }

    /// A rectangle (/Square) or an ellipse (/Circle) whose outline lies inside `rect`.
    static func shape(_ subtype: String, _ rect: Rect, fill: RGBColor?, width: Double, _ markup: Markup,
                              _ frame: PageFrame, _ id: String, _ date: Date) -> AnnotationDraft {
        var content = ContentStream()
        if markup.opacity < 1 { content.raw("/GS0 gs") }
        let stroke = markup.color
        let path = stroke == nil ? rect : rect.insetBy(min(width / 2, rect.width / 4, rect.height / 4))
        if let stroke {
            content.stroke(stroke)
            content.add([width], "w")
        }
        if let fill { content.fill(fill) }
        if subtype == "Circle" { content.ellipse(in: path) } else { content.rect(path) }
        content.raw(fill == nil ? "S" : stroke == nil ? "f" : "B")
        var dictionary = AnnotationCommon.dictionary(subtype: subtype, rect: frame.toUser(rect), id: id, date: date,
                                                     author: markup.author, contents: markup.contents, color: stroke,
                                                     opacity: markup.opacity)
        dictionary["BS"] = .dictionary(["W": stroke == nil ? 0 : PDFPageTree.number(width), "S": .name("S")])
        if let fill { dictionary["IC"] = AnnotationCommon.array(fill) }
        let form = AppearanceForm(bbox: rect, matrix: frame.matrix, content: content.bytes,
                                  resources: AnnotationCommon.resources(opacity: markup.opacity))
        return AnnotationDraft(dictionary: dictionary, appearance: form)
    }

    static func line(_ start: Point, _ end: Point, arrow: Bool, width: Double, _ markup: Markup,
                             _ frame: PageFrame, _ id: String, _ date: Date) -> AnnotationDraft {
        let color = markup.color ?? .black
        var content = ContentStream()
        if markup.opacity < 1 { content.raw("/GS0 gs") }
        content.stroke(color)
        content.add([width], "w")
        content.raw("1 J 1 j")
        content.polyline([start, end])
        content.raw("S")
        var points = [start, end]
        if arrow {
            // An open arrowhead at `end`: two strokes 30° either side of the line, back along it.
            let length = max(8, width * 4)
            let angle = atan2(end.y - start.y, end.x - start.x)
            let wings = [angle + .pi * 5 / 6, angle - .pi * 5 / 6].map { Point(end.x + length * cos($0), end.y + length * sin($0)) }
            content.polyline([wings[0], end, wings[1]])
            content.raw("S")
            points += wings
        }
        let bounds = Rect.bounding(points)!.insetBy(-width - 1)
        var dictionary = AnnotationCommon.dictionary(subtype: "Line", rect: frame.toUser(bounds), id: id, date: date,
                                                     author: markup.author, contents: markup.contents, color: color,
                                                     opacity: markup.opacity)
        dictionary["L"] = AnnotationCommon.points([start, end].map(frame.toUser))
        dictionary["LE"] = [.name("None"), .name(arrow ? "OpenArrow" : "None")]
        dictionary["BS"] = .dictionary(["W": PDFPageTree.number(width), "S": .name("S")])
        let form = AppearanceForm(bbox: bounds, matrix: frame.matrix, content: content.bytes,
                                  resources: AnnotationCommon.resources(opacity: markup.opacity))
        return AnnotationDraft(dictionary: dictionary, appearance: form)
    }

    /// A closed outline through `corners` (shown space), filled and/or stroked.
    static func polygon(_ corners: [Point], fill: RGBColor?, width: Double, _ markup: Markup, _ frame: PageFrame,
                        _ id: String, _ date: Date) -> AnnotationDraft {
        var content = ContentStream()
        if markup.opacity < 1 { content.raw("/GS0 gs") }
        if let stroke = markup.color {
            content.stroke(stroke)
            content.add([width], "w")
            content.raw("1 J 1 j")
        }
        if let fill { content.fill(fill) }
        content.polyline(corners)
        content.raw(fill == nil ? "s" : markup.color == nil ? "h f" : "b")
        let bounds = Rect.bounding(corners)!.insetBy(markup.color == nil ? -1 : -width / 2 - 1)
        var dictionary = AnnotationCommon.dictionary(subtype: "Polygon", rect: frame.toUser(bounds), id: id, date: date,
                                                     author: markup.author, contents: markup.contents, color: markup.color,
                                                     opacity: markup.opacity)
        dictionary["Vertices"] = AnnotationCommon.points(corners.map(frame.toUser))
        dictionary["BS"] = .dictionary(["W": markup.color == nil ? 0 : PDFPageTree.number(width), "S": .name("S")])
        if let fill { dictionary["IC"] = AnnotationCommon.array(fill) }
        let form = AppearanceForm(bbox: bounds, matrix: frame.matrix, content: content.bytes,
                                  resources: AnnotationCommon.resources(opacity: markup.opacity))
        return AnnotationDraft(dictionary: dictionary, appearance: form)
    }

    /// Text inside the box, wrapped at spaces; refused when it needs more lines than the box holds.
    static func textbox(_ rect: Rect, _ text: String, size: Double, _ markup: Markup, _ frame: PageFrame,
                                _ id: String, _ date: Date) throws(MarkupError) -> AnnotationDraft {
        let color = markup.color ?? .black
        let padding = 2.0
        let leading = size * 1.2
        let lines = HelveticaText.wrap(text, size: size, width: rect.width - 2 * padding)
        let room = Int(((rect.height - 2 * padding - size) / leading).rounded(.down)) + 1
        guard rect.height - 2 * padding >= size, lines.count <= room else {
            throw MarkupError("the text needs \(lines.count) line\(lines.count == 1 ? "" : "s") at \(TableReader.format(size)) pt "
                              + "and the box has room for \(max(0, room)); make the box taller or the size smaller")
        }
        var content = ContentStream()
        if markup.opacity < 1 { content.raw("/GS0 gs") }
        content.rect(rect)
        content.raw("W n")
        content.raw("BT")
        content.raw("/Helv \(TableReader.format(size)) Tf")
        content.fill(color)
        content.add([leading], "TL")
        // The first baseline one ascent (0.8 of the size, Helvetica's caps and ascenders) below the top.
        content.add([rect.x0 + padding, rect.y1 - padding - size * 0.8], "Td")
        for (index, line) in lines.enumerated() {
            if index > 0 { content.raw("T*") }
            content.show(line)
        }
        content.raw("ET")
        var dictionary = AnnotationCommon.dictionary(subtype: "FreeText", rect: frame.toUser(rect), id: id, date: date,
                                                     author: markup.author, contents: markup.contents ?? text, color: nil,
                                                     opacity: markup.opacity)
        dictionary["DA"] = .string(PDFString("/Helv \(TableReader.format(size)) Tf \(color.red) \(color.green) \(color.blue) rg"))
        dictionary["Q"] = 0
        dictionary["BS"] = .dictionary(["W": 0])
        var resources = AnnotationCommon.resources(opacity: markup.opacity)
        resources["Font"] = .dictionary(["Helv": .dictionary(HelveticaText.font)])
        let form = AppearanceForm(bbox: rect, matrix: frame.matrix, content: content.bytes, resources: resources)
        return AnnotationDraft(dictionary: dictionary, appearance: form)
    }

    /// A sticky note: a small coloured sheet with a folded corner and lines of "writing".
    static func note(_ icon: Rect, _ markup: Markup, _ frame: PageFrame, _ id: String, _ date: Date) -> AnnotationDraft {
        let color = markup.color ?? RGBColor(1, 0.85, 0.2)
        var content = ContentStream()
        let sheet = icon.insetBy(1)
        let fold = 5.0
        content.fill(color)
        content.stroke(RGBColor(0.35, 0.3, 0.1))
        content.add([1], "w")
        content.polyline([Point(sheet.x0, sheet.y1), Point(sheet.x1, sheet.y1), Point(sheet.x1, sheet.y0 + fold),
                          Point(sheet.x1 - fold, sheet.y0), Point(sheet.x0, sheet.y0)])
        content.raw("h B")
        content.polyline([Point(sheet.x1, sheet.y0 + fold), Point(sheet.x1 - fold, sheet.y0 + fold), Point(sheet.x1 - fold, sheet.y0)])
        content.raw("S")
        for row in 1...3 {
            let y = sheet.y1 - Double(row) * 4.5
            content.polyline([Point(sheet.x0 + 3, y), Point(sheet.x1 - 3 - (row == 3 ? fold : 0), y)])
        }
        content.raw("S")
        var dictionary = AnnotationCommon.dictionary(subtype: "Text", rect: frame.toUser(icon), id: id, date: date,
                                                     author: markup.author, contents: markup.contents, color: color,
                                                     opacity: markup.opacity)
        dictionary["Name"] = .name("Comment")
        dictionary["Open"] = false
        let form = AppearanceForm(bbox: icon, matrix: frame.matrix, content: content.bytes)
        return AnnotationDraft(dictionary: dictionary, appearance: form)
    }

    /// Every rectangle (in shown space) must lie on the page as shown.
    static func inside(_ rects: [Rect], _ frame: PageFrame, what: String) throws(MarkupError) {
        let page = frame.shownPage
        for rect in rects where !rect.isInside(page) {
            let f = TableReader.format
            throw MarkupError("\(what) reaches outside the page: [\(f(rect.x0)), \(f(rect.y0)), \(f(rect.x1)), \(f(rect.y1))] pt "
                              + "on a page of \(f(page.width)) × \(f(page.height)) pt as shown")
        }
    }
}

private extension String {
    func leftPadded(to length: Int) -> String { String(repeating: "0", count: max(0, length - count)) + self }
}
