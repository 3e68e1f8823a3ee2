/// The form of a cross-reference section (§7.5.4 table, §7.5.8 stream). An update chains to the
/// previous section in the same form.
public enum PDFXrefForm: Sendable, Equatable {
    case table
    case stream
}

/// Where one object lives, per a cross-reference section.
public enum PDFXrefEntry: Sendable, Equatable {
    case free(nextFree: Int, generation: Int)
    /// `offset` as written in the file: relative to the `%PDF` header.
    case inFile(offset: Int, generation: Int)
    case inObjectStream(streamNumber: Int, index: Int)
}
