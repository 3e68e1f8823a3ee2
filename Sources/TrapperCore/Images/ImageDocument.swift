/// An image file, page by page, so that only one page's data is held at a time.
public protocol ImageDocument {
    var format: ImageFormat { get }
    var pageCount: Int { get }
    func page(_ index: Int) throws -> ImagePage
}

/// A file with exactly one image, built once on request.
public struct SingleImageDocument: ImageDocument {
    public let format: ImageFormat
    private let build: () throws -> ImagePage

    public init(format: ImageFormat, build: @escaping () throws -> ImagePage) {
        self.format = format
        self.build = build
    }

    public var pageCount: Int { 1 }

    public func page(_ index: Int) throws -> ImagePage {
        guard index == 0 else { throw ImageInputError.noSuchPage(index, count: 1) }
        return try build()
    }
}
