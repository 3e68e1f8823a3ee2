import Foundation
import System
import TrapperCore

/// Stage 5's first step for the inbox: where claimed inputs are going is written down beside the
/// claims before their revision. A crash after the revision but before the original is archived
/// must not send the input somewhere new on recovery (a new `{seq}` name, another `{date}`), where
/// the duplicate check would miss it. A group's manifest (`KEY.txt`) names its target and its
/// inputs; a split input's (`KEY.split.json`) names every document's file, and stays until the
/// input has left the claims, so that a retry fills the same files.
extension Inbox {
    var manifestFolder: String { claims + "/" + Self.manifestFolderName }
    static let manifestFolderName = ".targets"
    static let splitSuffix = ".split.json"

    struct SplitManifest: Codable {
        var input: String
        var targets: [String]
    }

    /// An input by its name among the claims (a second `x.png` waits there as `x-2.png`), as recovery finds it.
    func claimName(_ input: CaptureInput) -> String { String(input.path.dropFirst(claims.count + 1)) }

    private func manifestPath(_ capture: Capture) -> String {
        capture.plan.separator == nil
            ? manifestFolder + "/" + StateDirectory.key(for: claimName(capture.inputs[0])) + ".txt"
            : splitManifestPath(capture.inputs[0].name)
    }

    private func splitManifestPath(_ relativePath: String) -> String {
        manifestFolder + "/" + StateDirectory.key(for: relativePath) + Self.splitSuffix
    }

    func writeManifest(_ targets: [String], for capture: Capture) throws(Durable.Failure) {
        let data: Data
        if capture.plan.separator == nil {
            data = Data(([targets[0]] + capture.inputs.map(claimName)).joined(separator: "\n").utf8 + [0x0A])
        } else {
            do {
                data = try JSONEncoder().encode(SplitManifest(input: capture.inputs[0].name, targets: targets))
            } catch {
                preconditionFailure("a manifest of strings always encodes: \(error)")
            }
        }
        try files.replace(manifestPath(capture), with: data)
    }

    /// The targets written down for a split input, in document order; empty when none are.
    func splitTargets(_ capture: Capture) -> [String] {
        guard capture.plan.separator != nil, let data = files.read(splitManifestPath(capture.inputs[0].name)),
              let manifest = try? JSONDecoder().decode(SplitManifest.self, from: data),
              manifest.input == capture.inputs[0].name else { return [] }
        return manifest.targets
    }

    func removeManifest(_ capture: Capture) { try? files.remove(manifestPath(capture)) }

    /// Name of a claimed input → the target written down for it.
    var manifests: [String: String] {
        var pinned: [String: String] = [:]
        for name in files.names(in: manifestFolder) ?? [] where !name.hasSuffix(Self.splitSuffix) {
            guard let data = files.read(manifestFolder + "/" + name), let text = String(data: data, encoding: .utf8) else { continue }
            let lines = text.split(separator: "\n").map(String.init)
            for input in lines.dropFirst() { pinned[input] = lines.first }
        }
        return pinned
    }

    /// After recovery, what is written down is used up: every input a group's manifest named is
    /// finished or back in the inbox. A split input's stay while it waits among the claims.
    func removeUsedManifests() {
        for name in files.names(in: manifestFolder) ?? [] {
            let path = manifestFolder + "/" + name
            guard name.hasSuffix(Self.splitSuffix) else {
                try? files.remove(path)
                continue
            }
            guard let data = files.read(path), let manifest = try? JSONDecoder().decode(SplitManifest.self, from: data),
                  files.exists(claims + "/" + manifest.input) else {
                try? files.remove(path)
                continue
            }
        }
    }
}
