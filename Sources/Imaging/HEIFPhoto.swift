import CHeif
import System
import TrapperCore

/// libheif's functions (`heif.heif_decode_image(...)`), opened when the first HEIC or AVIF photo is read.
enum Heif {
    static let library = SharedLibrary.open("libheif.so.1", for: "HEIC and AVIF photos") { trapper_heif_load($0, $1) }
        .map { heif in
            // Loads libheif's codec plugins; the decoders Debian builds in work without it.
            _ = heif.heif_init(nil)
            return heif
        }

    static func functions() throws(SharedLibrary.Failure) -> trapper_heif { try library.get() }
}

/// The primary image of a HEIC or AVIF file, through libheif: not its thumbnails, not the other
/// images of a burst or a sequence. Opening reads the file's boxes only and checks the image's
/// size against the limits; `decode` decodes it, upright (libheif applies the irot and imir
/// transforms; an EXIF orientation in a HEIF file describes the coded image before them, so it is
/// not applied again), at 8 bits per sample.
struct HEIFPhoto {
    let format: ImageFormat
    let width: Int
    let height: Int
    private let bytes: [UInt8]

    init(_ bytes: [UInt8], format: ImageFormat, limits: ImageLimits) throws {
        self.bytes = bytes
        self.format = format
        (width, height) = try Self.withPrimaryImage(bytes, format: format) { heif, handle in
            (Int(heif.heif_image_handle_get_width(handle)), Int(heif.heif_image_handle_get_height(handle)))
        }
        try limits.check(width: width, height: height, format: format)
    }

    func decode() throws -> DecodedPhoto {
        try Self.withPrimaryImage(bytes, format: format) { heif, handle in
            let hasAlpha = heif.heif_image_handle_has_alpha_channel(handle) != 0
            let options = heif.heif_decoding_options_alloc()
            defer { heif.heif_decoding_options_free(options) }
            options?.pointee.convert_hdr_to_8bit = 1
            var decoded: OpaquePointer? = nil
            try Self.check(heif.heif_decode_image(handle, &decoded, heif_colorspace_RGB,
                                             hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, options),
                      format: format)
            guard let decoded else { throw ImageInputError.decodeFailed(format, "libheif returned no image") }
            defer { heif.heif_image_release(decoded) }
            var stride: Int32 = 0
            guard let plane = heif.heif_image_get_plane_readonly(decoded, heif_channel_interleaved, &stride) else {
                throw ImageInputError.decodeFailed(format, "libheif returned no interleaved plane")
            }
            let (width, height) = (Int(heif.heif_image_get_width(decoded, heif_channel_interleaved)),
                                   Int(heif.heif_image_get_height(decoded, heif_channel_interleaved)))
            let (color, alpha) = PhotoSamples.split(plane, width: width, height: height, stride: Int(stride), hasAlpha: hasAlpha,
                                                    premultiplied: heif.heif_image_handle_is_premultiplied_alpha(handle) != 0)
            let bits = Int(heif.heif_image_handle_get_luma_bits_per_pixel(handle))
            return DecodedPhoto(format: format, color: color, alpha: alpha, iccProfile: Self.iccProfile(heif, handle),
                                resolution: Self.exifResolution(heif, handle), orientation: .up, sourceBits: max(8, bits))
        }
    }

    /// Runs `body` on the file's primary image; libheif's context lives only this long.
    private static func withPrimaryImage<T>(_ bytes: [UInt8], format: ImageFormat,
                                            _ body: (trapper_heif, OpaquePointer) throws -> T) throws -> T {
        let heif = try Heif.functions()
        guard let context = heif.heif_context_alloc() else { throw ImageInputError.decodeFailed(format, "libheif is out of memory") }
        defer { heif.heif_context_free(context) }
        return try bytes.withUnsafeBytes { raw in
            try check(heif.heif_context_read_from_memory_without_copy(context, raw.baseAddress, raw.count, nil), format: format)
            var handle: OpaquePointer? = nil
            try check(heif.heif_context_get_primary_image_handle(context, &handle), format: format)
            guard let handle else { throw ImageInputError.corrupt(format, "no primary image") }
            defer { heif.heif_image_handle_release(handle) }
            return try body(heif, handle)
        }
    }

