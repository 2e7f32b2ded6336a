import VisionTasksModelFormat

/// SplitMix64: a small, seedable generator so that every mutant can be reproduced from its seed.
public struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A model file held in one mutable buffer, mutated in place and restored after each mutant: a 9 MB bundle
/// costs no copy per mutant.
public final class MutableModelFile {
    public let name: String
    private let buffer: UnsafeMutableRawBufferPointer
    private let original: [UInt8]
    /// Byte ranges that hold the file's structure rather than weights: offsets, vtables, tables, zip headers.
    /// Mutations aim there most of the time, since flipping a weight byte tests nothing.
    private let structural: [Range<Int>]

    public init(name: String, bytes: [UInt8]) throws {
        self.name = name
        original = bytes
        buffer = .allocate(byteCount: max(bytes.count, 1), alignment: 16)
        buffer.copyBytes(from: bytes)
        structural = try Self.structuralRanges(of: bytes, name: name)
    }

    deinit { buffer.deallocate() }

    public var count: Int { original.count }

    /// Everything that is not the payload of a constant buffer of some member model.
    private static func structuralRanges(of bytes: [UInt8], name: String) throws -> [Range<Int>] {
        let storage = ByteStorage(copying: bytes)
        let bundle = try TaskBundle(bytes: storage.slice, name: name)
        var payload: [Range<Int>] = []
        for member in bundle.members where member.isTFLiteModel {
            let model = try TFLiteModel(bytes: member.bytes)
            for buffer in model.buffers where buffer.count > 64 {
                payload.append(buffer.offset..<(buffer.offset + buffer.count))
            }
        }
        payload.sort { $0.lowerBound < $1.lowerBound }
        var ranges: [Range<Int>] = []
        var cursor = 0
        for range in payload where range.lowerBound >= cursor {
            if range.lowerBound > cursor { ranges.append(cursor..<range.lowerBound) }
            cursor = range.upperBound
        }
        if cursor < bytes.count { ranges.append(cursor..<bytes.count) }
        return ranges
    }

    private func position(_ rng: inout SplitMix64) -> Int {
        if !structural.isEmpty, Int.random(in: 0..<10, using: &rng) < 9 {
            let weights = structural.map(\.count)
            var pick = Int.random(in: 0..<weights.reduce(0, +), using: &rng)
            for range in structural {
                if pick < range.count { return range.lowerBound + pick }
                pick -= range.count
            }
        }
        return Int.random(in: 0..<max(count, 1), using: &rng)
    }

    private static let interesting32: [UInt32] = [
        0, 1, 2, 3, 4, 8, 0x7F, 0x80, 0xFF, 0x100, 0xFFFF, 0x1_0000, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, 0xFFFF_FFFE,
        0xFFFF_FFFC,
    ]

    /// Applies one random mutation, runs `body` over the mutant, then restores the file.
    public func withMutant<R>(seed: UInt64, _ body: (ByteSlice) -> R) -> R {
        var rng = SplitMix64(seed: seed)
        guard count > 0 else { return body(ByteStorage(unownedBytes: UnsafeRawBufferPointer(buffer)).slice) }
        var touched: [Int] = []
        func set(_ index: Int, _ value: UInt8) {
            guard index >= 0, index < count else { return }
            touched.append(index)
            buffer[index] = value
        }
        var length = count
        switch Int.random(in: 0..<7, using: &rng) {
        case 0:  // flip 1–4 bits
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let at = position(&rng)
                set(at, buffer[at] ^ (1 << UInt8.random(in: 0..<8, using: &rng)))
            }
        case 1:  // overwrite 1–8 random bytes
            for _ in 0..<Int.random(in: 1...8, using: &rng) { set(position(&rng), .random(in: 0...255, using: &rng)) }
        case 2:  // an aligned 32-bit offset or length replaced by a boundary value, or one nudged
            let at = position(&rng) & ~3
            var value = Self.interesting32.randomElement(using: &rng)!
            if Bool.random(using: &rng) {
                let old = (0..<4).reduce(UInt32(0)) { $0 | UInt32(at + $1 < count ? buffer[at + $1] : 0) << (8 * $1) }
                value = old &+ UInt32(bitPattern: Int32.random(in: -64...64, using: &rng))
            }
            for k in 0..<4 { set(at + k, UInt8(truncatingIfNeeded: value >> (8 * UInt32(k)))) }
        case 3:  // a 16-bit vtable entry or zip field replaced
            let at = position(&rng) & ~1
            let value = [0, 1, 4, 0xFF, 0xFFFF, UInt16.random(in: 0...0xFFFF, using: &rng)].randomElement(using: &rng)!
            set(at, UInt8(value & 0xFF))
            set(at + 1, UInt8(value >> 8))
        case 4:  // truncated at a structural point
            length = position(&rng)
        case 5:  // truncated anywhere (short prefixes included)
            length = Bool.random(using: &rng) ? Int.random(in: 0..<min(count, 64), using: &rng) : Int.random(in: 0..<count, using: &rng)
        default:  // a run of bytes zeroed or filled with 0xFF
            let at = position(&rng)
            let fill: UInt8 = Bool.random(using: &rng) ? 0 : 0xFF
            for k in 0..<Int.random(in: 2...32, using: &rng) { set(at + k, fill) }
        }
        let result = body(ByteStorage(unownedBytes: UnsafeRawBufferPointer(rebasing: buffer[0..<length])).slice)
        for index in touched { buffer[index] = original[index] }
        return result
    }
}
