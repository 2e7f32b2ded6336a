/// A decoded FlexBuffer value — the schemaless format of TFLite custom operator options
/// (e.g. `TFLite_Detection_PostProcess`'s `max_detections`, `nms_iou_threshold`, …).
public indirect enum FlexValue: Sendable, Equatable {
    case null
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case bool(Bool)
    case key(String)
    case string(String)
    case blob([UInt8])
    case vector([FlexValue])
    case map([String: FlexValue])

    /// The value for `key` when this is a map.
    public subscript(key: String) -> FlexValue? {
        if case let .map(entries) = self { return entries[key] }
        return nil
    }

    /// Any numeric or boolean value as a Double.
    public var doubleValue: Double? {
        switch self {
        case let .int(v): return Double(v)
        case let .uint(v): return Double(v)
        case let .double(v): return v
        case let .bool(v): return v ? 1 : 0
        default: return nil
        }
    }

    /// Any integral or boolean value as an Int64 (nil when out of range or fractional).
    public var intValue: Int64? {
        switch self {
        case let .int(v): return v
        case let .uint(v): return Int64(exactly: v)
        case let .bool(v): return v ? 1 : 0
        case let .double(v): return Int64(exactly: v)
        default: return nil
        }
    }

    /// Decodes the FlexBuffer in `bytes`.
    ///
    /// Layout from the FlexBuffers specification: the last byte is the root's byte width, the one before it the
    /// root's packed type (type << 2 | log2 width), and the root value sits just before those two bytes. Offsets
    /// point backwards. Nesting is limited to ``maximumDepth`` and total elements to the buffer size.
    public static func decode(_ bytes: ByteSlice) throws(FormatError) -> FlexValue {
        try bytes.withUnsafeBytes { (raw) throws(FormatError) -> FlexValue in
            var reader = FlexReader(bytes: raw)
            return try reader.root()
        }
    }

    public static let maximumDepth = 64
}

