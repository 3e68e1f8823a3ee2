/// Builds a content stream's operators as text (§8.2): each call appends one operator with its
/// operands, numbers written the way PDF reads them.
public struct ContentStream: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    /// Appends operands and an operator: `add([1, 0, 0], "rg")` writes `1 0 0 rg`.
    public mutating func add(_ operands: [Double], _ op: String) {
        for operand in operands { number(operand) }
        bytes += Array(op.utf8)
        bytes.append(0x0A)
    }

    /// One operand and the space after it, to a thousandth of a point.
    private mutating func number(_ value: Double) {
        PDFReal.write((value * 1000).rounded() / 1000, to: &bytes)
        bytes.append(0x20)
    }

    public mutating func raw(_ text: String) { bytes += Array((text + "\n").utf8) }

    public mutating func fill(_ color: RGBColor) { add([color.red, color.green, color.blue], "rg") }
    public mutating func stroke(_ color: RGBColor) { add([color.red, color.green, color.blue], "RG") }

    public mutating func rect(_ rect: Rect) { add([rect.x0, rect.y0, rect.width, rect.height], "re") }
    // A point at a time, without the operand list `add` takes: an ink drawing has a million of them.
    public mutating func move(_ point: Point) { self.point(point, UInt8(ascii: "m")) }
    public mutating func line(_ point: Point) { self.point(point, UInt8(ascii: "l")) }

    private mutating func point(_ point: Point, _ op: UInt8) {
        number(point.x)
        number(point.y)
        bytes.append(op)
        bytes.append(0x0A)
    }

    /// A polyline through the points (a lone point becomes a dot of the pen's width).
    public mutating func polyline(_ points: [Point]) {
        guard let first = points.first else { return }
        move(first)
        if points.count == 1 { line(first) }
        for point in points.dropFirst() { line(point) }
    }

    /// An ellipse inscribed in `rect`, as four Bézier curves.
    public mutating func ellipse(in rect: Rect) {
        let k = 0.5523
        let (cx, cy) = ((rect.x0 + rect.x1) / 2, (rect.y0 + rect.y1) / 2)
        let (rx, ry) = (rect.width / 2, rect.height / 2)
        move(Point(cx + rx, cy))
        add([cx + rx, cy + k * ry, cx + k * rx, cy + ry, cx, cy + ry], "c")
        add([cx - k * rx, cy + ry, cx - rx, cy + k * ry, cx - rx, cy], "c")
        add([cx - rx, cy - k * ry, cx - k * rx, cy - ry, cx, cy - ry], "c")
        add([cx + k * rx, cy - ry, cx + rx, cy - k * ry, cx + rx, cy], "c")
        raw("h")
    }

    /// A string operand in hex, so no byte needs escaping, and an operator: `<48656C6C6F> Tj`.
    public mutating func show(_ encoded: [UInt8], _ op: String = "Tj") {
        let hex = Array("0123456789ABCDEF".utf8)
        bytes.append(UInt8(ascii: "<"))
        for byte in encoded { bytes += [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]] }
        bytes += Array("> \(op)\n".utf8)
    }
}