    /// libheif's errors in the words of the input errors. The file's boxes were checked whole
    /// before (`Completeness`), so data that ends early inside them is a corrupt file, and the
    /// decoder running out of picture data is the decoder failing, not a file cut short.
    private static func check(_ error: heif_error, format: ImageFormat) throws {
        guard error.code != heif_error_Ok else { return }
        let message = error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)"
        switch error.code {
        case heif_error_Decoder_plugin_error, heif_error_Memory_allocation_error: throw ImageInputError.decodeFailed(format, message)
        case heif_error_Unsupported_filetype, heif_error_Unsupported_feature: throw ImageInputError.unsupported(format, message)
        default: throw ImageInputError.corrupt(format, message)
        }
    }

    /// An embedded ICC profile (`prof` or `rICC`); an nclx description is not a profile.
    private static func iccProfile(_ heif: trapper_heif, _ handle: OpaquePointer) -> [UInt8]? {
        let type = heif.heif_image_handle_get_color_profile_type(handle)
        guard type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC else { return nil }
        let size = heif.heif_image_handle_get_raw_color_profile_size(handle)
        guard size > 0 else { return nil }
        var profile = [UInt8](repeating: 0, count: size)
        let error = profile.withUnsafeMutableBytes { heif.heif_image_handle_get_raw_color_profile(handle, $0.baseAddress) }
        return error.code == heif_error_Ok ? profile : nil
    }

    /// The density an `Exif` item states. The item starts with the offset of its TIFF header.
    private static func exifResolution(_ heif: trapper_heif, _ handle: OpaquePointer) -> ImageResolution? {
        let count = Int(heif.heif_image_handle_get_number_of_metadata_blocks(handle, "Exif"))
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: count)
        _ = heif.heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &ids, Int32(count))
        let size = heif.heif_image_handle_get_metadata_size(handle, ids[0])
        guard size > 4 else { return nil }
        var data = [UInt8](repeating: 0, count: size)
        guard data.withUnsafeMutableBytes({ heif.heif_image_handle_get_metadata(handle, ids[0], $0.baseAddress) }).code == heif_error_Ok
        else { return nil }
        let offset = data[0..<4].reduce(0) { $0 << 8 | Int($1) }
        guard offset < size - 4 else { return nil }
        return JPEGFile.exif(data[(4 + offset)...]).resolution
    }
}

/// Interleaved samples from a decoder, split into 8-bit RGB and alpha.
enum PhotoSamples {
    static func split(_ plane: UnsafePointer<UInt8>, width: Int, height: Int, stride: Int, hasAlpha: Bool,
                      premultiplied: Bool) -> (Raster, [UInt8]?) {
        let channels = hasAlpha ? 4 : 3
        var color = [UInt8](repeating: 0, count: width * height * 3)
        var alpha = hasAlpha ? [UInt8](repeating: 0, count: width * height) : nil
        color.withUnsafeMutableBufferPointer { color in
            for y in 0..<height {
                let row = plane + y * stride
                if !hasAlpha {
                    (color.baseAddress! + y * width * 3).update(from: row, count: width * 3)
                    continue
                }
                for x in 0..<width {
                    let pixel = row + x * channels
                    let a = pixel[3]
                    for c in 0..<3 {
                        var value = pixel[c]
                        // Premultiplied colour divided back out, so the soft mask does not darken it twice.
                        if premultiplied, a != 0, a != 255 { value = UInt8(min(255, (Int(value) * 255 + Int(a) / 2) / Int(a))) }
                        color[(y * width + x) * 3 + c] = value
                    }
                    alpha![y * width + x] = a
                }
            }
        }
        return (Raster(width: width, height: height, channels: 3, depth: 8, bytesPerLine: width * 3, samples: color), alpha)
    }
}
