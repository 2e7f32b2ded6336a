import Foundation

/// A model asset as MediaPipe ships it: a `.task` zip bundle (possibly holding other `.task` bundles), or a
/// bare `.tflite` file, which reads as a bundle of one member named after the file.
///
/// Members are addressed by path: `hand_detector.tflite`, or `hand_landmarker.task/hand_detector.tflite` for a
/// member of a nested bundle. Stored members are slices of the bundle's bytes; nothing is copied. Deflated members
/// are inflated on first access, within a per-bundle budget.
public struct TaskBundle: Sendable {
    public struct Member: Sendable {
        /// Path from the outermost bundle, nested bundles separated by `/`.
        public let path: String
        /// Size of the contents in bytes: exact for a stored member, as the archive declares it for a deflated one
        /// (checked when it is inflated).
        public let size: Int
        private let content: Content

        private enum Content: Sendable {
            case inPlace(ByteSlice)
            case deflated(LazyInflation)
        }

        init(path: String, bytes: ByteSlice) {
            self.path = path
            size = bytes.count
            content = .inPlace(bytes)
        }

        init(path: String, entry: ZipArchive.Entry, budget: InflationBudget) {
            self.path = path
            size = entry.uncompressedSize
            content = .deflated(LazyInflation(entry: entry, budget: budget))
        }

        /// The member's bytes: a slice of the bundle for a stored member (nothing copied); for a deflated one,
        /// inflated when first asked for, charged to the bundle's inflation budget, and kept for later calls.
        public var bytes: ByteSlice {
            get throws(FormatError) {
                switch content {
                case let .inPlace(bytes): return bytes
                case let .deflated(lazy): return try lazy.contents()
                }
            }
        }

        /// Checks that ``bytes`` can be read without keeping them: a deflated member not yet inflated is inflated
        /// through a small buffer and its size and CRC-32 checked, charging nothing to the budget.
        public func verify() throws(FormatError) {
            if case let .deflated(lazy) = content { try lazy.verify() }
        }

        /// Whether the member is a TFLite flatbuffer (by its file identifier, not its name). Inflates no more of a
        /// deflated member than the identifier.
        public var isTFLiteModel: Bool {
            let header: [UInt8]?
            switch content {
            case let .inPlace(bytes): header = bytes.withUnsafeBytes { Array($0.prefix(8)) }
            case let .deflated(lazy): header = lazy.prefix(8)
            }
            guard let header, header.count == 8 else { return false }
            return header[4..<8].elementsEqual("TFL3".utf8)
        }
    }

    /// Every leaf member, nested bundles expanded, in archive order.
    public let members: [Member]

    /// Nested bundles are expanded this deep at most; real bundles nest once.
    public static let maximumNesting = 4
    /// Entries visited over all nesting levels. Real bundles have a handful; the cap stops a hostile archive whose
    /// entries all point at one nested bundle from multiplying at every level.
    public static let maximumEntries = 4096
    /// Bytes that inflating deflated members (nested bundles included) may allocate per bundle, unless the caller
    /// gives another budget. See `InflationBudget.defaultLimit` for the choice.
    public static let defaultInflationBudget = InflationBudget.defaultLimit

    /// Reads a bundle or a bare model from `bytes`; `name` is used for the single member of a bare model.
    ///
    /// Stored members are slices of `bytes`. Deflated members are inflated only when their ``Member/bytes`` are
    /// asked for, except nested bundles, which are inflated here to list their members; all inflation together is
    /// limited to `inflationBudget` bytes (``FormatError/inflationBudgetExceeded(member:size:used:limit:)``).
    public init(bytes: ByteSlice, name: String = "model.tflite", inflationBudget: Int = defaultInflationBudget) throws(FormatError) {
        if Member(path: name, bytes: bytes).isTFLiteModel {
            members = [Member(path: name, bytes: bytes)]
        } else {
            guard ZipArchive.containsArchive(bytes) else {
                throw .notAZipArchive(reason: "neither a TFLite model (no TFL3 identifier) nor a .task zip bundle")
            }
            var members: [Member] = []
            var entryBudget = Self.maximumEntries
            let inflation = InflationBudget(limit: inflationBudget)
            try Self.expand(ZipArchive(bytes: bytes), prefix: "", depth: 0, entryBudget: &entryBudget,
                            inflation: inflation, into: &members)
            self.members = members
        }
    }

