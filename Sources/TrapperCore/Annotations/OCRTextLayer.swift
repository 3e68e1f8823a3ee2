/// The invisible text of an OCR'd page (text render mode 3, §9.3.6): each word set in Helvetica over
/// the place tesseract found it, sized so that the height of its glyph box is the word's height and
/// stretched (Tz) to the word's width, so that selecting text in a viewer highlights the words of
/// the picture and `pdftotext` reads them. It is a form drawn over the page's content, in the page's
/// shown space like every appearance, so a turned page reads the right way.
///
/// Helvetica's WinAnsi covers English and the Western European languages; a character outside it
/// becomes '?' in the layer (the picture is untouched).
public enum OCRTextLayer {
    public struct Word: Sendable, Equatable {
        public var text: String
        /// In shown space (points, y up).
        public var box: Rect

        public init(text: String, box: Rect) {
            self.text = text
            self.box = box
        }
    }

    /// Helvetica's ascender and descender, as readers build selection boxes from them.
    static let ascent = 0.718, descent = 0.207

    /// `words` are placed on the page turned clockwise by `turn` so that its text stands upright
    /// (what tesseract read): the form maps that upright page back onto the page as shown, then to
    /// user space, so each word runs the way the picture's text runs.
    public static func form(_ words: [Word], frame: PageFrame, turn: Int = 0) -> AppearanceForm {
        let upright = PageFrame(mediaBox: frame.shownPage.numbers, rotation: turn)
        var content = ContentStream()
        content.raw("BT")
        content.raw("3 Tr")
        for word in words where word.box.width > 0 && word.box.height > 0 {
            let bytes = HelveticaText.encode(word.text)
            let size = word.box.height / (ascent + descent)
            let natural = HelveticaText.width(bytes, size: size)
            guard natural > 0 else { continue }
            content.raw("/PTOCR \(TableReader.format(size)) Tf")
            content.add([min(1000, max(1, word.box.width / natural * 100))], "Tz")
            content.add([1, 0, 0, 1, word.box.x0, word.box.y0 + descent * size], "Tm")
            content.show(bytes)
        }
        content.raw("ET")
        return AppearanceForm(bbox: upright.shownPage, matrix: multiply(upright.matrix, frame.matrix), content: content.bytes,
                              resources: ["Font": .dictionary(["PTOCR": .dictionary(HelveticaText.font)])])
    }

    /// `first` then `second`, as PDF composes matrices (row vectors: p · first · second).
    static func multiply(_ first: [Double], _ second: [Double]) -> [Double] {
        let (a, b, c, d, e, f) = (first[0], first[1], first[2], first[3], first[4], first[5])
        let (A, B, C, D, E, F) = (second[0], second[1], second[2], second[3], second[4], second[5])
        return [a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D, e * A + f * C + E, e * B + f * D + F]
    }
}
