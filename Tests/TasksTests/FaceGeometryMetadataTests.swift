import Foundation
import VisionTasks
import VisionTasksModelFormat
import VisionTasksModelMutation
import VisionTasksTestSupport
import XCTest

/// The reader of `geometry_pipeline_metadata_landmarks.binarypb` (a serialized GeometryPipelineMetadata protobuf) on
/// the file MediaPipe ships and on damaged copies of it.
final class FaceGeometryMetadataTests: XCTestCase {
    static func shippedBytes() throws -> [UInt8] {
        let bundle = try TaskBundle(path: Repository.modelPath("face_landmarker.task"))
        return try bundle.member("geometry_pipeline_metadata_landmarks.binarypb").bytes.bytes
    }

    /// What MediaPipe's canonical_face_model.obj and geometry_pipeline_metadata_landmarks.pbtxt say: 468 vertices,
    /// 898 triangles, 33 Procrustes landmarks, the landmark pipeline.
    func testShippedMetadataDecodes() throws {
        let metadata = try FaceGeometryMetadata(serializedBytes: try Self.shippedBytes())
        XCTAssertEqual(metadata.inputSource, .faceLandmarkPipeline)
        XCTAssertEqual(metadata.vertexCount, 468)
        XCTAssertEqual(metadata.triangleIndices.count, 898 * 3)
        XCTAssertEqual(metadata.procrustesBasis.count, 33)
        XCTAssertTrue(metadata.procrustesBasis.allSatisfy { $0.weight > 0 && $0.landmarkID < 468 })
    }

    /// Every truncation throws a typed error or (cut between two fields, which protobuf cannot tell from an end)
    /// decodes to something else; none traps.
    func testTruncationsThrowOrDecodeShorter() throws {
        let bytes = try Self.shippedBytes()
        let whole = try FaceGeometryMetadata(serializedBytes: bytes)
        var thrown = 0
        for length in 0..<bytes.count {
            do {
                let partial = try FaceGeometryMetadata(serializedBytes: bytes[0..<length])
                XCTAssertNotEqual(partial, whole, "length \(length)")
            } catch {
                thrown += 1
            }
        }
        XCTAssertGreaterThan(thrown, bytes.count * 9 / 10)
    }

    func testDamagedFieldsAreTypedErrors() throws {
        let cases: [(String, [UInt8])] = [
            ("length past the end", [0x1A, 0x7F, 0x00]),
            ("overlong varint", [0x08] + [UInt8](repeating: 0xFF, count: 11)),
            ("wire type 7", [0x0F]),
            ("field number 0", [0x00, 0x01]),
            ("empty", []),
        ]
        for (name, bytes) in cases {
            XCTAssertThrowsError(try FaceGeometryMetadata(serializedBytes: bytes), name) { error in
                XCTAssertTrue(error is FormatError, "\(name): \(error)")
            }
        }
    }

    /// Random byte flips: a typed error or a value, never a trap.
    func testFlippedBytesNeverTrap() throws {
        let bytes = try Self.shippedBytes()
        var generator = SplitMix64(seed: 15)
        for _ in 0..<2000 {
            var damaged = bytes
            for _ in 0..<3 { damaged[Int(generator.next() % UInt64(damaged.count))] ^= UInt8(truncatingIfNeeded: generator.next() | 1) }
            _ = try? FaceGeometryMetadata(serializedBytes: damaged)
        }
    }
}