    /// Opens (maps) the file at `path`.
    public init(path: String, inflationBudget: Int = defaultInflationBudget) throws(FormatError) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        try self.init(bytes: try ByteSlice.mapping(path: path), name: name, inflationBudget: inflationBudget)
    }

    private static func expand(
        _ archive: ZipArchive, prefix: String, depth: Int, entryBudget: inout Int, inflation: InflationBudget,
        into members: inout [Member]
    ) throws(FormatError) {
        for entry in archive.entries where !entry.name.hasSuffix("/") {
            entryBudget -= 1
            guard entryBudget >= 0 else { throw .tooComplex(what: "bundle with more than \(maximumEntries) entries") }
            let path = prefix + entry.name
            if entry.name.hasSuffix(".task") {
                guard depth < maximumNesting else {
                    throw .tooComplex(what: "bundle nesting at '\(path)'")
                }
                let bytes = try ZipArchive.contents(of: entry, budget: inflation)
                try expand(ZipArchive(bytes: bytes), prefix: path + "/", depth: depth + 1, entryBudget: &entryBudget,
                           inflation: inflation, into: &members)
            } else if entry.method == 0 {
                members.append(Member(path: path, bytes: try ZipArchive.contents(of: entry, budget: inflation)))
            } else {
                // What the directory alone can refuse (encryption, an unknown method, an impossible size) is
                // refused now; the inflation itself waits until the bytes are asked for.
                try ZipArchive.checkEntry(entry)
                members.append(Member(path: path, entry: entry, budget: inflation))
            }
        }
    }

    /// The bytes of `member`: ``Member/bytes``, spelled as a call on the bundle.
    public func contents(of member: Member) throws(FormatError) -> ByteSlice { try member.bytes }

    /// Member paths, in order.
    public var memberPaths: [String] { members.map(\.path) }

    /// The member at `path`; a bare file name also matches a member of a nested bundle if only one has that name.
    public func member(_ path: String) throws(FormatError) -> Member {
        if let exact = members.first(where: { $0.path == path }) { return exact }
        let byName = members.filter { $0.path.split(separator: "/").last.map(String.init) == path }
        if byName.count == 1 { return byName[0] }
        throw .missingBundleMember(name: path, available: memberPaths)
    }

    /// Parses the model member at `path`.
    public func model(_ path: String) throws(FormatError) -> TFLiteModel {
        let member = try member(path)
        guard member.isTFLiteModel else {
            throw .wrongModel(expected: "a TFLite model at '\(path)'", found: "a file that is not a TFLite flatbuffer")
        }
        return try TFLiteModel(bytes: member.bytes)
    }
}

/// A deflated member's contents, inflated once, on first access.
final class LazyInflation: @unchecked Sendable {
    // @unchecked: `result` is read and written under `lock` only; `entry` and `budget` are immutable or locked.
    private let entry: ZipArchive.Entry
    private let budget: InflationBudget
    private let lock = NSLock()
    /// Kept after the first inflation, failures too: inflating the same damaged member again would give the same
    /// answer at the same cost. A refusal by the budget is not kept: it costs nothing to repeat, and it says
    /// nothing of the member's bytes (``LazyInflation/verify()`` still checks them).
    private var result: Result<ByteSlice, FormatError>?

    init(entry: ZipArchive.Entry, budget: InflationBudget) {
        self.entry = entry
        self.budget = budget
    }

    func contents() throws(FormatError) -> ByteSlice {
        lock.lock()
        defer { lock.unlock() }
        let outcome: Result<ByteSlice, FormatError>
        if let known = result {
            outcome = known
        } else {
            do throws(FormatError) {
                outcome = .success(try ZipArchive.contents(of: entry, budget: budget))
            } catch {
                if case .inflationBudgetExceeded = error { throw error }
                outcome = .failure(error)
            }
            result = outcome
        }
        switch outcome {
        case let .success(bytes): return bytes
        case let .failure(error): throw error
        }
    }

    func verify() throws(FormatError) {
        lock.lock()
        let known = result
        lock.unlock()
        switch known {
        case .success?: return
        case let .failure(error)?: throw error
        case nil: try ZipArchive.verify(entry)
        }
    }

    func prefix(_ count: Int) -> [UInt8]? {
        lock.lock()
        let known = result
        lock.unlock()
        if case let .success(bytes)? = known { return bytes.withUnsafeBytes { Array($0.prefix(count)) } }
        return ZipArchive.prefix(of: entry, count: count)
    }
}
