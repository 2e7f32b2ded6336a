import Foundation
import VisionTasksModelFormat

/// An array in NumPy's `.npy` format (version 1.0–3.0), the interchange format of `vision-tasks model run`
/// and of the LiteRT goldens.
///
/// Reads little-endian C-order arrays of float32, float16, int8, uint8, int16, int32, int64 and bool; writes
/// version 1.0 files.
public struct NumPyArray: Sendable, Equatable {
    public enum ElementType: String, Sendable, CaseIterable {
        case float32 = "<f4", float16 = "<f2", int8 = "|i1", uint8 = "|u1", int16 = "<i2", int32 = "<i4"
        case int64 = "<i8", bool = "|b1"

        public var byteSize: Int {
            switch self {
            case .int8, .uint8, .bool: return 1
            case .float16, .int16: return 2
            case .float32, .int32: return 4
            case .int64: return 8
            }
        }
    }

    public var type: ElementType
    public var shape: [Int]
    /// Element bytes, little-endian, C order.
    public var bytes: [UInt8]

    public init(type: ElementType, shape: [Int], bytes: [UInt8]) {
        self.type = type
        self.shape = shape
        self.bytes = bytes
    }

    public init(float32 values: [Float], shape: [Int]) {
        self.init(type: .float32, shape: shape, bytes: values.withUnsafeBytes { Array($0) })
    }

    /// The product of the shape. A parsed array's bytes hold exactly this many elements; for a shape built by
    /// hand whose product overflows (no bytes could back it) this is `Int.max`.
    public var elementCount: Int {
        var product = 1
        for dimension in shape {
            let (next, overflow) = product.multipliedReportingOverflow(by: dimension)
            if overflow { return .max }
            product = next
        }
        return product
    }

    /// The elements as Float, converting from any numeric type; no more than `bytes` hold, should a hand-built
    /// array's shape promise more.
    public var floats: [Float] {
        bytes.withUnsafeBytes { raw in
            (0..<max(0, min(elementCount, raw.count / type.byteSize))).map { i -> Float in
                switch type {
                case .float32: return raw.loadUnaligned(fromByteOffset: 4 * i, as: Float.self)
                case .float16: return Float(Float16(bitPattern: raw.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self)))
                case .int8: return Float(raw.load(fromByteOffset: i, as: Int8.self))
                case .uint8, .bool: return Float(raw[i])
                case .int16: return Float(raw.loadUnaligned(fromByteOffset: 2 * i, as: Int16.self))
                case .int32: return Float(raw.loadUnaligned(fromByteOffset: 4 * i, as: Int32.self))
                case .int64: return Float(raw.loadUnaligned(fromByteOffset: 8 * i, as: Int64.self))
                }
            }
        }
    }

    private static let magic: [UInt8] = [0x93] + Array("NUMPY".utf8)

    /// Parses a `.npy` file.
    public init(npy data: ByteSlice) throws(FormatError) {
        let raw = data.bytes
        guard raw.count >= 10, Array(raw[0..<6]) == Self.magic else {
            throw .invalidValue(what: "npy magic (not a .npy file)", value: Int64(raw.count))
        }
        let major = raw[6]
        let headerLength: Int
        let headerStart: Int
        switch major {
        case 1:
            headerLength = Int(raw[8]) | Int(raw[9]) << 8
            headerStart = 10
        case 2, 3:
            guard raw.count >= 12 else { throw .truncated(what: "npy header", needed: 12, available: raw.count) }
            headerLength = (0..<4).reduce(0) { $0 | Int(raw[8 + $1]) << (8 * $1) }
            headerStart = 12
        default:
            throw .invalidValue(what: "npy major version", value: Int64(major))
        }
        guard headerLength <= raw.count - headerStart else {
            throw .truncated(what: "npy header", needed: headerStart + headerLength, available: raw.count)
        }
        let header = String(decoding: raw[headerStart..<(headerStart + headerLength)], as: UTF8.self)
        func field(_ key: String) -> Substring? {
            guard let range = header.range(of: "'\(key)':") else { return nil }
            return header[range.upperBound...].drop { $0 == " " }
        }
        guard let descr = field("descr"), descr.first == "'",
              let end = descr.dropFirst().firstIndex(of: "'") else {
            throw .invalidValue(what: "npy header without descr", value: 0)
        }
        let code = String(descr[descr.index(after: descr.startIndex)..<end])
        guard let type = ElementType(rawValue: code == "<b1" ? "|b1" : code) else {
            throw .invalidValue(what: "npy dtype '\(code)' (supported: \(ElementType.allCases.map(\.rawValue)))", value: 0)
        }
        if let order = field("fortran_order"), order.hasPrefix("True") {
            throw .invalidValue(what: "npy fortran_order arrays", value: 1)
        }
        guard let shapeText = field("shape"), shapeText.first == "(",
              let close = shapeText.firstIndex(of: ")") else {
            throw .invalidValue(what: "npy header without shape", value: 0)
        }
        var shape: [Int] = []
        for part in shapeText[shapeText.index(after: shapeText.startIndex)..<close].split(separator: ",") {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            guard let dimension = Int(trimmed), dimension >= 0, dimension <= raw.count else {
                throw .invalidValue(what: "npy dimension '\(trimmed)'", value: 0)
            }
            shape.append(dimension)
        }
        var count = 1
        for dimension in shape {
            let (next, overflow) = count.multipliedReportingOverflow(by: dimension)
            guard !overflow, next <= raw.count else { throw .invalidValue(what: "npy element count", value: Int64(next)) }
            count = next
        }
        let start = headerStart + headerLength
        guard count * type.byteSize <= raw.count - start else {
            throw .truncated(what: "npy data", needed: start + count * type.byteSize, available: raw.count)
        }
        self.init(type: type, shape: shape, bytes: Array(raw[start..<(start + count * type.byteSize)]))
    }

    /// The array as a version 1.0 `.npy` file, or 2.0 when the header outgrows 1.0's 16-bit length (a shape of
    /// thousands of dimensions).
    public var npyData: [UInt8] {
        let shapeText = shape.count == 1 ? "(\(shape[0]),)" : "(" + shape.map(String.init).joined(separator: ", ") + ")"
        var header = "{'descr': '\(type.rawValue)', 'fortran_order': False, 'shape': \(shapeText), }"
        // Version 1.0 gives the header length in 2 bytes, 2.0 in 4 (NEP 1).
        let lengthBytes = header.utf8.count + 1 + 63 <= 0xFFFF ? 2 : 4
        // Pad with spaces so that the data starts on a 64-byte boundary, ending the header with a newline.
        let unpadded = 8 + lengthBytes + header.utf8.count + 1
        header += String(repeating: " ", count: (64 - unpadded % 64) % 64) + "\n"
        let length = header.utf8.count
        let version: UInt8 = lengthBytes == 2 ? 1 : 2
        let lengthField = (0..<lengthBytes).map { UInt8(truncatingIfNeeded: length >> (8 * $0)) }
        return Self.magic + [version, 0] + lengthField + Array(header.utf8) + bytes
    }
}
