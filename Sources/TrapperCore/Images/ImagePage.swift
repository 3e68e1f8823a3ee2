/// One page made of one image: the image XObject (and its soft mask), the page size after
/// orientation, and the content stream that draws the image as /Im0.
public struct ImagePage: Sendable {
    /// The image XObject, with its complete dictionary (/Type /XObject /Subtype /Image ...).
    public var image: PDFStream
    /// Where the image's data is when it was left in its file (a JPEG as it came): the writer copies
    /// it from there a chunk at a time, and `image.data` is empty.
    public var imageFile: PDFFileRange?
    /// The /SMask image, if any; `addObjects` writes it and points the image's /SMask at it.
    public var softMask: PDFStream?
    /// The page size in points, after orientation.
    public var widthPoints: Double
    public var heightPoints: Double
    /// Draws /Im0 with the orientation matrix.
    public var content: [UInt8]
    /// How the stored image is turned on the page (EXIF / TIFF orientation).
    public var orientation: ImageOrientation = .up
    /// An ICC profile the image's colours are in (an iPhone's Display P3): the image's /ColorSpace
    /// becomes /ICCBased on it, with its device space as the /Alternate.
    public var colorProfile: ColorProfile?
    /// The camera's focal length as a 35 mm equivalent, from the photo's EXIF (`find_page` uses it).
    public var focal35: Double?
    /// What making the page did to the file's pixels, for the history: "HEIC stored as JPEG (quality 90)".
    public var notes: [String] = []

    public init(image: PDFStream, softMask: PDFStream? = nil, widthPoints: Double, heightPoints: Double, content: [UInt8]) {
        self.image = image
        self.softMask = softMask
        self.widthPoints = widthPoints
        self.heightPoints = heightPoints
        self.content = content
    }

    /// The page for `image`, `pixelWidth` × `pixelHeight` pixels as stored, at `resolution`, shown
    /// with `orientation`.
    public init(image: PDFStream, softMask: PDFStream? = nil, pixelWidth: Int, pixelHeight: Int,
        resolution: ImageResolution, orientation: ImageOrientation)
    {
        // To 1/10000 point: far below any device's pixel, and no binary-fraction noise like 172.79999999999998.
        func points(_ value: Double) -> Double { (value * 10_000).rounded() / 10_000 }
        let width = points(Double(pixelWidth) / resolution.x * 72)
        let height = points(Double(pixelHeight) / resolution.y * 72)
        let matrix = orientation.matrix(width: width, height: height)
        var content: [UInt8] = Array("q ".utf8)
        for value in matrix {
            PDFReal.write(value, to: &content)
            content.append(UInt8(ascii: " "))
        }
        content += Array("cm /Im0 Do Q\n".utf8)
        self.init(image: image, softMask: softMask,
            widthPoints: orientation.swapsSides ? height : width,
            heightPoints: orientation.swapsSides ? width : height, content: content)
        self.orientation = orientation
    }
}

extension ImagePage {
    /// The same image shown at `resolution`: a sheet of a known paper size, made that size exactly.
    public func shown(at resolution: ImageResolution) -> ImagePage {
        guard case .integer(let width)? = image.dictionary["Width"], case .integer(let height)? = image.dictionary["Height"] else {
            return self
        }
        var page = ImagePage(image: image, softMask: softMask, pixelWidth: width, pixelHeight: height, resolution: resolution,
                             orientation: orientation)
        page.imageFile = imageFile
        page.colorProfile = colorProfile
        page.notes = notes
        return page
    }

    /// Adds the image (and soft mask) and the content stream to `sink`; returns the page
    /// dictionary, without /Parent: /Type /Page, /MediaBox, /Resources << /XObject << /Im0 ref >> >>,
    /// /Contents ref.
    public func addObjects(to sink: inout some PDFObjectSink) throws -> PDFDictionary {
        let page = try newPage(addingImageTo: &sink)
        let contents = try sink.add(.stream(page.contents))
        return [
            .type: .name("Page"), "MediaBox": .array(page.mediaBox.map(PDFPageTree.number)),
            "Resources": .dictionary(page.resources), "Contents": .reference(contents),
        ]
    }

