import CWebP
import System
import TrapperCore

/// libwebp's decoder and demuxer, opened when the first WebP is read.
enum WebP {
    static let decoder = SharedLibrary.open("libwebp.so.7", for: "WebP pictures") { trapper_webp_load($0, $1) }
    static let demuxer = SharedLibrary.open("libwebpdemux.so.2", for: "WebP pictures") { trapper_webpdemux_load($0, $1) }
}

/// A still WebP picture, through libwebp: opening reads its header (size, alpha, lossy or lossless)
/// and checks the size against the limits; `decode` decodes it, with the orientation and density of
/// its EXIF chunk (in a WebP, unlike a HEIF, that orientation is how to show the picture) and the
/// profile of its ICCP chunk.
struct WebPPhoto {
    let width: Int
    let height: Int
    let hasAlpha: Bool
    let lossless: Bool
    private let bytes: [UInt8]

    init(_ bytes: [UInt8], limits: ImageLimits) throws {
        let webp = try WebP.decoder.get()
        var features = WebPBitstreamFeatures()
        let status = webp.WebPGetFeaturesInternal(bytes, bytes.count, &features, WEBP_DECODER_ABI_VERSION)
        guard status == VP8_STATUS_OK else { throw Self.error(status) }
        guard features.has_animation == 0 else {
            throw ImageInputError.unsupported(.webp, "an animation; a page is one still picture")
        }
        try limits.check(width: Int(features.width), height: Int(features.height), format: .webp)
        self.bytes = bytes
        width = Int(features.width)
        height = Int(features.height)
        hasAlpha = features.has_alpha != 0
        lossless = features.format == 2
    }

    func decode() throws -> DecodedPhoto {
        let webp = try WebP.decoder.get()
        let channels = hasAlpha ? 4 : 3
        var plane = [UInt8](repeating: 0, count: width * height * channels)
        let decoded = plane.withUnsafeMutableBufferPointer { output in
            hasAlpha ? webp.WebPDecodeRGBAInto(bytes, bytes.count, output.baseAddress, output.count, Int32(width * 4))
                : webp.WebPDecodeRGBInto(bytes, bytes.count, output.baseAddress, output.count, Int32(width * 3))
        }
        // The header and the RIFF size were whole (ImageFiles checks them): the picture data is damaged.
        guard decoded != nil else { throw ImageInputError.decodeFailed(.webp, "libwebp could not decode the picture data") }
        // RGB is decoded straight into the raster's samples; RGBA is split into colour and alpha.
        let (color, alpha) = hasAlpha ? plane.withUnsafeBufferPointer {
            PhotoSamples.split($0.baseAddress!, width: width, height: height, stride: width * 4, hasAlpha: true, premultiplied: false)
        } : (Raster(width: width, height: height, channels: 3, depth: 8, bytesPerLine: width * 3, samples: plane), nil)
        let chunks = try Self.chunks(bytes, ["EXIF", "ICCP"])
        var exif = (resolution: ImageResolution?.none, orientation: Int?.none)
        if var block = chunks["EXIF"] {
            // Some writers keep JPEG's "Exif\0\0" in front of the TIFF structure.
            if block.starts(with: Array("Exif\0\0".utf8)) { block.removeFirst(6) }
            exif = JPEGFile.exif(block[...])
        }
        return DecodedPhoto(format: .webp, color: color, alpha: alpha, iccProfile: chunks["ICCP"], resolution: exif.resolution,
                            orientation: ImageOrientation(tag: exif.orientation), lossless: lossless)
    }

    /// The first chunk of each kind that the file has, through libwebp's demuxer.
    private static func chunks(_ bytes: [UInt8], _ kinds: [String]) throws -> [String: [UInt8]] {
        let demux = try WebP.demuxer.get()
        return bytes.withUnsafeBufferPointer { buffer in
            var data = WebPData(bytes: buffer.baseAddress, size: buffer.count)
            guard let demuxer = demux.WebPDemuxInternal(&data, 0, nil, WEBP_DEMUX_ABI_VERSION) else { return [:] }
            defer { demux.WebPDemuxDelete(demuxer) }
            var found: [String: [UInt8]] = [:]
            for kind in kinds {
                var iterator = WebPChunkIterator()
                if demux.WebPDemuxGetChunk(demuxer, kind, 1, &iterator) != 0, let start = iterator.chunk.bytes {
                    found[kind] = Array(UnsafeBufferPointer(start: start, count: iterator.chunk.size))
                }
                demux.WebPDemuxReleaseChunkIterator(&iterator)
            }
            return found
        }
    }

    private static func error(_ status: VP8StatusCode) -> ImageInputError {
        switch status {
        case VP8_STATUS_NOT_ENOUGH_DATA: .truncated(.webp, "the picture data ends early")
        case VP8_STATUS_UNSUPPORTED_FEATURE: .unsupported(.webp, "a feature libwebp does not decode")
        case VP8_STATUS_OUT_OF_MEMORY: .decodeFailed(.webp, "out of memory")
        default: .corrupt(.webp, "libwebp finds the bitstream invalid (status \(status.rawValue))")
        }
    }
}
