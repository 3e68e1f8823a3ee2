import Foundation

/// Tesseract parallelises inside a page with OpenMP, whose threads spin while they wait: on a
/// two-core machine that doubles the time a page takes (measured: 5.5 s against 2.9 s a page).
/// PDFTrapper reads pages side by side in workers instead, so each tesseract keeps to one thread.
/// libgomp reads OMP_THREAD_LIMIT once, as it loads, before any code of ours runs; so the commands
/// that OCR start themselves again with it set (once: the variable is then there).
let arguments = Array(CommandLine.arguments.dropFirst())
if ["run", "ocr"].contains(arguments.first ?? ""), ProcessInfo.processInfo.environment["OMP_THREAD_LIMIT"] == nil {
    setenv("OMP_THREAD_LIMIT", "1", 1)
    var argv = CommandLine.arguments.map { strdup($0) } + [nil]
    execv("/proc/self/exe", &argv)
    // Only if exec failed: go on, slower.
}
exit(CLI.main(arguments).rawValue)