    /// Adds only the image (and soft mask) to `sink`; returns the page for `PDFPageTree.addPages`.
    public func newPage(addingImageTo sink: inout some PDFObjectSink) throws -> PDFNewPage {
        let resources: PDFDictionary = ["XObject": .dictionary(["Im0": .reference(try addImage(to: &sink))])]
        return PDFNewPage(width: widthPoints, height: heightPoints, resources: resources, content: content)
    }

    /// Adds the image XObject to `sink`, with its soft mask and its ICC profile; returns its reference.
    public func addImage(to sink: inout some PDFObjectSink) throws -> PDFReference {
        var image = self.image
        if let softMask {
            image.dictionary["SMask"] = .reference(try sink.add(.stream(softMask)))
        }
        if let colorProfile, let alternate = image.dictionary["ColorSpace"] {
            var dictionary: PDFDictionary = ["N": .integer(colorProfile.components), "Alternate": alternate]
            dictionary[.filter] = .name("FlateDecode")
            let profile = try sink.add(.stream(PDFStream(dictionary: dictionary, data: colorProfile.compressed)))
            image.dictionary["ColorSpace"] = [.name("ICCBased"), .reference(profile)]
        }
        guard let imageFile else { return try sink.add(.stream(image)) }
        let reference = sink.reserve()
        try sink.set(reference, toStream: image.dictionary, copying: imageFile)
        return reference
    }

    /// A new PDF file holding `pages` in order.
    public static func newDocument(_ pages: [ImagePage], version: String = "1.7") throws -> PDFRevision {
        var revision = PDFRevision(newFileVersion: version)
        let catalog = revision.reserve()
        let root = revision.reserve()
        var kids: [PDFObject] = []
        for page in pages {
            var dictionary = try page.addObjects(to: &revision)
            dictionary["Parent"] = .reference(root)
            kids.append(.reference(revision.add(.dictionary(dictionary))))
        }
        revision.set(root, to: .dictionary([.type: .name("Pages"), .kids: .array(kids), .count: .integer(kids.count)]))
        revision.set(catalog, to: .dictionary([.type: .name("Catalog"), .pages: .reference(root)]))
        revision.root = catalog
        return revision
    }
}

/// An ICC profile checked to describe grey or RGB colours, kept Flate-compressed.
public struct ColorProfile: Sendable {
    /// 1 or 3: the profile's colour space (§8.6.5.5: /N must match it).
    public var components: Int
    public var compressed: [UInt8]

    /// Nil unless `profile` is an ICC profile (its `acsp` signature) for a GRAY or RGB colour space
    /// with `components` components: a profile that does not fit the image is left out rather
    /// than make readers refuse the page.
    public init?(_ profile: [UInt8], components: Int, flate: any FlateCoding) throws {
        guard profile.count >= 128, profile[36..<40].elementsEqual("acsp".utf8) else { return nil }
        let space = String(decoding: profile[16..<20], as: UTF8.self)
        guard (space == "RGB " && components == 3) || (space == "GRAY" && components == 1) else { return nil }
        self.components = components
        self.compressed = try flate.deflate(profile)
    }
}

/// Image dictionaries, spelled once.
enum ImageXObject {
    static func dictionary(width: Int, height: Int, colorSpace: PDFObject, bitsPerComponent: Int) -> PDFDictionary {
        [
            .type: .name("XObject"), "Subtype": .name("Image"), "Width": .integer(width), "Height": .integer(height),
            "ColorSpace": colorSpace, "BitsPerComponent": .integer(bitsPerComponent),
        ]
    }

    /// Samples Flate-compressed, rows packed MSB first.
    static func flate(_ samples: [UInt8], width: Int, height: Int, colorSpace: PDFObject, bitsPerComponent: Int,
        flate: any FlateCoding) throws -> PDFStream
    {
        var dictionary = dictionary(width: width, height: height, colorSpace: colorSpace, bitsPerComponent: bitsPerComponent)
        dictionary[.filter] = .name("FlateDecode")
        return PDFStream(dictionary: dictionary, data: try flate.deflate(samples))
    }

    static func deviceColorSpace(components: Int) -> PDFObject {
        switch components {
        case 1: .name("DeviceGray")
        case 3: .name("DeviceRGB")
        default: .name("DeviceCMYK")
        }
    }
}
