/// A model asset as MediaPipe ships it: a `.task` zip bundle (possibly holding other `.task` bundles), or a
/// bare `.tflite` file, which reads as a bundle of one member named after the file.
///
/// Members are addressed by path: `hand_detector.tflite`, or `hand_landmarker.task/hand_detector.tflite` for a
/// member of a nested bundle. Stored members are slices of the bundle's bytes; nothing is copied.
public struct TaskBundle: Sendable {
    public struct Member: Sendable {
        /// Path from the outermost bundle, nested bundles separated by `/`.
        public let path: String
        public let bytes: ByteSlice

        /// Whether the member is a TFLite flatbuffer (by its file identifier, not its name).
        public var isTFLiteModel: Bool {
            bytes.count >= 8 && bytes.withUnsafeBytes { Array($0[4..<8]) } == Array("TFL3".utf8)
        }
    }

    /// Every leaf member, nested bundles expanded, in archive order.
    public let members: [Member]

    /// Nested bundles are expanded this deep at most; real bundles nest once.
    public static let maximumNesting = 4
    /// Entries visited over all nesting levels. Real bundles have a handful; the cap stops a hostile archive whose
    /// entries all point at one nested bundle from multiplying at every level.
    public static let maximumEntries = 4096

    /// Reads a bundle or a bare model from `bytes`; `name` is used for the single member of a bare model.
    public init(bytes: ByteSlice, name: String = "model.tflite") throws(FormatError) {
        if Member(path: name, bytes: bytes).isTFLiteModel {
            members = [Member(path: name, bytes: bytes)]
        } else {
            guard ZipArchive.containsArchive(bytes) else {
                throw .notAZipArchive(reason: "neither a TFLite model (no TFL3 identifier) nor a .task zip bundle")
            }
            var members: [Member] = []
            var budget = Self.maximumEntries
            try Self.expand(ZipArchive(bytes: bytes), prefix: "", depth: 0, budget: &budget, into: &members)
            self.members = members
        }
    }

    /// Opens (maps) the file at `path`.
    public init(path: String) throws(FormatError) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        try self.init(bytes: try ByteSlice.mapping(path: path), name: name)
    }

    private static func expand(
        _ archive: ZipArchive, prefix: String, depth: Int, budget: inout Int, into members: inout [Member]
    ) throws(FormatError) {
        for entry in archive.entries where !entry.name.hasSuffix("/") {
            budget -= 1
            guard budget >= 0 else { throw .tooComplex(what: "bundle with more than \(maximumEntries) entries") }
            let path = prefix + entry.name
            let bytes = try archive.contents(of: entry)
            if entry.name.hasSuffix(".task") {
                guard depth < maximumNesting else {
                    throw .tooComplex(what: "bundle nesting at '\(path)'")
                }
                try expand(ZipArchive(bytes: bytes), prefix: path + "/", depth: depth + 1, budget: &budget, into: &members)
            } else {
                members.append(Member(path: path, bytes: bytes))
            }
        }
    }

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