private struct FlexReader {
    let bytes: UnsafeRawBufferPointer
    var budget: Int

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        self.budget = bytes.count + 16
    }

    func fail(_ reason: String) -> FormatError { .invalidFlexBuffer(reason: reason) }

    func uint(at position: Int, width: Int) throws(FormatError) -> UInt64 {
        guard [1, 2, 4, 8].contains(width), position >= 0, position <= bytes.count - width else {
            throw fail("read of \(width) bytes at \(position) outside \(bytes.count) bytes")
        }
        var value: UInt64 = 0
        for i in 0..<width { value |= UInt64(bytes[position + i]) << (8 * UInt64(i)) }
        return value
    }

    func int(at position: Int, width: Int) throws(FormatError) -> Int64 {
        let raw = try uint(at: position, width: width)
        let shift = UInt64(64 - 8 * width)
        return Int64(bitPattern: raw << shift) >> Int64(shift)
    }

    func double(at position: Int, width: Int) throws(FormatError) -> Double {
        switch width {
        case 4: return Double(Float(bitPattern: UInt32(try uint(at: position, width: 4))))
        case 8: return Double(bitPattern: try uint(at: position, width: 8))
        default: throw fail("float of width \(width)")
        }
    }

    /// Follows a backwards offset stored at `position`.
    func indirect(at position: Int, width: Int) throws(FormatError) -> Int {
        let offset = try uint(at: position, width: width)
        guard offset <= UInt64(position) else { throw fail("offset \(offset) before start of buffer") }
        return position - Int(offset)
    }

    mutating func charge(_ count: Int) throws(FormatError) {
        budget -= count
        if budget < 0 { throw FormatError.tooComplex(what: "FlexBuffer") }
    }

    mutating func root() throws(FormatError) -> FlexValue {
        guard bytes.count >= 3 else { throw fail("\(bytes.count) bytes is too short") }
        let width = Int(bytes[bytes.count - 1])
        let packed = bytes[bytes.count - 2]
        guard [1, 2, 4, 8].contains(width), bytes.count >= 2 + width else { throw fail("root width \(width)") }
        return try value(at: bytes.count - 2 - width, parentWidth: width, packed: packed, depth: 0)
    }

    mutating func value(at position: Int, parentWidth: Int, packed: UInt8, depth: Int) throws(FormatError) -> FlexValue {
        guard depth < FlexValue.maximumDepth else { throw fail("nested deeper than \(FlexValue.maximumDepth)") }
        try charge(1)
        let type = Int(packed >> 2)
        let width = 1 << Int(packed & 3)
        switch type {
        case 0: return .null
        case 1: return .int(try int(at: position, width: parentWidth))
        case 2: return .uint(try uint(at: position, width: parentWidth))
        case 3: return .double(try double(at: position, width: parentWidth))
        case 26: return .bool(try uint(at: position, width: parentWidth) != 0)
        case 4:
            let key = try key(at: try indirect(at: position, width: parentWidth))
            try charge(key.utf8.count)
            return .key(key)
        case 5, 25:
            let start = try indirect(at: position, width: parentWidth)
            let count = try uint(at: start - width, width: width)
            guard count <= UInt64(bytes.count - start) else { throw fail("string/blob length \(count)") }
            try charge(Int(count))
            let content = Array(bytes[start..<(start + Int(count))])
            return type == 5 ? .string(String(decoding: content, as: UTF8.self)) : .blob(content)
        case 6: return .int(try int(at: try indirect(at: position, width: parentWidth), width: width))
        case 7: return .uint(try uint(at: try indirect(at: position, width: parentWidth), width: width))
        case 8: return .double(try double(at: try indirect(at: position, width: parentWidth), width: width))
        case 9:
            let start = try indirect(at: position, width: parentWidth)
            let count = try elementCount(before: start, width: width)
            let keysStart = try indirect(at: start - 3 * width, width: width)
            // Checked as the file's UInt64 before it becomes an Int: a width near 2^64 must not trap the conversion.
            let declaredKeysWidth = try uint(at: start - 2 * width, width: width)
            guard [1, 2, 4, 8].contains(declaredKeysWidth) else { throw fail("map keys width \(declaredKeysWidth)") }
            let keysWidth = Int(declaredKeysWidth)
            guard try uint(at: keysStart - keysWidth, width: keysWidth) == UInt64(count) else {
                throw fail("map keys do not match its \(count) values")
            }
            let values = try untypedElements(start: start, count: count, width: width, depth: depth)
            var map: [String: FlexValue] = [:]
            for (i, value) in values.enumerated() {
                let keyPosition = try indirect(at: keysStart + i * keysWidth, width: keysWidth)
                let key = try key(at: keyPosition)
                try charge(key.utf8.count)
                map[key] = value
            }
            return .map(map)
        case 10:
            let start = try indirect(at: position, width: parentWidth)
            let count = try elementCount(before: start, width: width)
            return .vector(try untypedElements(start: start, count: count, width: width, depth: depth))
        case 11...15, 36:
            let start = try indirect(at: position, width: parentWidth)
            let count = try elementCount(before: start, width: width)
            let elementType: UInt8 = type == 36 ? 26 : UInt8(type - 10)
            return .vector(try typedElements(start: start, count: count, width: width, elementType: elementType, depth: depth))
        case 16...24:
            let start = try indirect(at: position, width: parentWidth)
            let count = (type - 16) / 3 + 2
            let elementType = UInt8((type - 16) % 3 + 1)
            return .vector(try typedElements(start: start, count: count, width: width, elementType: elementType, depth: depth))
        default:
            throw fail("unknown type \(type)")
        }
    }

    func key(at position: Int) throws(FormatError) -> String {
        guard position >= 0, position < bytes.count,
              let end = bytes[position...].firstIndex(of: 0) else { throw fail("unterminated key") }
        return String(decoding: bytes[position..<end], as: UTF8.self)
    }

    mutating func elementCount(before start: Int, width: Int) throws(FormatError) -> Int {
        let count = try uint(at: start - width, width: width)
        guard count <= UInt64(bytes.count / width) else { throw fail("vector length \(count)") }
        try charge(Int(count))
        return Int(count)
    }

    /// Elements of an untyped vector or map: `count` values of `width` bytes, then `count` packed-type bytes.
    mutating func untypedElements(start: Int, count: Int, width: Int, depth: Int) throws(FormatError) -> [FlexValue] {
        let types = start + count * width
        guard start >= 0, types <= bytes.count - count else { throw fail("vector of \(count) outside buffer") }
        var result: [FlexValue] = []
        for i in 0..<count {
            result.append(try value(at: start + i * width, parentWidth: width, packed: bytes[types + i], depth: depth + 1))
        }
        return result
    }

    mutating func typedElements(start: Int, count: Int, width: Int, elementType: UInt8, depth: Int) throws(FormatError) -> [FlexValue] {
        guard start >= 0, count * width <= bytes.count - start else { throw fail("vector of \(count) outside buffer") }
        var result: [FlexValue] = []
        for i in 0..<count {
            // Packed type with width bits 0: scalar element types take their width from the parent.
            result.append(try value(at: start + i * width, parentWidth: width, packed: elementType << 2, depth: depth + 1))
        }
        return result
    }
}
