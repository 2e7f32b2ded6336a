import VisionTasksModelFormat
import Foundation
import VisionTasksTestSupport
import VisionTasksTooling
import XCTest

/// Hand-made damage with a known right answer: each must be the named `FormatError`, not a trap.
final class HostileInputTests: XCTestCase {
    private func bytes(of file: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: Repository.modelPath(file))))
    }

    private func parse(_ bytes: [UInt8]) throws -> TFLiteModel {
        try TFLiteModel(bytes: ByteStorage(copying: bytes).slice)
    }

    private func writeUInt32(_ value: UInt32, at position: Int, in bytes: inout [UInt8]) {
        for k in 0..<4 { bytes[position + k] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(k))) }
    }

    private func readUInt32(at position: Int, in bytes: [UInt8]) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[position + $1]) << (8 * UInt32($1)) }
    }

    /// Absolute position of field `field` of the root table (flatbuffers layout: root uoffset, soffset to vtable).
    private func rootField(_ field: Int, in bytes: [UInt8]) -> Int {
        let table = Int(readUInt32(at: 0, in: bytes))
        let vtable = table - Int(Int32(bitPattern: readUInt32(at: table, in: bytes)))
        let entry = vtable + 4 + 2 * field
        return table + Int(UInt16(bytes[entry]) | UInt16(bytes[entry + 1]) << 8)
    }

    func testTooShort() {
        for count in 0..<8 {
            XCTAssertThrowsError(try parse(Array(repeating: 0, count: count))) { error in
                guard case .truncated = error as? FormatError else { return XCTFail("\(count): \(error)") }
            }
        }
    }

    func testWrongIdentifier() throws {
        var model = try bytes(of: "selfie_segmentation.tflite")
        model[4] = UInt8(ascii: "X")
        XCTAssertThrowsError(try parse(model)) { error in
            guard case .notAFlatBuffer = error as? FormatError else { return XCTFail("\(error)") }
        }
    }

    func testUnknownSchemaVersion() throws {
        var model = try bytes(of: "selfie_segmentation.tflite")
        writeUInt32(2, at: rootField(0, in: model), in: &model)
        XCTAssertThrowsError(try parse(model)) { error in
            XCTAssertEqual(error as? FormatError, .unsupportedSchemaVersion(2))
        }
    }

    func testRootOffsetPastTheEnd() throws {
        var model = try bytes(of: "selfie_segmentation.tflite")
        writeUInt32(0xFFFF_FFF0, at: 0, in: &model)
        XCTAssertThrowsError(try parse(model)) { error in
            guard case .outOfRange = error as? FormatError else { return XCTFail("\(error)") }
        }
    }

    func testVectorLengthLargerThanTheFile() throws {
        var model = try bytes(of: "selfie_segmentation.tflite")
        // Field 1 of Model is operator_codes: an offset to a vector whose first word is its length.
        let field = rootField(1, in: model)
        let vector = field + Int(readUInt32(at: field, in: model))
        writeUInt32(0x7FFF_FFFF, at: vector, in: &model)
        XCTAssertThrowsError(try parse(model)) { error in
            guard case .outOfRange(what: "model.operator_codes", _, _, _) = error as? FormatError else { return XCTFail("\(error)") }
        }
    }

    func testModelWithoutSubgraphsIsAValueButNotAModelToRun() throws {
        var model = try bytes(of: "selfie_segmentation.tflite")
        // An offset of 0 makes the subgraphs field its own vector, whose length word now reads 0.
        writeUInt32(0, at: rootField(2, in: model), in: &model)
        let parsed = try parse(model)
        XCTAssertTrue(parsed.subgraphs.isEmpty)
        XCTAssertThrowsError(try MemberSummary(path: "selfie_segmentation.tflite", model: parsed)) { error in
            guard case .invalidValue = error as? FormatError else { return XCTFail("\(error)") }
        }
    }

    func testFlexBufferGarbage() {
        let cases: [[UInt8]] = [[], [1], [0, 0], [0xFF, 0xFF, 0xFF], [0, 0x24, 3], [1, 0x24, 1], [0xFF, 0x28, 1],
                                [1, 2, 3, 4, 5, 0x26, 1], Array(repeating: 0xFF, count: 64) + [0x24, 8]]
        for bytes in cases {
            XCTAssertThrowsError(try FlexValue.decode(ByteStorage(copying: bytes).slice), "\(bytes)")
        }
    }

    func testFlexBufferScalars() throws {
        // Hand-encoded per the FlexBuffers spec: value, packed type (type << 2 | log2 width), root width.
        XCTAssertEqual(try FlexValue.decode(ByteStorage(copying: [42, 1 << 2, 1]).slice), .int(42))
        XCTAssertEqual(try FlexValue.decode(ByteStorage(copying: [0xFE, 1 << 2, 1]).slice), .int(-2))
        XCTAssertEqual(try FlexValue.decode(ByteStorage(copying: [0xFE, 2 << 2, 1]).slice), .uint(254))
        XCTAssertEqual(try FlexValue.decode(ByteStorage(copying: [1, 26 << 2, 1]).slice), .bool(true))
        XCTAssertEqual(try FlexValue.decode(ByteStorage(copying: [0, 0, 0xC0, 0x3F, 3 << 2 | 2, 4]).slice), .double(1.5))
    }

    /// A `.npy` file of version `major` with `header` as its header, followed by `data`.
    private func npy(_ header: String, major: UInt8 = 1, data: [UInt8] = []) -> ByteSlice {
        let text = Array(header.utf8)
        let length = major == 1 ? [UInt8(text.count & 0xFF), UInt8(text.count >> 8)]
            : (0..<4).map { UInt8(truncatingIfNeeded: text.count >> (8 * $0)) }
        var bytes: [UInt8] = [0x93]
        bytes += Array("NUMPY".utf8)
        bytes += [major, 0]
        bytes += length + text + data
        return ByteStorage(copying: bytes).slice
    }

    func testNumPyDimensionsNearTheIntegerLimits() {
        let shapes = ["(9223372036854775807, 2)", "(4611686018427387904, 4)", "(99999999999999999999,)", "(-1, 4)",
                      "(2, 9223372036854775807)", "(100, 100, 100, 100, 100, 100, 100, 100, 100, 100)", "(0, 4611686018427387904)"]
        for shape in shapes {
            let header = "{'descr': '<f4', 'fortran_order': False, 'shape': \(shape), }\n"
            XCTAssertThrowsError(try NumPyArray(npy: npy(header, data: Array(repeating: 0, count: 64))), shape) { error in
                guard case let .invalidValue(what, _) = error as? FormatError, what.hasPrefix("npy") else {
                    return XCTFail("\(shape): \(error)")
                }
            }
        }
        // A version 2.0 header length of 2^32 − 1: past the file, not an allocation.
        let hugeHeader = ByteStorage(copying: [0x93] + Array("NUMPY".utf8) + [2, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0x7B]).slice
        XCTAssertThrowsError(try NumPyArray(npy: hugeHeader)) { error in
            guard case .truncated(what: "npy header", _, _) = error as? FormatError else { return XCTFail("\(error)") }
        }
    }

    func testNumPyShapeBuiltByHandNeverReadsPastItsBytes() throws {
        let array = NumPyArray(type: .float32, shape: [Int.max, 4], bytes: [0, 0, 0x80, 0x3F])
        XCTAssertEqual(array.elementCount, .max)
        XCTAssertEqual(array.floats, [1])
        // A header longer than version 1.0's 16-bit length is written as version 2.0, and reads back.
        let wide = NumPyArray(type: .uint8, shape: Array(repeating: 1, count: 30_000), bytes: [7])
        let written = wide.npyData
        XCTAssertEqual(written[6], 2)
        XCTAssertEqual(written.count % 64, 1)
        XCTAssertEqual(try NumPyArray(npy: ByteStorage(copying: written).slice), wide)
    }
}
