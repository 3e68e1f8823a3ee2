/// Where in the work an error happened: names the operation's step, as pdfcpu's errors do.
public enum PDFStep: String, Sendable {
    case lexing = "lex"
    case parsingObject = "parse object"
    case readingFile = "read file"
    case findingHeader = "find %PDF header"
    case findingStartxref = "find startxref"
    case readingXrefTable = "read xref table"
    case readingXrefStream = "read xref stream"
    case readingTrailer = "read trailer"
    case resolvingObject = "resolve object"
    case readingObjectStream = "read object stream"
    case decodingStream = "decode stream"
    case readingPageTree = "read page tree"
}

/// Everything reading a PDF can go wrong with: a closed set, each case carrying the step and the
/// byte offset (from the start of the file) where it was noticed.
public enum PDFError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Bytes that are not PDF syntax where syntax was expected.
    case syntax(PDFStep, offset: Int, String)
    /// Arrays/dictionaries nested deeper than the parser's limit.
    case tooDeep(PDFStep, offset: Int)
    /// The file's structure is broken (no %%EOF, startxref pointing nowhere, bad xref entries):
    /// appending would be blind; the caller should repair (full rewrite) first.
    case damaged(PDFStep, offset: Int, String)
    /// The trailer has /Encrypt: refuse, appending plain objects would corrupt the document.
    case encrypted(offset: Int)
    /// A stream uses a filter the injected decoder does not handle.
    case unsupportedFilter(PDFStep, offset: Int, String)
    /// Reading the underlying file failed.
    case io(PDFStep, offset: Int, String)

    public var step: PDFStep {
        switch self {
        case .syntax(let step, _, _), .tooDeep(let step, _), .damaged(let step, _, _),
            .unsupportedFilter(let step, _, _), .io(let step, _, _):
            return step
        case .encrypted:
            return .readingTrailer
        }
    }

    public var offset: Int {
        switch self {
        case .syntax(_, let offset, _), .tooDeep(_, let offset), .damaged(_, let offset, _),
            .encrypted(let offset), .unsupportedFilter(_, let offset, _), .io(_, let offset, _):
            return offset
        }
    }

    /// True when a full rewrite (qpdf's repair) is the way forward rather than a refusal.
    public var needsRepair: Bool {
        switch self {
        case .syntax, .tooDeep, .damaged: return true
        case .encrypted, .unsupportedFilter, .io: return false
        }
    }

    public var description: String {
        switch self {
        case .syntax(let step, let offset, let message): return "\(step.rawValue): at byte \(offset): \(message)"
        case .tooDeep(let step, let offset): return "\(step.rawValue): at byte \(offset): nested too deeply"
        case .damaged(let step, let offset, let message):
            return "\(step.rawValue): at byte \(offset): damaged: \(message)"
        case .encrypted(let offset): return "read trailer: at byte \(offset): encrypted (/Encrypt present)"
        case .unsupportedFilter(let step, let offset, let filter):
            return "\(step.rawValue): at byte \(offset): unsupported filter \(filter)"
        case .io(let step, let offset, let message): return "\(step.rawValue): at byte \(offset): \(message)"
        }
    }
}
