import Foundation
import Imaging
import PDFAccess
import TrapperCore

/// The `pdftrapper` command line: finds the subcommand, parses its arguments, runs it.
enum CLI {
    static let version = "0.1.0"

    /// Only commands that work are listed here.
    static let commands: [any Command.Type] = [
        RunCommand.self, StatusCommand.self, IngestCommand.self, ScanCommand.self, DevicesCommand.self, ApplyCommand.self, AnnotationsCommand.self, HistoryCommand.self, PreviewCommand.self, UndoCommand.self, RedoCommand.self, CompactCommand.self, RecoverCommand.self, EventsCommand.self, SearchCommand.self, IndexCommand.self,
        CheckConfigCommand.self, ExplainCommand.self, OCRCommand.self, ServeCommand.self, WebURLCommand.self,
    ]

    /// Commands for the daemon's own use: found, but not listed.
    static let internalCommands: [any Command.Type] = [ScannerAgentCommand.self, EditWorkerCommand.self]

    static func main(_ arguments: [String], context: CommandContext = CommandContext()) -> ExitCode {
        guard let first = arguments.first else {
            context.err(overview)
            return .usage
        }
        switch first {
        case "--help", "-h":
            context.out(overview)
            return .ok
        case "--version", "-V":
            context.out(versionText)
            return .ok
        case "help":
            guard let name = arguments.dropFirst().first, name != "help" else {
                context.out(overview)
                return .ok
            }
            guard let command = find(name, context) else { return .usage }
            context.out(help(for: command))
            return .ok
        default:
            guard let command = find(first, context) else { return .usage }
            let rest = Array(arguments.dropFirst())
            if rest.contains("--help") || rest.contains("-h") {
                context.out(help(for: command))
                return .ok
            }
            do {
                return command.run(try ParsedArguments(rest, spec: command.arguments), context)
            } catch {
                context.err("pdftrapper \(command.name): \(error)")
                context.err("usage: pdftrapper \(command.synopsis)")
                return .usage
            }
        }
    }

    private static func find(_ name: String, _ context: CommandContext) -> (any Command.Type)? {
        if let command = (commands + internalCommands).first(where: { $0.name == name }) { return command }
        let hint = Suggestion.hint(for: name, among: commands.map { $0.name })
        context.err("pdftrapper: unknown command \"\(name)\"\(hint); see 'pdftrapper --help'")
        return nil
    }

    static var overview: String {
        let width = commands.map { $0.name.count }.max() ?? 0
        let list = commands.map { "  \($0.name.padding(toLength: width + 2, withPad: " ", startingAt: 0))\($0.summary)" }
        return """
        pdftrapper \(version): turns scans, photos and edit scripts into well-kept PDFs.

        usage: pdftrapper COMMAND [ARGUMENTS]

        commands:
        \(list.joined(separator: "\n"))

          help COMMAND  Show what a command does and its options.
          --version     Show the version and the libraries in use.

        Exit codes follow sysexits(3): 64 usage, 65 bad input data, 66 no input, 69 no scanner, 73 cannot create,
        74 I/O error, 75 temporary failure (try again), 78 configuration error.
        """
    }

    static func help(for command: any Command.Type) -> String {
        "usage: pdftrapper \(command.synopsis)\n\n\(command.details)"
    }

    static var versionText: String {
        """
        pdftrapper \(version)
        qpdf \(PDFLibraries.qpdfVersion), poppler \(PDFLibraries.popplerVersion), zlib \(PDFLibraries.zlibVersion), \
        leptonica \(ImagingLibraries.leptonicaVersion), tesseract \(ImagingLibraries.tesseractVersion), \
        libheif \(ImagingLibraries.heifVersion), libwebp \(ImagingLibraries.webpVersion),
        OpenCV \(ImagingLibraries.visionVersion) (find_page)
        """
    }
}
