/// Markup ops, as scripts write them: every value in the script's units and origin, not yet placed
/// on a page (that needs the page's box and rotation, see `PageFrame`).

/// A colour in DeviceRGB, each channel from 0 to 1.
public struct RGBColor: Sendable, Equatable {
    public var red, green, blue: Double

    public init(_ red: Double, _ green: Double, _ blue: Double) {
        (self.red, self.green, self.blue) = (red, green, blue)
    }

    public static let black = RGBColor(0, 0, 0)
    /// The colour names scripts may use, beside "#RRGGBB" and [r, g, b].
    public static let named: KeyValuePairs<String, RGBColor> = [
        "black": .black, "white": RGBColor(1, 1, 1), "gray": RGBColor(0.5, 0.5, 0.5),
        "red": RGBColor(0.9, 0.1, 0.1), "green": RGBColor(0.1, 0.65, 0.2), "blue": RGBColor(0.1, 0.3, 0.9),
        "yellow": RGBColor(1, 0.9, 0.1), "orange": RGBColor(1, 0.55, 0), "purple": RGBColor(0.55, 0.2, 0.8),
        "pink": RGBColor(1, 0.4, 0.7),
    ]
}

/// A point in the script's units and origin, as written: [x, y].
public struct ScriptPoint: Sendable, Equatable {
    public var x, y: Double

    public init(_ x: Double, _ y: Double) { (self.x, self.y) = (x, y) }
}

/// The four ops that mark text.
public enum TextMarkupKind: String, Sendable, CaseIterable {
    case highlight, underline, strikeout, squiggly
}

/// Where text markup goes: rectangles given, or every place the page shows `text`.
public enum TextArea: Sendable, Equatable {
    case rects([ScriptBox])
    case text(String)
}

/// What one markup op draws, with the values only it takes.
public enum MarkupShape: Sendable, Equatable {
    case text(TextMarkupKind, TextArea)
    /// Freehand strokes, each a list of points; `width` in points.
    case ink(strokes: [[ScriptPoint]], width: Double)
    /// A rectangle or an ellipse inside `box`; no stroke when the markup's colour is nil.
    case rect(box: ScriptBox, fill: RGBColor?, width: Double)
    case oval(box: ScriptBox, fill: RGBColor?, width: Double)
    case line(from: ScriptPoint, to: ScriptPoint, arrow: Bool, width: Double)
    /// Text set in Helvetica at `size` points, wrapped to the box.
    case textbox(box: ScriptBox, text: String, size: Double)
    /// A sticky note whose icon's top-left corner is at `at`; its text is the markup's contents.
    case note(at: ScriptPoint)
    /// A closed outline through `points` (a star, a speech bubble): /Polygon with its /Vertices;
    /// filled inside with `fill`, outlined unless the colour is nil.
    case polygon(points: [ScriptPoint], fill: RGBColor?, width: Double)
}

/// One annotation to add to one page: what it draws and how it looks.
public struct Markup: Sendable, Equatable {
    /// 1-based, in the document as it stands when the edit runs.
    public var page: Int
    public var shape: MarkupShape
    /// The stroke (or text) colour; nil only for a filled rect or oval without an outline.
    public var color: RGBColor?
    public var opacity: Double
    /// /T, the author a viewer shows.
    public var author: String?
    /// /Contents, the comment a viewer shows beside it.
    public var contents: String?

    public init(page: Int, shape: MarkupShape, color: RGBColor?, opacity: Double = 1, author: String? = nil,
                contents: String? = nil) {
        self.page = page
        self.shape = shape
        self.color = color
        self.opacity = opacity
        self.author = author
        self.contents = contents
    }

    /// The op's name as scripts write it.
    public var op: String {
        switch shape {
        case .text(let kind, _): kind.rawValue
        case .ink: "ink"
        case .rect: "rect"
        case .oval: "oval"
        case .line(_, _, let arrow, _): arrow ? "arrow" : "line"
        case .textbox: "textbox"
        case .note: "note"
        case .polygon: "polygon"
        }
    }
}

