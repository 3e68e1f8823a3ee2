import Foundation
import Glibc

/// Phone photos for tests, made at test time by the formats' own encoders: HEIC and AVIF by libheif's
/// encoder through `heif-make` (Tests/Fixtures/heif-make/heif-make.c, built with cc once per test
/// process: heif-enc cannot write an irot/imir orientation, a thumbnail or a second image), 10-bit
/// AVIF by libavif's `avifenc` (libheif 1.15's aom plugin fails an assertion on 10-bit input), WebP
/// by `cwebp`, its EXIF and ICC chunks by `webpmux`. Sources are PAM files (8-bit RGB or RGB_ALPHA,
/// as `pam(img, path)` writes them) or PNGs.
public enum PhotoMaker {
    /// Runs `heif-make` with `arguments` (see its source for the options); throws with its output on failure.
    public static func heif(_ arguments: [String]) throws {
        let tool = try built.get()
        let run = try TinySane.execute(tool.path, arguments, environment: [:], in: nil)
        guard run.status == 0 else { throw MakerError.failed(command: "heif-make " + arguments.joined(separator: " "), output: run.stderr) }
    }

    /// Runs one of the encoders' own tools (`cwebp`, `webpmux`, `avifenc`, `heif-convert`, `dwebp`).
    public static func tool(_ name: String, _ arguments: [String]) throws {
        let run = try TinySane.execute(try TinySane.tool(name), arguments, environment: [:], in: nil)
        guard run.status == 0 else { throw MakerError.failed(command: ([name] + arguments).joined(separator: " "), output: run.stderr) }
    }

    /// TestImages' pattern, `width` × `height`, as the HEIC, AVIF or WebP photo `path`'s extension says.
    public static func make(_ path: String, width: Int = 300, height: Int = 400, quality: Int = 90) throws {
        let png = path + ".source.png"
        defer { unlink(png) }
        try TestImages.make(png, width: width, height: height)
        try encode(png, to: path, quality: quality)
    }

    /// The picture `source` (any file Pillow reads, as RGB) as the HEIC, AVIF or WebP photo `path`'s
    /// extension says; with `dpi`, an EXIF density says its size (phones say 72, or nothing).
    public static func encode(_ source: String, to path: String, quality: Int = 90, dpi: Int? = nil) throws {
        let pam = path + ".source.pam", png = path + ".source.png", exif = path + ".exif"
        defer { unlink(png); unlink(pam); unlink(exif) }
        _ = try Python.run("""
            import sys
            from PIL import Image
            img = Image.open(sys.argv[1]).convert("RGB")
            img.save(sys.argv[2])
            open(sys.argv[3], "wb").write(f"P7\\nWIDTH {img.width}\\nHEIGHT {img.height}\\nDEPTH 3\\nMAXVAL 255\\nTUPLTYPE RGB\\nENDHDR\\n".encode() + img.tobytes())
            if len(sys.argv) > 5:
                ex = Image.Exif(); ex[0x011A] = ex[0x011B] = int(sys.argv[5]); ex[0x0128] = 2
                open(sys.argv[4], "wb").write(ex.tobytes())
            """, [source, png, pam, exif] + (dpi.map { ["\($0)"] } ?? []))
        switch (path as NSString).pathExtension {
        case "webp":
            try tool("cwebp", ["-quiet", "-q", "\(quality)", png, "-o", dpi == nil ? path : png + ".webp"])
            if dpi != nil {
                try tool("webpmux", ["-set", "exif", exif, png + ".webp", "-o", path])
                unlink(png + ".webp")
            }
        case let kind:
            try heif((kind == "avif" ? ["--avif"] : []) + ["--quality", "\(quality)"] + (dpi.map { ["--dpi", "\($0)"] } ?? [])
                     + [pam, path])
        }
    }

    /// The ICC profiles Ghostscript installs (sRGB and Adobe RGB 1998): real profiles to embed.
    public static let iccFolder = "/usr/share/color/icc/ghostscript"

    public enum MakerError: Error, CustomStringConvertible {
        case failed(command: String, output: String)

        public var description: String {
            switch self {
            case .failed(let command, let output): "\(command) failed:\n\(output)"
            }
        }
    }

    public static let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/heif-make/heif-make.c")

    private static let built = Result<URL, MakerError> { () throws(MakerError) -> URL in
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("pdftrapper-heif-make-\(getpid())")
        let file = folder.appendingPathComponent("heif-make")
        let partial = folder.appendingPathComponent("heif-make.part")
        let arguments = ["-std=c11", "-Wall", "-Wextra", "-O2", "-o", partial.path, source.path, "-lheif"]
        let command = (["cc"] + arguments).joined(separator: " ")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let run = try TinySane.execute(try TinySane.tool("cc"), arguments, environment: [:], in: nil)
            guard run.status == 0 else { throw MakerError.failed(command: command, output: run.stderr) }
            guard rename(partial.path, file.path) == 0 else {
                throw MakerError.failed(command: command, output: "rename: \(String(cString: strerror(errno)))")
            }
            return file
        } catch let error as MakerError {
            throw error
        } catch {
            throw MakerError.failed(command: command, output: "\(error)")
        }
    }
}

/// Phone photos of a page on a table (Tests/Fixtures/photo-scenes/scene.py): a rendered page warped
/// in perspective by ImageMagick onto a textured table, with a shadow and uneven light. The page as
/// drawn is beside the photo, at `path + ".page.png"`.
public enum PhotoScenes {
    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/photo-scenes/scene.py").path

    /// `spec` as scene.py takes it (`paper`, `angle`, `tilt`, `size`, `table`, `shadow`, `sheet`,
    /// `flat`); returns the sheet's corners in the photo.
    @discardableResult
    public static func make(_ path: String, _ spec: [String: Any]) throws -> [[Double]] {
        let json = String(decoding: try JSONSerialization.data(withJSONObject: spec), as: UTF8.self)
        let output = try PDFReaders.succeeded("python3", [script, path, json], hint: "apt-get install imagemagick").text
        let answer = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
        return answer?["corners"] as? [[Double]] ?? []
    }
}
