import Foundation

/// An annotation ready to be written: its dictionary (without /P and /AP, which the page editor
/// sets when it writes the page), and its appearance.
public struct AnnotationDraft: Sendable {
    public var dictionary: PDFDictionary
    public var appearance: AppearanceForm

    /// The id `pdftrapper annotations` lists and `erase` takes (/NM).
    public var id: String { dictionary["NM"]?.stringValue?.description ?? "" }
}

/// A form XObject (§8.10) drawn in the page's shown space, mapped to user space by `matrix`, so
/// the same form serves as an annotation's normal appearance and, flattened, as page content.
public struct AppearanceForm: Sendable {
    public var bbox: Rect
    public var matrix: [Double]
    public var content: [UInt8]
    /// Direct resources (/ExtGState, /Font); the images below are added as /XObject when written.
    public var resources: PDFDictionary
    public var images: [FormImage]

    public init(bbox: Rect, matrix: [Double], content: [UInt8], resources: PDFDictionary = [:], images: [FormImage] = []) {
        self.bbox = bbox
        self.matrix = matrix
        self.content = content
        self.resources = resources
        self.images = images
    }

    /// The form's stream; `images` gives the references the images were written under.
    public func stream(images references: [PDFName: PDFReference]) -> PDFStream {
        var resources = self.resources
        if !references.isEmpty {
            var objects = PDFDictionary()
            for (name, reference) in references.sorted(by: { $0.key.description < $1.key.description }) {
                objects[name] = .reference(reference)
            }
            resources["XObject"] = .dictionary(objects)
        }
        let dictionary: PDFDictionary = [
            .type: .name("XObject"), "Subtype": .name("Form"), "FormType": 1,
            "BBox": .array(bbox.numbers.map(PDFPageTree.number)), "Matrix": .array(matrix.map(PDFPageTree.number)),
            "Resources": .dictionary(resources),
        ]
        return PDFStream(dictionary: dictionary, data: content)
    }
}

/// An image an appearance draws, with its soft mask (transparency).
public struct FormImage: Sendable {
    public var name: PDFName
    public var image: PDFStream
    public var softMask: PDFStream?

    public init(name: PDFName, image: PDFStream, softMask: PDFStream?) {
        self.name = name
        self.image = image
        self.softMask = softMask
    }
}

/// A markup that cannot be placed: outside the page, text that does not fit its box.
public struct MarkupError: Error, Sendable, CustomStringConvertible, Equatable {
    public var description: String

    public init(_ description: String) { self.description = description }
}

/// What a saved signature draws: a picture, or pen strokes (y up, in any unit; only their shape counts).
public enum SignatureArt: Sendable {
    case image(PDFStream, softMask: PDFStream?, pixelWidth: Int, pixelHeight: Int)
    case ink(strokes: [[Point]], width: Double, color: RGBColor)
}

/// The parts every annotation PDFTrapper makes shares.
enum AnnotationCommon {
    static func dictionary(subtype: String, rect: Rect, id: String, date: Date, author: String?, contents: String?,
                           color: RGBColor?, opacity: Double) -> PDFDictionary {
        var dictionary: PDFDictionary = [
            .type: .name("Annot"), "Subtype": .name(PDFName(subtype)),
            "Rect": .array(rect.numbers.map(PDFPageTree.number)),
            // Print: it shows on paper as on screen.
            "F": 4,
            "NM": .string(PDFString(id)),
            "M": .string(PDFString(RevisionRecord.pdfDate(date))),
            "CreationDate": .string(PDFString(RevisionRecord.pdfDate(date))),
        ]
        if let color { dictionary["C"] = array(color) }
        if opacity < 1 { dictionary["CA"] = PDFPageTree.number(opacity) }
        if let author { dictionary["T"] = .string(PDFPageEditor.textString(author)) }
        if let contents { dictionary["Contents"] = .string(PDFPageEditor.textString(contents)) }
        return dictionary
    }

    static func array(_ color: RGBColor) -> PDFObject {
        [PDFPageTree.number(color.red), PDFPageTree.number(color.green), PDFPageTree.number(color.blue)]
    }

    /// An /ExtGState for the opacity (and a blend mode), named /GS0; nil when fully opaque and normal.
    static func graphicsState(opacity: Double, multiply: Bool = false) -> PDFDictionary? {
        guard opacity < 1 || multiply else { return nil }
        var state: PDFDictionary = [.type: .name("ExtGState"), "CA": PDFPageTree.number(opacity), "ca": PDFPageTree.number(opacity)]
        if multiply { state["BM"] = .name("Multiply") }
        return state
    }

    static func resources(opacity: Double, multiply: Bool = false) -> PDFDictionary {
        guard let state = graphicsState(opacity: opacity, multiply: multiply) else { return [:] }
        return ["ExtGState": .dictionary(["GS0": .dictionary(state)])]
    }

    static func points(_ points: [Point]) -> PDFObject {
        .array(points.flatMap { [PDFPageTree.number(round($0.x)), PDFPageTree.number(round($0.y))] })
    }

    /// Coordinates to a thousandth of a point: finer than any device, and short.
    static func round(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }
}
