import Foundation

/// Reads `[[notify]]` tables: which events, which rules or targets, and a `url` or a `command`.
/// Everything a delivery would only find out later (a URL that is no URL, a relative program, an
/// event that does not exist) is refused here, with its place in the file.
struct NotifyReader {
    let log: DiagnosticLog

    /// The rules' and scan profiles' names, which `rules` may name.
    let known: [String]

    func subscribers(_ tables: [TableReader]) -> [Subscriber] {
        var seen: [String: String] = [:]
        return tables.compactMap { table in
            var table = table
            defer { table.finish() }
            let written = table.string("name")
            // Unnamed, it is named by where it sends: its pending events never go to another receiver.
            let name = written?.value ?? Self.defaultName(table.table)
            if let written, !Self.isName(written.value) {
                log.add("\(table.qualified("name")) must be letters, digits, '.', '-' or '_' (it names a folder of the outbox)",
                        at: written.location)
            } else if let earlier = seen[name] {
                log.add("\(table.qualified("name")): \"\(name)\" is already the name of \(earlier)",
                        at: written?.location ?? table.table.location)
            }
            seen[name] = table.name
            let events = self.events(&table)
            let rules: [String] = table.strings("rules")?.map { rule -> String in
                if !known.contains(rule.value) {
                    log.add("\(table.qualified("rules")): no rule or scan profile is named \"\(rule.value)\""
                            + Suggestion.hint(for: rule.value, among: known), at: rule.location)
                }
                return rule.value
            } ?? []
            let targets = table.strings("targets")?.map { Glob($0.value) } ?? []
            let delivery = self.delivery(&table)
            var subscriber = Subscriber(name: name, events: events ?? [], delivery: delivery ?? .url(""))
            subscriber.rules = rules
            subscriber.targets = targets
            if let secret = table.string("secret") {
                if case .command? = delivery {
                    log.add("\(table.qualified("secret")) signs what is POSTed to a url; a command gets the event on its "
                            + "standard input", at: secret.location)
                } else if secret.value.isEmpty {
                    log.add("\(table.qualified("secret")) is empty; leave it out for unsigned events", at: secret.location)
                }
                subscriber.secret = secret.value
            }
            if var headerTable = table.subtable("headers") {
                if case .command? = delivery {
                    log.add("\(table.qualified("headers")) go with a url's POST, not with a command", at: headerTable.table.location)
                }
                for entry in headerTable.table.entries {
                    guard let value = headerTable.string(entry.key) else { continue }
                    if !Self.isHeader(entry.key, value.value) {
                        log.add("\(headerTable.qualified(entry.key)) is not a header a request may carry", at: value.location)
                    } else if Self.reservedHeaders.contains(entry.key.lowercased()) || entry.key.lowercased().hasPrefix("x-pdftrapper-") {
                        log.add("\(headerTable.qualified(entry.key)) is set by PDFTrapper (or by HTTP itself) and cannot be changed",
                                at: value.location)
                    }
                    subscriber.headers.append((entry.key, value.value))
                }
                headerTable.finish()
            }
            if let timeout = table.seconds("timeout") {
                if timeout > 0 { subscriber.timeoutSeconds = timeout } else {
                    log.add("\(table.qualified("timeout")) must be more than 0s", at: table.table["timeout"]!.location)
                }
            }
            subscriber.verifyTLS = table.bool("verify_tls") ?? true
            if let backoff = table.seconds("backoff_max") {
                if backoff >= 1 { subscriber.backoffMaxSeconds = backoff } else {
                    log.add("\(table.qualified("backoff_max")) must be at least 1s", at: table.table["backoff_max"]!.location)
                }
            }
            guard events != nil, delivery != nil else { return nil }
            return subscriber
        }
    }

    private func events(_ table: inout TableReader) -> Set<OutboundEvent.Kind>? {
        guard let written = table.strings("events") else {
            if table.table["events"] == nil {
                log.add("[\(table.name)] is missing the required key \"events\" (such as [\"revision\", \"quarantined\"])",
                        at: table.table.location)
            }
            return nil
        }
        let known = OutboundEvent.Kind.allCases.map(\.rawValue)
        var events = Set<OutboundEvent.Kind>()
        for item in written {
            if let kind = OutboundEvent.Kind(rawValue: item.value) { events.insert(kind); continue }
            log.add("\(table.qualified("events")): unknown event \"\(item.value)\" (known: \(known.joined(separator: ", ")))"
                    + Suggestion.hint(for: item.value, among: known), at: item.location)
        }
        if written.isEmpty, let node = table.table["events"] {
            log.add("\(table.qualified("events")) is empty: name at least one event", at: node.location)
        }
        return events
    }

