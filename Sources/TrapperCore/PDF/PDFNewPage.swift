/// A page to add: its own box, resources and content, never inherited from the page tree.
public struct PDFNewPage: Sendable, Equatable {
    /// [llx lly urx ury] in points.
    public var mediaBox: [Double]
    /// The page's resources; may refer to objects already added to the revision (images, fonts).
    public var resources: PDFDictionary
    /// The content stream as stored, with its dictionary (e.g. /Filter if the bytes are encoded).
    public var contents: PDFStream
    public var rotate: Int

    public init(mediaBox: [Double], resources: PDFDictionary = [:], contents: PDFStream, rotate: Int = 0) {
        self.mediaBox = mediaBox
        self.resources = resources
        self.contents = contents
        self.rotate = rotate
    }

    /// A page `width` × `height` points with the given content operators.
    public init(width: Double, height: Double, resources: PDFDictionary = [:], content: [UInt8], rotate: Int = 0) {
        self.init(
            mediaBox: [0, 0, width, height], resources: resources, contents: PDFStream(data: content), rotate: rotate)
    }
}

/// Where new pages go in the document.
public enum PDFPagePosition: Sendable, Equatable {
    case end
    case front
}
