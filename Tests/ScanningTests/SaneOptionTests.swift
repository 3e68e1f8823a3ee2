import Scanning
import Testing

extension SaneTests {
    @Suite struct Options {
        @Test func modeResolutionSourceAndGeometryAreDescribed() throws {
            try SaneTestConfig.withDevice { device in
                let options = device.options()
                let mode = try #require(options.first { $0.name == "mode" })
                #expect(mode.type == .string)
                #expect(mode.constraint == .strings(["Gray", "Color"]))
                #expect(device.modes == ["Gray", "Color"])

                // The test backend's resolution is fixed-point, 1…1200 dpi in steps of 1.
                let resolution = try device.option("resolution")
                #expect(resolution.type == .fixed)
                #expect(resolution.unit == .dpi)
                #expect(resolution.constraint == .range(min: 1, max: 1200, quant: 1))
                #expect(device.resolutions == resolution.constraint)
                // (Its default reads as 50/65536: the backend stores a plain 50 in a fixed option.)
                #expect(try device.set("resolution", .int(300)).value == .fixed(300))

                #expect(device.sources == ["Flatbed", "Automatic Document Feeder"])
                let tlx = try device.option("tl-x")
                #expect(tlx.type == .fixed && tlx.unit == .mm)
                #expect(tlx.constraint == .range(min: 0, max: 300, quant: 1))

                let depth = try device.option("depth")
                #expect(depth.type == .int && depth.constraint == .words([1, 8, 16]))
                #expect(options.contains { $0.type == .group })
                #expect(try device.option("three-pass").isActive == false)
            }
        }

        @Test func fixedRangeAndListsAreUnfixed() throws {
            try SaneTestConfig.withDevice { device in
                try device.set("enable-test-options", .bool(true))
                let range = try device.option("fixed-constraint-range")
                guard case .range(let low, let high, let quant) = range.constraint else {
                    Issue.record("not a range: \(range.constraint)"); return
                }
                #expect(abs(low - -42.17) < 1 / 65536.0)
                #expect(abs(high - 32767.9999) < 1 / 65536.0)
                #expect(quant == 2)
                #expect(range.unit == .microsecond)
                guard case .words(let words) = try device.option("fixed-constraint-word-list").constraint else {
                    Issue.record("not a word list"); return
                }
                #expect(zip(words, [-32.7, 12.1, 42, 129.5]).allSatisfy { abs($0 - $1) < 1 / 65536.0 }, "\(words)")
            }
        }

        @Test func fractionalFixedValuesReadBackWithinQuant() throws {
            try SaneTestConfig.withDevice { device in
                try device.set("enable-test-options", .bool(true))
                // No constraint: exact to the 1/65536 step.
                let free = try device.set("fixed", .fixed(3.14159))
                #expect(abs((free.value?.number ?? 0) - 3.14159) <= 1 / 65536.0, "\(String(describing: free.value))")
                // Range with quant 2 from -42.17: the device snaps to the nearest step and says so.
                let snapped = try device.set("fixed-constraint-range", .fixed(50.5))
                let back = try #require(snapped.value?.number)
                #expect(abs(back - 50.5) <= 1.0, "\(back)")
                #expect(abs((back + 42.17).truncatingRemainder(dividingBy: 2)) < 0.001 || abs((back + 42.17).truncatingRemainder(dividingBy: 2) - 2) < 0.001)
                #expect(try device.get("fixed-constraint-range") == snapped.value)
                // An area edge with quant 1 mm.
                let edge = try device.set("br-x", .fixed(100.4))
                #expect(abs((edge.value?.number ?? 0) - 100.4) <= 1.0)
            }
        }

        @Test func inexactAndReloadAreReported() throws {
            try SaneTestConfig.withDevice { device in
                let switched = try device.set("mode", .string("color"))  // matched case-insensitively
                #expect(switched.value == .string("Color"))
                #expect(switched.reloadedOptions)
                #expect(try device.option("three-pass").isActive)  // re-read after the reload
                try device.set("enable-test-options", .bool(true))
                let inexact = try device.set("int-inexact", .int(5))
                #expect(inexact.inexact)
                #expect(inexact.value != nil)
            }
        }

        @Test func badNamesAndValuesGiveClearErrors() throws {
            try SaneTestConfig.withDevice { device in
                #expect(throws: ScanError.noSuchOption("colour")) { try device.set("colour", .string("Gray")) }
                #expect(throws: ScanError.noSuchOption("colour")) { try device.get("colour") }
                let notInList = try #require(throws: ScanError.self) { try device.set("mode", .string("Sepia")) }
                #expect(notInList.description == #"option mode: "Sepia" is not one of "Gray", "Color""#)
                let wrongType = try #require(throws: ScanError.self) { try device.set("mode", .int(3)) }
                #expect(wrongType.description == "option mode: takes a string value, not 3")
                let notWhole = try #require(throws: ScanError.self) { try device.set("depth", .fixed(8.5)) }
                #expect(notWhole.description == "option depth: takes whole numbers, not 8.5")
                #expect(throws: ScanError.invalidValue(option: "resolution", reason: "takes a fixed value, not \"high\"")) {
                    try device.set("resolution", .string("high"))
                }
                #expect(throws: ScanError.optionInactive("three-pass")) { try device.set("three-pass", .bool(true)) }
                // A value not in a word list: this backend snaps to the nearest and says INEXACT.
                let nearest = try device.set("depth", .int(12))
                #expect(nearest.inexact && nearest.value == .int(8))
                #expect(throws: ScanError.invalidValue(option: "depth", reason: "takes 1 value(s), got 2")) {
                    try device.set("depth", .ints([8, 8]))
                }
            }
        }

        @Test func buttonsAreHardSelectSensors() throws {
            try SaneTestConfig.withDevice { device in
                #expect(device.buttons.isEmpty)
                try device.set("enable-test-options", .bool(true))
                let names = device.buttons.map(\.name)
                #expect(names.contains("bool-hard-select-soft-detect"))
                #expect(names.contains("bool-hard-select"))
                #expect(try device.readButton("bool-hard-select-soft-detect") == false)
                // Hard-select without soft-detect: the frontend cannot read it, and is told so.
                #expect(throws: ScanError.optionNotReadable("bool-hard-select")) { try device.readButton("bool-hard-select") }
                #expect(throws: ScanError.optionNotSettable("bool-hard-select-soft-detect")) {
                    try device.set("bool-hard-select-soft-detect", .bool(true))
                }
                try device.press("button")
            }
        }
    }
}