    private func delivery(_ table: inout TableReader) -> Subscriber.Delivery? {
        let url = table.string("url")
        let command = table.node("command")
        switch (url, command) {
        case (nil, nil):
            log.add("[\(table.name)] needs a url = \"https://...\" or a command = [\"/path/to/program\", ...]", at: table.table.location)
            return nil
        case (.some, .some(let node)):
            log.add("[\(table.name)] has both a url and a command; a subscriber is one of them", at: node.location)
            return nil
        case (let url?, nil):
            if let problem = Self.urlProblem(url.value) {
                log.add("\(table.qualified("url")) \"\(url.value)\" \(problem)", at: url.location)
                return nil
            }
            return .url(url.value)
        case (nil, let node?):
            guard case .array(let items) = node.value, !items.isEmpty else {
                table.complain("command", node, expected: "an array of strings, the program's absolute path first")
                return nil
            }
            var arguments: [String] = []
            for item in items {
                guard case .string(let text) = item.value else {
                    table.complain("command", item, expected: "a string")
                    return nil
                }
                if let unknown = Self.unknownPlaceholder(text) {
                    log.add("\(table.qualified("command")): unknown placeholder {\(unknown)} (known: "
                            + Subscriber.placeholders.map { "{\($0)}" }.joined(separator: ", ") + ")"
                            + Suggestion.hint(for: unknown, among: Subscriber.placeholders), at: item.location)
                    return nil
                }
                arguments.append(text)
            }
            if arguments[0].contains("{") {
                log.add("\(table.qualified("command")): the program's path takes no placeholders (an event's fields would "
                        + "choose what runs)", at: items[0].location)
                return nil
            }
            guard arguments[0].hasPrefix("/") else {
                log.add("\(table.qualified("command")) must start with the program's absolute path, such as "
                        + "\"/usr/bin/\(arguments[0])\" (it runs without a shell or PATH)", at: items[0].location)
                return nil
            }
            return .command(arguments)
        }
    }

    /// Why `text` is no URL a webhook can be sent to, or nil.
    static func urlProblem(_ text: String) -> String? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            return "is not a URL"
        }
        guard scheme == "https" || scheme == "http" else { return "must be an http:// or https:// URL" }
        guard let host = components.host, !host.isEmpty else { return "names no host" }
        guard !text.contains(where: { $0.isWhitespace }) else { return "has a space in it" }
        return nil
    }

    static let reservedHeaders: Set<String> = ["content-type", "content-length", "transfer-encoding", "host", "connection",
                                                "expect", "idempotency-key"]

    /// "notify-" and the start of the SHA-256 of its url or command.
    static func defaultName(_ table: TOMLTable) -> String {
        var destination = ""
        if case .string(let url)? = table["url"]?.value { destination = url }
        if case .array(let items)? = table["command"]?.value {
            destination = items.map { if case .string(let text) = $0.value { text } else { "" } }.joined(separator: "\0")
        }
        return "notify-" + SHA256.hex(SHA256.hash(Array(destination.utf8))).prefix(8)
    }

    static func isName(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 64 && !text.hasPrefix(".")
            && text.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) && $0.isASCII || "._-".unicodeScalars.contains($0) }
    }

    /// A header name is a token; a value has no line breaks (which would start another header).
    static func isHeader(_ name: String, _ value: String) -> Bool {
        let token = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~").union(.alphanumerics)
        return !name.isEmpty && name.unicodeScalars.allSatisfy { $0.isASCII && token.contains($0) }
            && !value.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" })
    }

    /// The first `{name}` in `argument` that is no event field, or nil.
    static func unknownPlaceholder(_ argument: String) -> String? {
        var rest = Substring(argument)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            let name = String(rest[rest.index(after: open)..<close])
            if !Subscriber.placeholders.contains(name) { return name }
            rest = rest[rest.index(after: close)...]
        }
        return nil
    }
}
