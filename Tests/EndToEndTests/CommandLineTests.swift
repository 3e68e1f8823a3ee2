import Foundation
import TestSupport
import Testing

@Suite struct CommandLineTests {
    @Test func helpListsOnlyWorkingCommands() throws {
        let run = try Binary.run(["--help"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("check-config"))
        #expect(run.stdout.contains("explain"))
        #expect(run.stdout.contains("78 configuration error"))
    }

    @Test func noArgumentsIsAUsageError() throws {
        let run = try Binary.run([])
        #expect(run.status == 64)
        #expect(run.stderr.contains("usage: pdftrapper COMMAND"))
    }

    @Test func helpForOneCommand() throws {
        let viaHelp = try Binary.run(["help", "check-config"])
        let viaFlag = try Binary.run(["check-config", "--help"])
        #expect(viaHelp.status == 0)
        #expect(viaHelp.stdout.hasPrefix("usage: pdftrapper check-config"))
        #expect(viaHelp.stdout == viaFlag.stdout)
    }

    @Test func versionNamesTheLibraries() throws {
        let run = try Binary.run(["--version"])
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.first == "pdftrapper 0.1.0")
        for library in ["qpdf ", "poppler ", "zlib ", "leptonica ", "tesseract "] {
            #expect(run.stdout.contains(library), "missing \(library)in \(run.stdout)")
        }
    }

    @Test func unknownCommandSuggestsTheNearestOne() throws {
        let run = try Binary.run(["chek-config"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("unknown command \"chek-config\" (did you mean \"check-config\"?)"))
    }

    @Test func unknownOptionIsAUsageError() throws {
        let run = try Binary.run(["explain", "--frobnicate", "x.jpg"])
        #expect(run.status == 64)
        #expect(run.errorLines.first == "pdftrapper explain: unknown option --frobnicate")
    }
}
