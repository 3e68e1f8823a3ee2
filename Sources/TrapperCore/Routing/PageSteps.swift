/// What happens to each page of an image input or a scan on its way into the target: the keys
/// `deskew`, `orient`, `blank`, `blank_threshold` and `compress` of a rule or a scan profile (and
/// its `jpeg_quality`). Nothing is done that is not asked for; PDF inputs' pages go in as they are.
public struct PageSteps: Sendable, Equatable {
    /// `find_page`: find the sheet of paper in a photo, undo the perspective and crop the rest away
    /// (first of the steps). A picture that is all sheet (a flat scan) is left as it is.
    public var findPage = false
    /// `clean = "auto"`: even out uneven light and shadows and whiten the paper, before the steps below.
    public var clean: CleanMode = .off
    /// Correct skew larger than this many degrees; nil: leave pages as they are.
    public var deskewAbove: Double?
    /// Turn pages found sideways or upside down, with the page's /Rotate (never re-encoding).
    public var orient: Bool
    public var blank: BlankPolicy
    /// A page is blank when less than this fraction of it is ink once scanner noise is cleaned away.
    public var blankThreshold: Double
    public var compress: Compression
    /// `jpeg_quality`: for pages encoded again (deskewed; 85 when nil) and for photos a PDF cannot
    /// hold as they are (HEIC, AVIF, WebP; 90 when nil).
    public var jpegQuality: Int?
    /// Tesseract languages ("eng", "deu"): the pages get a text layer, as a later revision of their
    /// own (capture never waits for OCR). Empty: no OCR.
    public var ocr: [String] = []
    /// Sheets that end one document and start the next: each part of an input or a scan batch
    /// becomes a new file of its own. Nil: an input stays one document.
    public var separator: Separator?
    /// What a PDF input's pages bring that runs code (actions of type JavaScript, Launch, ...):
    /// left out (the default), or kept. `active_content` of the rule, else of `[inbox]`.
    public var activeContent: ActiveContent = .strip

    public static let defaultDeskewThreshold = 0.3
    public static let defaultBlankThreshold = 0.0005

    public init(deskewAbove: Double? = nil, orient: Bool = false, blank: BlankPolicy = .keep,
                blankThreshold: Double = PageSteps.defaultBlankThreshold, compress: Compression = .keep,
                jpegQuality: Int? = nil) {
        self.deskewAbove = deskewAbove
        self.orient = orient
        self.blank = blank
        self.blankThreshold = blankThreshold
        self.compress = compress
        self.jpegQuality = jpegQuality
    }

    /// Whether any step looks at the pixels while the pages go in (OCR comes after).
    public var isEmpty: Bool {
        !findPage && clean == .off && deskewAbove == nil && !orient && blank == .keep
            && (compress == .keep || compress == .lossless) && separator == nil
    }

    /// The quality of a JPEG encoded again after a page step.
    public var reencodingQuality: Int { jpegQuality ?? 85 }

    /// How a decoded photo (HEIC, AVIF, WebP) is stored.
    public var photoEncoding: PhotoEncoding {
        PhotoEncoding(jpegQuality: jpegQuality ?? PhotoEncoding.defaultJPEGQuality, lossless: compress == .lossless)
    }
}

/// `active_content = "strip" | "keep"`.
public enum ActiveContent: String, Sendable, CaseIterable {
    case strip, keep
}

/// `separator = "blank" | "patch-t" | "barcode"`, and for barcodes `separator_prefix`: which sheets
/// split a batch. The separator sheet itself goes into no document.
public struct Separator: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// A page with no ink (by `blank_threshold`); several in a row are one separator.
        case blank
        /// Kodak's patch T: four bars parallel to the sheet's leading edge, narrow-wide-narrow-wide.
        case patchT = "patch-t"
        /// A page with a QR code or a Code 128 barcode whose value starts with the prefix.
        case barcode
    }

    public var kind: Kind
    /// Barcodes only: a value must start with it to count, and `{barcode}` is the rest of the value.
    public var prefix: String

    public init(_ kind: Kind, prefix: String = "") {
        self.kind = kind
        self.prefix = prefix
    }
}

/// `clean = "off" | "auto"`.
public enum CleanMode: String, Sendable, CaseIterable {
    case off, auto
}

public enum BlankPolicy: String, Sendable, CaseIterable {
    case keep, drop
}

public enum Compression: String, Sendable, CaseIterable {
    /// The input's own encoding (a JPEG's bytes go in untouched).
    case keep
    /// Every page thresholded to 1 bit and stored as CCITT G4.
    case bilevel
    /// Bilevel for pages that are text on white, the input's encoding for the others.
    case auto
    /// Nothing lossy added: photos a PDF cannot hold (HEIC, AVIF, WebP) are stored with Flate, not as
    /// JPEG, and a page a step changed is encoded again losslessly.
    case lossless
}

extension TableReader {
    /// eng, deu, chi_sim, script/Latin: what tesseract's data files are named.
    static func isLanguageCode(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 40 && !text.hasPrefix(".") && text.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "/"
        } && !text.contains("..")
    }

    /// The page steps of a rule or a profile; `fallback` for the keys it does not set.
    mutating func pageSteps(_ fallback: PageSteps = PageSteps()) -> PageSteps {
        var steps = fallback
        steps.findPage = bool("find_page") ?? steps.findPage
        steps.clean = table["clean"] == nil ? steps.clean : choice("clean", default: steps.clean)
        if let node = node("deskew") {
            switch node.value {
            case .boolean(let on): steps.deskewAbove = on ? PageSteps.defaultDeskewThreshold : nil
            case .integer, .float:
                steps.deskewAbove = number("deskew", in: 0.01...45, what: "a threshold in degrees")
            default: complain("deskew", node, expected: "true, false or a threshold in degrees (0.3)")
            }
        }
        steps.orient = bool("orient") ?? steps.orient
        steps.blank = table["blank"] == nil ? steps.blank : choice("blank", default: steps.blank)
        if table["blank_threshold"] != nil {
            steps.blankThreshold = number("blank_threshold", in: 0...0.5, what: "a fraction of the page") ?? steps.blankThreshold
        }
        steps.compress = table["compress"] == nil ? steps.compress : choice("compress", default: steps.compress)
        if table["separator"] != nil {
            steps.separator = Separator(choice("separator", default: Separator.Kind.blank))
        }
        if let prefix = string("separator_prefix") {
            if steps.separator?.kind == .barcode {
                steps.separator?.prefix = prefix.value
            } else {
                log.add("\(qualified("separator_prefix")) applies only when separator = \"barcode\"", at: prefix.location)
            }
        }
        if let node = table["ocr"] {
            var languages: [(value: String, location: SourceLocation)]?
            if case .string = node.value { languages = string("ocr").map { [$0] } } else { languages = strings("ocr") }
            for language in languages ?? [] where !Self.isLanguageCode(language.value) {
                log.add("\(qualified("ocr")): \"\(language.value)\" is not a tesseract language code such as \"eng\" or "
                        + "\"deu\"", at: language.location)
            }
            steps.ocr = (languages ?? []).map(\.value)
        }
        return steps
    }
}
