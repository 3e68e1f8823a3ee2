import Scanning
import Testing
import TrapperCore

extension SaneTests {
    @Suite struct Profiles {
        @Test func colorModesMapToTheDevicesWords() throws {
            try SaneTestConfig.withDevice { device in
                let color = try device.setColorMode(.color)
                #expect(color == "Color")
                #expect(try device.get("mode") == .string("Color"))
                // The test backend has no Lineart mode: 1-bit gray stands in.
                let lineart = try device.setColorMode(.lineart)
                #expect(lineart == "Gray")
                #expect(try device.get("depth") == .int(1))
                let gray = try device.setColorMode(.gray)
                #expect(gray == "Gray")
                #expect(try device.get("depth") == .int(8))
            }
        }

        @Test func sourcesMapToTheDevicesWords() throws {
            try SaneTestConfig.withDevice { device in
                let adf = try device.setSource(.adf)
                #expect(adf == "Automatic Document Feeder")
                let flatbed = try device.setSource(.flatbed)
                #expect(flatbed == "Flatbed")
                let named = try device.setSource(.named("automatic document feeder"))
                #expect(named == "Automatic Document Feeder")
                let error = try #require(throws: ScanError.self) { try device.setSource(.adfDuplex) }
                #expect(error.description == #"option source: no adfDuplex source among "Flatbed", "Automatic Document Feeder""#)
            }
        }

        @Test func aProfileIsAppliedInTheDevicesOwnTypes() throws {
            let profile = ScanProfile(
                name: "doc", device: nil, source: .adf, colorMode: .gray, resolution: 150, pageSize: (210, 297),
                jpegQuality: 80,
                options: [("enable-test-options", .boolean(true)), ("fixed", .float(12.5)), ("int", .integer(7)),
                          ("test-picture", .string("grid"))],
                target: nil, ingestMode: .append)
            try SaneTestConfig.withDevice { device in
                let applied = try device.apply(profile)
                #expect(applied == AppliedProfile(source: "Automatic Document Feeder", mode: "Gray", resolution: 150,
                                                  widthMM: 210, heightMM: 297))
                // A fixed-point option holds 12.5 exactly (819200 / 65536), not 12 or 13.
                #expect(try device.get("fixed") == .fixed(12.5))
                #expect(try device.get("int") == .int(7))
                #expect(try device.get("test-picture") == .string("Grid"))
                let frame = try device.parameters()
                #expect(frame.pixelsPerLine == 1240)
                #expect(abs(frame.lines - 1754) <= 1, "\(frame.lines) lines")
                let error = try #require(throws: ScanError.self) {
                    var wrong = profile
                    wrong.options = [("no-such-option", .integer(1))]
                    try device.apply(wrong)
                }
                #expect(error == .noSuchOption("no-such-option"))
            }
        }

        @Test func paddedLinesAreCutToTheirPixels() throws {
            try SaneTestConfig.withDevice { device in
                try device.set("ppl-loss", .int(5))
                try device.set("test-picture", .string("Color pattern"))
                try device.setResolution(50)
                let page = try #require(try device.scanPage())
                device.cancel()
                let (fields, pixels) = Independent.split(page.pnm())
                #expect(fields == ["P5", "\(page.width)", "\(page.height)", "255"])
                #expect(pixels.count == page.width * page.height)
                #expect(try Independent.pillow(page.pnm()).hasPrefix("\(page.width) \(page.height) L"))
                let reference = try Independent.scanimage(["--ppl-loss", "5", "--test-picture", "Color pattern", "--resolution", "50"])
                // scanimage writes the padded lines as they came (more bytes than its header says);
                // cut each to its pixels, and it must match ours.
                #expect(page.bytesPerLine == page.width + 5)
                let raw = Independent.split(reference).pixels
                #expect(raw.count == page.bytesPerLine * page.height)
                let cut = (0..<page.height).flatMap { y in raw[y * page.bytesPerLine..<y * page.bytesPerLine + page.width] }
                #expect(cut == pixels, "differs")
            }
        }
    }
}
