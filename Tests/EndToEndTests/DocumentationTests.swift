import Foundation
import TestSupport
import Testing

/// The man page and the shell completion know every subcommand the binary has.
@Suite struct DocumentationTests {
    /// The commands `pdftrapper --help` lists.
    func commands() throws -> [String] {
        let help = try Binary.run(["--help"]).stdout
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(of: "commands:") else { return [] }
        return lines[(start + 1)...].prefix { !$0.isEmpty }.compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    @Test func everySubcommandHasItsManPageEntry() throws {
        let commands = try commands()
        #expect(commands.count >= 16 && commands.contains("preview"), "\(commands)")
        let page = try String(contentsOf: Binary.packageRoot.appendingPathComponent("man/pdftrapper.1.scd"), encoding: .utf8)
        let section = page.components(separatedBy: "\n# COMMANDS\n").last?.components(separatedBy: "\n# EXIT STATUS").first ?? ""
        let missing = (commands + ["help", "--version"]).filter { !section.contains("\n*pdftrapper \($0)*") }
        #expect(missing == [], "pdftrapper(1) has no entry for: \(missing)")
        for name in ["pdftrapper.1", "pdftrapper.toml.5", "pdftrapper-edit.5"] {
            let source = Binary.packageRoot.appendingPathComponent("man/\(name).scd").path
            let rendered = try PDFReaders.run("sh", ["-c", "scdoc < \"$0\"", source])
            #expect(rendered.status == 0 && rendered.text.hasPrefix(".\\\""), "scdoc \(name): \(rendered.stderr)")
        }
    }

    @Test func theCompletionsOfferEverySubcommand() throws {
        let script = Binary.packageRoot.appendingPathComponent("completion/pdftrapper.bash").path
        let bash = try PDFReaders.run("env", ["PDFTRAPPER_BIN=" + Binary.path, "bash", script, "--self-check"])
        #expect(bash.status == 0 && bash.text == "ok\n", "\(bash.text) \(bash.stderr)")
        let zsh = try PDFReaders.run("zsh", ["-n", Binary.packageRoot.appendingPathComponent("completion/_pdftrapper").path],
                                     hint: "apt-get install zsh")
        #expect(zsh.status == 0, "\(zsh.stderr)")
        let zshText = try String(contentsOfFile: Binary.packageRoot.appendingPathComponent("completion/_pdftrapper").path, encoding: .utf8)
        let missing = try commands().filter { !zshText.contains("'\($0):") }
        #expect(missing == [], "the zsh completion does not offer: \(missing)")
    }

    /// Rendered by man as a reader sees it, no page shows scdoc's own markup (`p_N_.png`).
    @Test func everyManPageRendersWithoutLeftoverMarkup() throws {
        for name in ["pdftrapper.1", "pdftrapper.toml.5", "pdftrapper-edit.5"] {
            let source = Binary.packageRoot.appendingPathComponent("man/\(name).scd").path
            let rendered = try PDFReaders.run("sh", ["-c", "scdoc < \"$0\" > \"$0.roff\" && MANWIDTH=120 man -l -P cat \"$0.roff\" | col -b; rm -f \"$0.roff\"",
                                                     source], hint: "apt-get install man-db scdoc")
            #expect(rendered.status == 0 && rendered.text.count > 1000, "man \(name): \(rendered.stderr)")
            let leftovers = rendered.text.split(separator: "\n").filter {
                $0.contains(/_[A-Za-z][A-Za-z0-9]*_(?![A-Za-z0-9_])/) || $0.contains(/\*[A-Za-z][^*\s]*\*/)
            }
            #expect(leftovers.isEmpty, "\(name) shows markup: \(leftovers)")
        }
    }

    /// The README's command list names every subcommand of `--help`, and every option each takes.
    @Test func theReadmeNamesEveryCommandAndOption() throws {
        let readme = try String(contentsOf: Binary.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        var missing: [String] = []
        for command in try commands() {
            if !readme.contains("pdftrapper \(command)") { missing.append(command) }
            let help = try Binary.run(["help", command]).stdout
            let options = Set(help.matches(of: /--[a-z][a-z-]*/).map { String($0.0) })
            missing += options.sorted().filter { !readme.contains($0) }.map { "\(command) \($0)" }
        }
        #expect(missing == [], "the README does not name: \(missing)")
    }
}
