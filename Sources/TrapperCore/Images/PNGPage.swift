/// A PNG as a page, img2pdf's way: non-interlaced 1–8-bit grey, RGB and palette images keep
/// their IDAT data unchanged behind /FlateDecode with PNG predictors; palettes become /Indexed;
/// alpha (an alpha channel or tRNS) becomes an /SMask; 16-bit and interlaced images are
/// decoded and Flate-compressed again, losslessly (16 bits stay 16 bits).
extension PNGFile {
    public static func page(_ bytes: [UInt8], limits: ImageLimits = ImageLimits(), flate: any FlateCoding) throws
        -> ImagePage
    {
        let png = try PNGFile(bytes, limits: limits)
        let colorComponents = png.colorType == 2 || png.colorType == 6 ? 3 : 1
        let colorSpace: PDFObject
        if png.colorType == 3, let palette = png.palette {
            colorSpace = [.name("Indexed"), .name("DeviceRGB"), .integer(palette.count / 3 - 1),
                .string(PDFString(bytes: palette, form: .hex))]
        } else {
            colorSpace = ImageXObject.deviceColorSpace(components: colorComponents)
        }
        let passThrough = !png.interlaced && png.bitDepth <= 8 && [0, 2, 3].contains(png.colorType)
        // Decoded samples, only when something needs them.
        let samples: [UInt8]? = passThrough && png.transparency == nil ? nil : try PNGDecoder.decode(png, flate: flate)
        if samples == nil { try PNGDecoder.validate(png, flate: flate) }

        var image: PDFStream
        var softMask: [UInt8]? = nil
        var maskBits = 8
        if passThrough {
            var dictionary = ImageXObject.dictionary(width: png.width, height: png.height, colorSpace: colorSpace,
                bitsPerComponent: png.bitDepth)
            dictionary[.filter] = .name("FlateDecode")
            dictionary["DecodeParms"] = .dictionary([
                "Predictor": 15, "Colors": .integer(colorComponents), "BitsPerComponent": .integer(png.bitDepth),
                "Columns": .integer(png.width),
            ])
            image = PDFStream(dictionary: dictionary, data: png.idat)
        } else if png.colorType == 4 || png.colorType == 6, let samples {
            let (color, alpha) = split(samples, colorComponents: colorComponents, bytesPerSample: png.bitDepth / 8)
            image = try ImageXObject.flate(color, width: png.width, height: png.height, colorSpace: colorSpace,
                bitsPerComponent: png.bitDepth, flate: flate)
            softMask = alpha
            maskBits = png.bitDepth
        } else {
            image = try ImageXObject.flate(samples ?? [], width: png.width, height: png.height, colorSpace: colorSpace,
                bitsPerComponent: png.bitDepth, flate: flate)
        }
        if let transparency = png.transparency, let samples, png.colorType <= 3 {
            softMask = colorKeyMask(png, samples: samples, transparency: transparency)
        }
        // A mask that hides nothing is left out: many PNGs carry an alpha channel that is all opaque.
        let mask = try softMask.flatMap { alpha -> PDFStream? in
            guard alpha.contains(where: { $0 != 0xFF }) else { return nil }
            return try ImageXObject.flate(alpha, width: png.width, height: png.height, colorSpace: .name("DeviceGray"),
                bitsPerComponent: maskBits, flate: flate)
        }
        let dpi = ImageResolution(x: limits.defaultDPI, y: limits.defaultDPI)
        return ImagePage(image: image, softMask: mask, pixelWidth: png.width, pixelHeight: png.height,
            resolution: png.resolution ?? dpi, orientation: .up)
    }

    /// Separates interleaved color + alpha samples.
    static func split(_ samples: [UInt8], colorComponents: Int, bytesPerSample: Int) -> (color: [UInt8], alpha: [UInt8]) {
        let pixelBytes = (colorComponents + 1) * bytesPerSample
        let colorBytes = colorComponents * bytesPerSample
        let pixels = samples.count / pixelBytes
        var color = [UInt8](repeating: 0, count: pixels * colorBytes)
        var alpha = [UInt8](repeating: 0, count: pixels * bytesPerSample)
        samples.withUnsafeBufferPointer { input in
            color.withUnsafeMutableBufferPointer { color in
                alpha.withUnsafeMutableBufferPointer { alpha in
                    for pixel in 0..<pixels {
                        let from = pixel * pixelBytes
                        for byte in 0..<colorBytes { color[pixel * colorBytes + byte] = input[from + byte] }
                        for byte in 0..<bytesPerSample {
                            alpha[pixel * bytesPerSample + byte] = input[from + colorBytes + byte]
                        }
                    }
                }
            }
        }
        return (color, alpha)
    }

    /// 8-bit alpha from tRNS: per palette entry, or 0 where a grey/RGB pixel equals the key.
    static func colorKeyMask(_ png: PNGFile, samples: [UInt8], transparency: [UInt8]) -> [UInt8] {
        let stride = PNGDecoder.rowBytes(width: png.width, bitsPerPixel: png.channels * png.bitDepth)
        var alpha = [UInt8](repeating: 0xFF, count: png.width * png.height)
        let key: [Int] = keyValues(transparency)
        for y in 0..<png.height {
            for x in 0..<png.width {
                let index = y * png.width + x
                switch png.colorType {
                case 3:
                    let entry = PNGDecoder.sample(samples, rowOffset: y * stride, index: x, bits: png.bitDepth)
                    if entry < transparency.count { alpha[index] = transparency[entry] }
                case 0:
                    let value = PNGDecoder.sample(samples, rowOffset: y * stride, index: x, bits: png.bitDepth)
                    if key.count >= 1, value == key[0] { alpha[index] = 0 }
                default:
                    guard key.count >= 3 else { continue }
                    let r = PNGDecoder.sample(samples, rowOffset: y * stride, index: 3 * x, bits: png.bitDepth)
                    let g = PNGDecoder.sample(samples, rowOffset: y * stride, index: 3 * x + 1, bits: png.bitDepth)
                    let b = PNGDecoder.sample(samples, rowOffset: y * stride, index: 3 * x + 2, bits: png.bitDepth)
                    if r == key[0], g == key[1], b == key[2] { alpha[index] = 0 }
                }
            }
        }
        return alpha
    }

    /// tRNS for grey and RGB: 16-bit big-endian values.
    private static func keyValues(_ bytes: [UInt8]) -> [Int] {
        stride(from: 0, to: bytes.count - 1, by: 2).map { Int(bytes[$0]) << 8 | Int(bytes[$0 + 1]) }
    }
}
