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
