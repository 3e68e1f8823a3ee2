/// An edit script as parsed and checked against its own rules (not yet against the document):
/// which PDF it changes, how its numbers are meant, and its edits in order. The whole script
/// becomes one revision of the target, or nothing is written.
public struct EditScript: Sendable, Equatable {
    /// The script file it was read from (for messages).
    public var file: String
    /// Absolute path of the target PDF, inside the library root.
    public var target: String
    /// The unit of every length and point in the script.
    public var units: LengthUnit
    public var origin: Origin
    /// The end offset of the target's last revision when the script was written (as
    /// `pdftrapper history` shows it); nil when the script does not say.
    public var baseEnd: Int?
    /// The revision the script was written against (`base_revision`, END-HASH): the target must
    /// still be exactly that revision, not merely the same length.
    public var baseRevision: String?
    public var onConflict: ConflictPolicy
    /// Compact the target afterwards so removed pages' bytes are gone (nil: the config's default).
    public var purge: Bool?
    public var edits: [Edit]

    public init(file: String, target: String, units: LengthUnit = .pt, origin: Origin = .bottomLeft,
                baseEnd: Int? = nil, baseRevision: String? = nil, onConflict: ConflictPolicy = .fail, purge: Bool? = nil, edits: [Edit]) {
        self.file = file
        self.target = target
        self.units = units
        self.origin = origin
        self.baseEnd = baseEnd
        self.baseRevision = baseRevision
        self.onConflict = onConflict
        self.purge = purge
        self.edits = edits
    }
}

public enum LengthUnit: String, Sendable, CaseIterable {
    case pt, mm, `in`

    /// PDF points in one of this unit.
    public var points: Double {
        switch self {
        case .pt: 1
        case .mm: 72 / 25.4
        case .in: 72
        }
    }
}

/// Where y = 0 is: PDF's own bottom-left, or the top-left of screens and images.
public enum Origin: String, Sendable, CaseIterable {
    case bottomLeft = "bottom-left"
    case topLeft = "top-left"
}

/// What to do when the target has moved on since `base_end`.
public enum ConflictPolicy: String, Sendable, CaseIterable {
    case fail, apply
}

/// One `[[edit]]`: its operation, and where it was written, for messages.
public struct Edit: Sendable, Equatable {
    /// 1-based position in the script.
    public var index: Int
    public var location: SourceLocation
    public var operation: EditOperation

    public init(index: Int, location: SourceLocation, operation: EditOperation) {
        self.index = index
        self.location = location
        self.operation = operation
    }
}

/// A rectangle in the script's units and origin, as written: [x0, y0, x1, y1].
public struct ScriptBox: Sendable, Equatable {
    public var x0, y0, x1, y1: Double

    public init(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        (self.x0, self.y0, self.x1, self.y1) = (x0, y0, x1, y1)
    }

    /// The narrowest side a box may have: below it, numbers written with 6 decimals leave no area.
    public static let smallestSide = 0.000001

    /// Why the box encloses no area, one line an axis; empty when it does.
    public func areaProblems(_ format: (Double) -> String) -> [String] {
        [("x", x0, x1), ("y", y0, y1)].compactMap { axis, low, high in
            if low >= high { return "\(axis)0 (\(format(low))) must be less than \(axis)1 (\(format(high)))" }
            if high - low < Self.smallestSide {
                return "\(axis)1 - \(axis)0 is \(format(high - low)), less than 0.000001: the box has no area"
            }
            return nil
        }
    }
}

/// Every edit, each with its own typed values. Page numbers are 1-based and refer to the document
/// as it stands when the edit runs (after the edits before it), as on a phone's page thumbnails.
public enum EditOperation: Sendable, Equatable {
    /// Turns pages clockwise by a multiple of 90 degrees (added to their /Rotate).
    case rotate(pages: PageSelection, degrees: Int)
    case delete(pages: PageSelection)
    /// Moves pages, in document order, to stand before page `to` (or at the end); `to` counts in the
    /// numbering before the move.
    case move(pages: PageSelection, to: PageTarget)
    /// A blank page after page `after` (0: at the front); without a size, the size of page `after`
    /// (or of page 1).
    case insertBlank(after: Int, size: PageSize?)
    /// Each page's copy goes right after it.
    case duplicate(pages: PageSelection)
    /// Copies pages into a new PDF named by a template below the library root; the target keeps them.
    case extract(pages: PageSelection, into: PathTemplate)
    /// Sets the visible area (/CropBox) of pages.
    case crop(pages: PageSelection, box: ScriptBox)
    /// Document information; nil leaves a field as it is, "" clears it.
    case metadata(title: String?, author: String?, subject: String?, keywords: String?)
    /// An outline entry that opens `page`.
    case bookmark(title: String, page: Int)
    /// An annotation with its own appearance stream, so that every viewer shows it alike.
    case markup(Markup)
    /// A saved signature from the signatures folder, as a stamp or drawn into the page.
    case signature(SignaturePlacement)
    /// A magnifier over part of the page (a stamp whose appearance draws the page's content, larger).
    case loupe(LoupePlacement)
    /// Removes annotations; form fields' widgets are never removed.
    case erase(AnnotationFilter)
    /// Rewrites one annotation in place (moved, resized, turned, recoloured, new text).
    case change(AnnotationChange)
    /// Cuts the page again from the photo `find_page` cut it from (kept in the file): the sheet
    /// between `corners`, fractions of the upright photo (y down), clockwise from the top left.
    case reframe(page: Int, corners: [SheetGeometry.Point])
    /// The same as `pdftrapper undo` / `redo`; a script with one of these has nothing else.
    case undo(steps: Int)
    case redo(steps: Int)
}

/// Where moved pages go.
public enum PageTarget: Sendable, Equatable {
    case before(Int)
    case end
}

/// A page size in the script's units, or a paper name.
public enum PageSize: Sendable, Equatable {
    case named(String, width: Double, height: Double)
    /// Width and height in the script's units.
    case custom(width: Double, height: Double)
}
