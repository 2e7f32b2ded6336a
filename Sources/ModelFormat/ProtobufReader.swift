// Protobuf's wire format (proto2 semantics), for the few serialized messages inside task bundles; the schemas that
// read them live with their tasks (the face landmarker's FaceGeometryMetadata).
//
// Why a small reader of our own rather than apple/swift-protobuf: what we read is a handful of fixed messages, read
// once when a task is created. swift-protobuf's generator plugin takes some 9.5 minutes to build here, and its runtime
// library would be built on every CI clone, for what is about 150 lines of decoding. Reading the wire format
// ourselves also keeps this reader like every other one in the module: every offset is bounds-checked, and damaged or
// hostile bytes come back as a typed `FormatError`, never a trap.
//
// Package access: the readers are ours, not part of any product's API.

/// Protobuf wire types.
package enum ProtobufWireType: UInt64 {
    case varint = 0, fixed64 = 1, lengthDelimited = 2, startGroup = 3, endGroup = 4, fixed32 = 5
}

package struct ProtobufField {
    package var number: UInt32
    package var wireType: ProtobufWireType
}

/// Reads the fields of one message in `bytes[range]`, every read checked against the range's end.
package struct ProtobufReader {
    private let bytes: [UInt8]
    private let end: Int
    private let message: String
    private var offset: Int

    /// Nested unknown groups skipped at most this deep (protobuf's own recursion limit is 100).
    package static let maximumGroupDepth = 100

    package init(bytes: [UInt8], range: Range<Int>, message: String) {
        self.bytes = bytes
        self.end = range.upperBound
        self.message = message
        self.offset = range.lowerBound
    }

    /// The next field's tag, or nil at the end of the message.
    package mutating func nextField() throws(FormatError) -> ProtobufField? {
        guard offset < end else { return nil }
        let at = offset
        let tag = try readVarint()
        guard let wireType = ProtobufWireType(rawValue: tag & 7) else {
            throw .invalidValue(what: "protobuf wire type in \(message) at offset \(at)", value: Int64(tag & 7))
        }
        let number = tag >> 3
        guard number > 0, number <= 0x1FFF_FFFF else {
            throw .invalidValue(what: "protobuf field number in \(message) at offset \(at)", value: Int64(truncatingIfNeeded: number))
        }
        return ProtobufField(number: UInt32(number), wireType: wireType)
    }

    package mutating func varint(_ field: ProtobufField, _ name: String) throws(FormatError) -> UInt64 {
        try expect(field, .varint, name)
        return try readVarint()
    }

    /// A uint32 field; protobuf would keep the low 32 bits of a wider varint, we call that damage.
    package mutating func uint32(_ field: ProtobufField, _ name: String) throws(FormatError) -> UInt32 {
        try expect(field, .varint, name)
        return try readUInt32(name)
    }

    package mutating func fixed32(_ field: ProtobufField, _ name: String) throws(FormatError) -> UInt32 {
        try expect(field, .fixed32, name)
        return try readFixed32()
    }

    /// The byte range of an embedded message.
    package mutating func messageRange(_ field: ProtobufField, _ name: String) throws(FormatError) -> Range<Int> {
        try expect(field, .lengthDelimited, name)
        return try readLengthDelimited(name)
    }

    /// A repeated float: one unpacked fixed32, or a packed run of them.
    package mutating func appendFloats(_ field: ProtobufField, _ name: String, to values: inout [Float]) throws(FormatError) {
        switch field.wireType {
        case .fixed32:
            values.append(Float(bitPattern: try readFixed32()))
        case .lengthDelimited:
            let range = try readLengthDelimited(name)
            guard range.count % 4 == 0 else {
                throw .invalidValue(what: "byte length of packed \(message).\(name) (not a multiple of 4)", value: Int64(range.count))
            }
            values.reserveCapacity(values.count + range.count / 4)
            var at = range.lowerBound
            while at < range.upperBound {
                values.append(Float(bitPattern: littleEndian32(at)))
                at += 4
            }
        default:
            throw wrongWireType(field, name)
        }
    }

    /// A repeated uint32: one unpacked varint, or a packed run of them.
    package mutating func appendUInt32s(_ field: ProtobufField, _ name: String, to values: inout [UInt32]) throws(FormatError) {
        switch field.wireType {
        case .varint:
            values.append(try readUInt32(name))
        case .lengthDelimited:
            let range = try readLengthDelimited(name)
            var packed = ProtobufReader(bytes: bytes, range: range, message: "\(message).\(name)")
            while packed.offset < packed.end {
                values.append(try packed.readUInt32(name))
            }
        default:
            throw wrongWireType(field, name)
        }
    }

    /// Skips an unknown field by its wire type; a group up to its matching end, without recursion.
    package mutating func skip(_ field: ProtobufField) throws(FormatError) {
        switch field.wireType {
        case .varint: _ = try readVarint()
        case .fixed64: try advance(8, "fixed64 field \(field.number)")
        case .fixed32: try advance(4, "fixed32 field \(field.number)")
        case .lengthDelimited: _ = try readLengthDelimited("field \(field.number)")
        case .endGroup:
            throw .invalidValue(what: "protobuf end-group tag without a group in \(message), field", value: Int64(field.number))
        case .startGroup:
            var open: [UInt32] = [field.number]
            while let last = open.last {
                guard let inner = try nextField() else {
                    throw .truncated(what: "protobuf group \(last) in \(message)", needed: end + 1, available: end)
                }
                switch inner.wireType {
                case .startGroup:
                    guard open.count < Self.maximumGroupDepth else {
                        throw .invalidValue(what: "protobuf group nesting depth in \(message) (limit \(Self.maximumGroupDepth))",
                                            value: Int64(open.count + 1))
                    }
                    open.append(inner.number)
                case .endGroup:
                    guard inner.number == last else {
                        throw .invalidValue(what: "protobuf end-group field number (group \(last) open) in \(message)",
                                            value: Int64(inner.number))
                    }
                    open.removeLast()
                default:
                    try skip(inner)
                }
            }
        }
    }

    private func expect(_ field: ProtobufField, _ wireType: ProtobufWireType, _ name: String) throws(FormatError) {
        guard field.wireType == wireType else { throw wrongWireType(field, name) }
    }

    private func wrongWireType(_ field: ProtobufField, _ name: String) -> FormatError {
        .invalidValue(what: "wire type of \(message) field \(field.number) (\(name))", value: Int64(field.wireType.rawValue))
    }

    private mutating func readVarint() throws(FormatError) -> UInt64 {
        let start = offset
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < end else {
                throw .truncated(what: "protobuf varint in \(message) at offset \(start)", needed: offset + 1 - start,
                                 available: end - start)
            }
            let byte = bytes[offset]
            offset += 1
            // The tenth byte holds the 64th bit only.
            guard shift < 63 || byte <= 1 else {
                throw .invalidValue(what: "protobuf varint longer than 64 bits in \(message) at offset", value: Int64(start))
            }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    private mutating func readUInt32(_ name: String) throws(FormatError) -> UInt32 {
        let value = try readVarint()
        guard let narrow = UInt32(exactly: value) else {
            throw .invalidValue(what: "\(message) \(name) (wider than 32 bits)", value: Int64(truncatingIfNeeded: value))
        }
        return narrow
    }

    private mutating func readFixed32() throws(FormatError) -> UInt32 {
        let at = offset
        try advance(4, "fixed32")
        return littleEndian32(at)
    }

    private mutating func readLengthDelimited(_ name: String) throws(FormatError) -> Range<Int> {
        let at = offset
        let length = try readVarint()
        guard length <= UInt64(end - offset) else {
            throw .outOfRange(what: "protobuf \(message).\(name) (tag at \(at))", offset: offset,
                              length: Int(clamping: length), size: end)
        }
        let start = offset
        offset += Int(length)
        return start..<offset
    }

    private mutating func advance(_ count: Int, _ what: String) throws(FormatError) {
        guard count <= end - offset else {
            throw .truncated(what: "protobuf \(what) in \(message) at offset \(offset)", needed: count, available: end - offset)
        }
        offset += count
    }

    private func littleEndian32(_ at: Int) -> UInt32 {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }
}
