import Daemon
import Foundation
import System
import TrapperCore
import Web

/// `pdftrapper serve`: the workspace alone, for a desktop without the inbox.
enum ServeCommand: Command {
    static let name = "serve"
    static let summary = "Serve the workspace (the library in a browser, markup saved as revisions) without the inbox."
    static let synopsis = "serve [--config FILE]"
    static let details = """
    Serves the workspace on [web] listen of the config (default 127.0.0.1:8470): the library's
    folders and PDFs, each document's pages and history, markup (pens, highlighter, shapes, text,
    notes, signatures, eraser) and page operations saved as one revision each through the edit
    scripts' own code path, undo and redo, and the daemon's status and quarantine. `pdftrapper
    web-url` prints the address to log in with. `pdftrapper run` serves the same when the config
    has a [web] table; run only one of the two on one config.

    Revisions made by other processes (a daemon taking the inbox, `pdftrapper apply`, another
    program saving a PDF) show up as they are written (inotify; on a shared mount, other hosts'
    within 10 seconds).
    SIGTERM or SIGINT stops it with exit 0.

    Exit codes: 0 stopped, 66 no config, 69 the address cannot be listened on, 78 bad config.
    """
    static let arguments = ArgumentSpec(options: ["--config"])

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        guard arguments.positionals.isEmpty else {
            context.err("pdftrapper serve: takes no arguments\nusage: pdftrapper \(synopsis)")
            return .usage
        }
        // Before any thread starts, so that none of them takes the signals meant for the loop.
        var signals = Signals()
        let explicit = arguments.options["--config"].map(context.absolute)
        let config: Config
        switch context.loadConfig(explicit) {
        case .success(let loaded): config = loaded
        case .failure(let code): return code
        }
        let edits = EditWorkers(environment: context.environment)
        // Its saves are made by edit workers, other processes: the library watch finds them.
        let feed = RevisionFeed()
        let live = LiveFollowUp(feed)
        let workspace: Workspace
        let library: LibraryFollowers
        do {
            try DaemonParts.makeFolders(config)
            try DaemonParts.openStore(config).recoverAll()
            workspace = try Workspace(config: config, edits: edits)
            try workspace.start()
            live.show(workspace)
            library = LibraryFollowers(config, feed: feed) { _, line in
                FileHandle.standardError.write(Data("pdftrapper: \(line)\n".utf8))
            }
        } catch {
            context.err("pdftrapper serve: \(error)")
            return .unavailable
        }
        context.err("pdftrapper: workspace on \((config.web ?? WebSettings()).listen); `pdftrapper web-url` prints the address to log in with")
        while !signals.wait(seconds: 0.5).contains(.stop) {
            // What the workers report was said to the saves that waited for it.
            _ = edits.finished()
        }
        // Saves in hand end first (answered 503), so that the connections waiting on them can close.
        edits.stop()
        live.stop()
        library.stop()
        workspace.stop()
        return .ok
    }
}

/// `pdftrapper web-url`: the address that logs a browser into the workspace.
enum WebURLCommand: Command {
    static let name = "web-url"
    static let summary = "Print the address that logs a browser into the workspace."
    static let synopsis = "web-url [--new-token] [--config FILE]"
    static let details = """
    Prints http://HOST:PORT/login?token=TOKEN for [web] listen of the config. The token is made on
    first use, 32 random bytes in STATE/web-token (mode 0600); opening the address starts a session
    (an HttpOnly, SameSite=Strict cookie) that lasts [web] session_days (default 30) or until Log out
    in the workspace. Whoever has the address can edit the library: treat it like a password.

    --new-token replaces the token first and prints the new address: every session ends at once
    (a running daemon or serve takes the new token at its next request), and the old address logs
    in no more.
    """
    static let arguments = ArgumentSpec(flags: ["--new-token"], options: ["--config"])

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) -> ExitCode {
        guard arguments.positionals.isEmpty else {
            context.err("pdftrapper web-url: takes no arguments\nusage: pdftrapper \(synopsis)")
            return .usage
        }
        let config: Config
        switch context.loadConfig(arguments.options["--config"].map(context.absolute)) {
        case .success(let loaded): config = loaded
        case .failure(let code): return code
        }
        do {
            context.out(try WebAccess.loginURL(config: config, newToken: arguments.flags.contains("--new-token")))
        } catch {
            context.err("pdftrapper web-url: \(error)")
            return .cantCreate
        }
        if config.web == nil {
            context.err("pdftrapper web-url: \(config.file) has no [web] table: `pdftrapper run` serves no workspace; `pdftrapper serve` does")
        }
        return .ok
    }
}
