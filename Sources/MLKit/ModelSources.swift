internal import class VisionTasks.Locked
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where remote models come from: a source's own URL and SHA-256, or — for a name alone (`FirebaseModelSource`) —
/// a source registered under that name in code (``ModelManager/register(_:)``) or in the environment variable
/// `VISION_TASKS_MODEL_SOURCES`, lines of `name url sha256` (fields separated by spaces or tabs; blank lines and
/// lines starting with `#` are skipped). A name registered in code wins over the environment's.
enum ModelSources {
    /// The environment variable of name-to-source lines.
    static let environmentVariable = "VISION_TASKS_MODEL_SOURCES"

    private static let registered = Locked<[String: RemoteModelSource]>([:])

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

/// Where a download may be redirected. A redirect is the server's choice, not the user's, so it may not take the
/// request anywhere the source itself could not reach on its own standing:
/// - never from HTTPS to plain HTTP (the bytes would travel unprotected, and plain HTTP is only allowed to this
///   machine — a redirect there is a blind request to a local service);
/// - to this machine (127.0.0.0/8, ::1, `localhost`) only from a source on this machine;
/// - to a private or link-local network (10/8, 172.16/12, 192.168/16, 169.254/16 — where cloud metadata services
///   answer —, 100.64/10, 0/8, fc00::/7, fe80::/10) only from a source on this machine or such a network.
///
/// The rule looks at the host as written in the URL: it catches literal addresses (in every form curl accepts for
/// IPv4, such as `127.1` or `2130706433`, and IPv4-mapped IPv6) and `localhost` names, but not a public name whose DNS
/// answer is 127.0.0.1 or a private address — that can only be caught where the name is resolved and connected,
/// which URLSession does not let its delegate see. Every download is checked against its SHA-256 all the same; what
/// this rule prevents is the request itself reaching a local service.
package enum RedirectPolicy {
    /// How far from this machine a host is.
    package enum Reach: Int, Comparable {
        case loopback, privateNetwork, publicNetwork
        package static func < (lhs: Reach, rhs: Reach) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Whether a request to `source` may be redirected to `target`; the reason when it may not.
    package static func refusal(from source: URL, to target: URL) -> String? {
        let sourceScheme = source.scheme?.lowercased(), targetScheme = target.scheme?.lowercased()
        if sourceScheme == "https", targetScheme != "https" {
            return "a redirect from HTTPS to \(targetScheme ?? "no scheme") is refused"
        }
        guard let targetHost = target.host, !targetHost.isEmpty else { return "the redirect has no host" }
        let sourceReach = source.host.map(reach(of:)) ?? .publicNetwork
        let targetReach = reach(of: targetHost)
        guard targetReach >= sourceReach else {
            let place = targetReach == .loopback ? "this machine" : "a private network"
            return "a redirect to \(place) is allowed only from a source there"
        }
        return nil
    }

    package static func allows(from source: URL, to target: URL) -> Bool { refusal(from: source, to: target) == nil }

    /// The reach of `host` as written (a name or a literal address, with or without IPv6 brackets).
    package static func reach(of host: String) -> Reach {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        // A zone index ("fe80::1%eth0") names an interface, not an address.
        if let percent = name.firstIndex(of: "%") { name = String(name[..<percent]) }
        while name.hasSuffix(".") { name.removeLast() }
        // RFC 6761: localhost and every name under it are this machine (curl resolves them so without asking DNS).
        if name == "localhost" || name.hasSuffix(".localhost") { return .loopback }
        var v6 = in6_addr()
        if name.contains(":"), inet_pton(AF_INET6, name, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { reach(ofIPv6: Array($0)) }
        }
        // inet_aton, not inet_pton: it accepts the short, decimal, octal and hexadecimal forms curl also accepts
        // ("127.1", "2130706433", "0x7f.1"), so each of them is classified as the address it is.
        var v4 = in_addr()
        if !name.isEmpty, name.utf8.allSatisfy({ $0 < 0x80 }), inet_aton(name, &v4) != 0 {
            return reach(ofIPv4: UInt32(bigEndian: v4.s_addr))
        }
        return .publicNetwork
    }

    private static func reach(ofIPv4 address: UInt32) -> Reach {
        func within(_ prefix: UInt32, _ bits: UInt32) -> Bool { address >> (32 - bits) == prefix >> (32 - bits) }
        if within(0x7F00_0000, 8) { return .loopback }
        if within(0x0000_0000, 8) || within(0x0A00_0000, 8) || within(0xAC10_0000, 12) || within(0xC0A8_0000, 16)
            || within(0xA9FE_0000, 16) || within(0x6440_0000, 10) {
            return .privateNetwork
        }
        return .publicNetwork
    }

    private static func reach(ofIPv6 bytes: [UInt8]) -> Reach {
        if bytes[0..<15].allSatisfy({ $0 == 0 }) { return bytes[15] == 1 ? .loopback : .privateNetwork }  // ::1, ::
        // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d) addresses reach the IPv4 address.
        if bytes[0..<10].allSatisfy({ $0 == 0 }), (bytes[10] == 0xFF && bytes[11] == 0xFF) || (bytes[10] == 0 && bytes[11] == 0) {
            return reach(ofIPv4: bytes[12..<16].reduce(0) { $0 << 8 | UInt32($1) })
        }
        if bytes[0] & 0xFE == 0xFC || (bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80) { return .privateNetwork }
        return .publicNetwork
    }
}
