import Synchronization

/// Where remote models come from: a source's own URL and SHA-256, or — for a name alone (`FirebaseModelSource`) —
/// a source registered under that name in code (``ModelManager/register(_:)``) or in the environment variable
/// `VISION_TASKS_MODEL_SOURCES`, lines of `name url sha256` (fields separated by spaces or tabs; blank lines and
/// lines starting with `#` are skipped). A name registered in code wins over the environment's.
enum ModelSources {
    /// The environment variable of name-to-source lines.
    static let environmentVariable = "VISION_TASKS_MODEL_SOURCES"

    private static let registered = Mutex<[String: RemoteModelSource]>([:])

    /// A download's address and the SHA-256 its bytes must have (64 lowercase hexadecimal digits).
    struct Resolved: Equatable {
        var url: URL
        var sha256: String
    }

    /// Registers `source` under its name; a later registration of the name replaces it. A source without a URL
    /// (a `FirebaseModelSource`) names nothing to download and is ignored.
    static func register(_ source: RemoteModelSource) {
        guard source.url != nil else { return }
        registered.withLock { $0[source.name] = source }
    }

    /// The URL and SHA-256 to download `source` from. The environment is read at each call, so a process may set it
    /// at any time before a download starts.
    static func resolve(
        _ source: RemoteModelSource, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ModelDownloadError) -> Resolved {
        let name = source.name
        if let url = source.url, let sha256 = source.sha256 { return try validated(name, url, sha256) }
        if let known = registered.withLock({ $0[name] }), let url = known.url, let sha256 = known.sha256 {
            return try validated(name, url, sha256)
        }
        guard let lines = environment[environmentVariable] else { throw .noSource(name: name) }
        for line in lines.split(whereSeparator: \.isNewline) {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let first = fields.first, !first.hasPrefix("#"), first == name else { continue }
            guard fields.count == 3 else {
                throw .invalidSource(name: name, reason: "\(environmentVariable) has \(fields.count) fields for it, not 3 (name url sha256)")
            }
            guard let url = URL(string: fields[1]), url.scheme != nil else {
                throw .invalidSource(name: name, reason: "'\(fields[1])' in \(environmentVariable) is not a URL")
            }
            return try validated(name, url, fields[2])
        }
        throw .noSource(name: name)
    }

    private static func validated(_ name: String, _ url: URL, _ sha256: String) throws(ModelDownloadError) -> Resolved {
        let digest = sha256.lowercased()
        guard digest.utf8.count == 64, digest.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw .invalidSource(name: name, reason: "'\(sha256)' is not a SHA-256 (64 hexadecimal digits)")
        }
        guard isAllowed(url) else { throw .insecureURL(url.absoluteString) }
        return Resolved(url: url, sha256: digest)
    }

    /// Models come over HTTPS only. Plain HTTP is allowed to this machine alone — 127.0.0.1, ::1 and localhost —
    /// for tests and a local mirror: bytes that never leave the machine cannot be tampered with on the way (and every
    /// download is checked against its SHA-256 all the same).
    static func isAllowed(_ url: URL) -> Bool {
        guard let host = url.host?.lowercased(), !host.isEmpty else { return false }
        switch url.scheme?.lowercased() {
        case "https": return true
        case "http": return ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host)
        default: return false
        }
    }
}
