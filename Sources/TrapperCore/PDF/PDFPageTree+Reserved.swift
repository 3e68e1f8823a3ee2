/// Writing a page under a number reserved before its content was copied: an imported page's
/// annotations point back to it with /P, so its reference must exist before the page is written.
extension PDFPageTree {
    /// Writes `page` (a dictionary without /Parent) under `reference`, as a child of `parent`.
    /// Makes explicit what a page must not inherit from the target's root by accident (§7.7.3.4):
    /// /Rotate 0 and /CropBox = /MediaBox when `rootDefaults` (the root's dictionary) has them and
    /// the page does not, and empty /Resources when the page has none.
    public static func writePage(_ page: PDFDictionary, as reference: PDFReference, parent: PDFReference,
        rootDefaults: PDFDictionary = [:], into sink: inout some PDFObjectSink) throws
    {
        var dictionary = page
        dictionary[.type] = .name("Page")
        dictionary["Parent"] = .reference(parent)
        if rootDefaults["Rotate"] != nil, dictionary["Rotate"] == nil { dictionary["Rotate"] = 0 }
        if rootDefaults["CropBox"] != nil, dictionary["CropBox"] == nil, let box = dictionary["MediaBox"] {
            dictionary["CropBox"] = box
        }
        if dictionary["Resources"] == nil { dictionary["Resources"] = .dictionary([:]) }
        try sink.set(reference, to: .dictionary(dictionary))
    }
}