/// A loupe, as Notes has it: a round window at `at` showing the page under it `zoom` times larger.
public struct LoupePlacement: Sendable, Equatable {
    public var page: Int
    /// Its centre, in the script's units and origin.
    public var at: ScriptPoint
    /// In points.
    public var radius: Double
    public var zoom: Double
    public var author: String?

    public init(page: Int, at: ScriptPoint, radius: Double = 40, zoom: Double = 2, author: String? = nil) {
        (self.page, self.at, self.radius, self.zoom, self.author) = (page, at, radius, zoom, author)
    }
}

/// A saved signature placed on a page: fitted into `box` keeping its aspect ratio, centred.
public struct SignaturePlacement: Sendable, Equatable {
    public var page: Int
    /// The file's name in the signatures folder, without its extension.
    public var name: String
    public var box: ScriptBox
    /// Drawn into the page's content instead of added as a stamp annotation.
    public var flatten: Bool
    public var author: String?

    public init(page: Int, name: String, box: ScriptBox, flatten: Bool = false, author: String? = nil) {
        self.page = page
        self.name = name
        self.box = box
        self.flatten = flatten
        self.author = author
    }
}

/// Which annotations `erase` removes: those that match every criterion given, on `pages`.
public struct AnnotationFilter: Sendable, Equatable {
    public var pages: PageSelection
    /// Ids as `pdftrapper annotations` lists them.
    public var ids: [String]?
    /// Kinds by op name ("highlight", "ink", "signature", …) or PDF subtype ("Square", …).
    public var kinds: [String]?
    public var author: String?
    /// Annotations whose rectangle meets this box (script units and origin).
    public var region: ScriptBox?
    /// Only the annotations PDFTrapper made.
    public var madeByPDFTrapper: Bool

    public init(pages: PageSelection = .all, ids: [String]? = nil, kinds: [String]? = nil, author: String? = nil,
                region: ScriptBox? = nil, madeByPDFTrapper: Bool = false) {
        self.pages = pages
        self.ids = ids
        self.kinds = kinds
        self.author = author
        self.region = region
        self.madeByPDFTrapper = madeByPDFTrapper
    }
}

/// Changes one annotation already on a page (`op = "change"`): moved or resized into a new box,
/// turned (stamps and signatures), recoloured, a new width, opacity, text or font size. The
/// annotation is rewritten in place, under its own object number and /NM, every key it had kept
/// but those the change redraws; with `copy`, a copy with a new id gets the change instead.
public struct AnnotationChange: Sendable, Equatable {
    /// 1-based.
    public var page: Int
    /// As `pdftrapper annotations` lists it: /NM, or `pP-N`.
    public var id: String
    /// The annotation's new rectangle (as listed), in the script's units and origin.
    public var box: ScriptBox?
    /// Moved by this much, in the script's units (y as the script's origin counts it).
    public var move: ScriptPoint?
    /// Degrees, clockwise, about the box's centre: stamps and signatures.
    public var rotate: Double?
    public var color: RGBColor?
    public var width: Double?
    public var opacity: Double?
    /// A text box's words, a note's contents.
    public var text: String?
    /// A text box's font size in points.
    public var size: Double?
    public var copy: Bool

    public init(page: Int, id: String, box: ScriptBox? = nil, move: ScriptPoint? = nil, rotate: Double? = nil,
                color: RGBColor? = nil, width: Double? = nil, opacity: Double? = nil, text: String? = nil,
                size: Double? = nil, copy: Bool = false) {
        (self.page, self.id, self.box, self.move, self.rotate) = (page, id, box, move, rotate)
        (self.color, self.width, self.opacity, self.text, self.size, self.copy) = (color, width, opacity, text, size, copy)
    }

    /// Whether the change asks for nothing but a copy where the original is.
    public var isEmpty: Bool {
        box == nil && move == nil && rotate == nil && color == nil && width == nil && opacity == nil && text == nil && size == nil
    }
}
