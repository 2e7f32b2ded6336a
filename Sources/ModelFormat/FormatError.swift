/// Everything that can be wrong with a model file, a bundle or its metadata.
///
/// Every reader in this module reports hostile or damaged input through this type; none of them traps.
public enum FormatError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be opened or read.
    case fileUnreadable(path: String, reason: String)
    /// The bytes are too short to hold what their header promises.
    case truncated(what: String, needed: Int, available: Int)
    /// An offset or a length points outside the bytes.
    case outOfRange(what: String, offset: Int, length: Int, size: Int)
    /// The bytes are not a flatbuffer of the expected kind.
    case notAFlatBuffer(reason: String)
    /// The TFLite schema version is not one this reader understands.
    case unsupportedSchemaVersion(UInt32)
    /// A value is present but not allowed by the schema (an index past its table, a negative size, …).
    case invalidValue(what: String, value: Int64)
    /// The file has more structure than its size can honestly hold (a hostile DAG of shared offsets).
    case tooComplex(what: String)
    /// The bytes are not a zip archive, or one whose directory is damaged.
    case notAZipArchive(reason: String)
    /// A zip member uses a feature we do not read (encryption, a compression method other than stored/deflate).
    case unsupportedZipFeature(member: String, feature: String)
    /// A zip member's bytes do not inflate or do not match their checksum.
    case corruptZipMember(member: String, reason: String)
    /// Two zip entries claim the same bytes (a hostile archive inflating one member many times over).
    case overlappingZipMembers(first: String, second: String)
    /// Inflating a member would take the bundle's inflated bytes past its budget.
    case inflationBudgetExceeded(member: String, size: Int, used: Int, limit: Int)
    /// A bundle does not hold a member that the caller asked for.
    case missingBundleMember(name: String, available: [String])
    /// A FlexBuffer (custom operator options) is malformed.
    case invalidFlexBuffer(reason: String)
    /// The model is well formed but is not the model this task needs.
    case wrongModel(expected: String, found: String)

    public var description: String {
        switch self {
        case let .fileUnreadable(path, reason): return "cannot read '\(path)': \(reason)"
        case let .truncated(what, needed, available):
            return "truncated \(what): needs \(needed) bytes, has \(available)"
        case let .outOfRange(what, offset, length, size):
            return "\(what) out of range: offset \(offset), length \(length), size \(size)"
        case let .notAFlatBuffer(reason): return "not a TFLite flatbuffer: \(reason)"
        case let .unsupportedSchemaVersion(version): return "unsupported TFLite schema version \(version)"
        case let .invalidValue(what, value): return "invalid \(what): \(value)"
        case let .tooComplex(what): return "\(what) is larger than its file can hold"
        case let .notAZipArchive(reason): return "not a zip archive: \(reason)"
        case let .unsupportedZipFeature(member, feature):
            return "zip member '\(member)' uses an unsupported feature: \(feature)"
        case let .corruptZipMember(member, reason): return "zip member '\(member)' is corrupt: \(reason)"
        case let .overlappingZipMembers(first, second):
            return "zip members '\(first)' and '\(second)' overlap: an archive whose entries share bytes is refused"
        case let .inflationBudgetExceeded(member, size, used, limit):
            return "zip member '\(member)' inflates to \(size) bytes, over what is left (\(limit - used) of \(limit)) "
                + "of the bundle's inflation budget"
        case let .missingBundleMember(name, available):
            return "bundle has no member '\(name)' (members: \(available.joined(separator: ", ")))"
        case let .invalidFlexBuffer(reason): return "invalid FlexBuffer: \(reason)"
        case let .wrongModel(expected, found): return "wrong model: expected \(expected), found \(found)"
        }
    }
}
