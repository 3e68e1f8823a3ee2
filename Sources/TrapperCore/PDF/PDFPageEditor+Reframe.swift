import Foundation

/// `reframe`: a page made by `find_page` cut again from the photo it keeps (`KeptPhoto`).
extension PDFPageEditor {
    /// The photo the page at `index` was cut from; nil when it keeps none.
    public func keptPhoto(ofPage index: Int) throws -> KeptPhoto? {
        let page = try located(index, .readPage)
        return try Self.wrapping(.readPage, page: index) {
            try KeptPhoto(pieceInfo: tree.pages[page].dictionary["PieceInfo"], resolve: tree.reader.resolve)
        }
    }

    /// The kept photo's image XObject, its pixels and all; nil when that object is not an image.
    public func image(of photo: KeptPhoto) throws -> PDFStream? {
        try Self.wrapping(.readPage) {
            guard let image = try tree.reader.resolve(photo.image).streamValue, image.dictionary["Subtype"]?.nameValue == "Image"
            else { return nil }
            return image
        }
    }

    /// The page at `index` shows `picture` in place of its content: its media box becomes the
    /// picture's size, its other boxes go (they measured the old picture), its resources and
    /// content streams are the picture's alone (an OCR text layer goes with the old content), and
    /// `photo` (the new corners) is kept for the next time. Annotations and /Rotate stay.
    public mutating func reframe(_ index: Int, to picture: ImagePage, photo: KeptPhoto, date: Date) throws {
        makeUnique()
        let page = try located(index, .reframe)
        guard tree.pages[page].overlay == nil else { throw PDFPageEditError(.reframe, page: index, .reframedAndFlattened) }
        for key: PDFName in ["CropBox", "TrimBox", "BleedBox", "ArtBox"] { tree.pages[page].dictionary[key] = nil }
        // A crop box a parent hands down would cut the new picture: the page's own is the whole picture.
        if tree.effective("CropBox", of: page) != nil {
            tree.pages[page].dictionary["CropBox"] = .array([0, 0, PDFPageTree.number(picture.widthPoints), PDFPageTree.number(picture.heightPoints)])
        }
        for (key, value) in photo.pageEntries(date: date) { tree.pages[page].dictionary[key] = value }
        tree.pages[page].picture = picture
        tree.pages[page].changed = true
    }

    /// The picture's image, content stream, media box and resources, written into `dictionary`.
    static func write<Sink: PDFObjectSink>(_ picture: ImagePage, into dictionary: inout PDFDictionary, sink: inout Sink) throws {
        let made = try picture.newPage(addingImageTo: &sink)
        dictionary["MediaBox"] = .array(made.mediaBox.map(PDFPageTree.number))
        dictionary["Resources"] = .dictionary(made.resources)
        dictionary["Contents"] = .reference(try sink.add(.stream(made.contents)))
    }
}
