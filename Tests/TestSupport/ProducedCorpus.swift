import Foundation
import Glibc

/// Real PDFs made at test time by the producers installed here: Ghostscript, cairo, qpdf (object
/// streams, linearized, encrypted with and without a user password), MuPDF, img2pdf, reportlab and
/// pypdf; `Tests/Fixtures/produced-pdfs/make.py` says which file is what. Made once per test
/// process, so the corpus-driven tests run in a clone with nothing beside it, and beside the shared
/// corpus when it is there. Each name starts with its producer: `ghostscript-4-pages.pdf`.
public enum ProducedCorpus {
    /// Every produced file, sorted; throws with the failing producer's command and output.
    public static func files() throws -> [String] { try made.get() }

    /// The produced file called `name`.
    public static func file(_ name: String) throws -> String {
        guard let path = try files().first(where: { PDFCorpus.name($0) == name }) else {
            throw PDFCorpus.Missing(path: folder + "/" + name)
        }
        return path
    }

    /// The produced files poppler opens without a password, with pdfinfo's page count.
    public static func readableFiles() throws -> [(path: String, pages: Int)] { try PDFCorpus.readable(files()) }

    static let maker = Binary.packageRoot.appendingPathComponent("Tests/Fixtures/produced-pdfs/make.py").path
    /// Of this run alone: a pid is reused once its process ends, so a folder named by the pid alone
    /// can be another run's, and one was found gone in the middle of a long run.
    static let folder = NSTemporaryDirectory() + "pdftrapper-produced-pdfs-\(getpid())-\(UUID().uuidString.prefix(8))"

    private static let made = Result<[String], PhotoMaker.MakerError> { () throws(PhotoMaker.MakerError) -> [String] in
        let command = "python3 \(maker) \(folder)"
        atexit { try? FileManager.default.removeItem(atPath: ProducedCorpus.folder) }
        do {
            let run = try PDFReaders.run("python3", [maker, folder])
            guard run.status == 0 else { throw PhotoMaker.MakerError.failed(command: command, output: run.stderr) }
            let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".pdf") }
            guard !names.isEmpty else { throw PhotoMaker.MakerError.failed(command: command, output: "no PDF in \(folder)") }
            return names.sorted().map { folder + "/" + $0 }
        } catch let error as PhotoMaker.MakerError {
            throw error
        } catch {
            throw PhotoMaker.MakerError.failed(command: command, output: "\(error)")
        }
    }
}
