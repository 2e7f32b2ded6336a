import Foundation
import VisionTasksModelFormat
import VisionTasksTestSupport
import XCTest

/// MediaPipe's object detector metadata (DETECTOR_METADATA, EfficientDet-Lite's anchors and decoding options) read as
/// MediaPipe's own generated reader reads it (Tests/Fixtures/detector_metadata_reference.json, made by
/// tools/mediapipe_detector_metadata.py): every decoding field, every anchor (by SHA-256 of their float32 values, in
/// order), and the fuzz seeds' small blobs.
final class ObjectDetectorMetadataTests: XCTestCase {
    struct Decoding: Decodable, Equatable {
        let classCount: Int32, boxCount: Int32, coordinateCount: Int32, keypointCoordinateOffset: Int32, keypointCount: Int32
        let valuesPerKeypoint: Int32, xScale: Float, yScale: Float, widthScale: Float, heightScale: Float
        let appliesExponentialOnBoxSize: Bool, appliesSigmoidToScores: Bool
    }
    struct Entry: Decodable {
        let model: String, entryBytes: Int, minParserVersion: String, decoding: Decoding
        let anchorCount: Int, anchorsSHA256: String, firstAnchors: [[Float]], lastAnchor: [Float]
    }
    struct File: Decodable { let entries: [Entry] }

    func testEfficientDetMetadataMatchesMediaPipesReader() throws {
        let data = try Data(contentsOf: Repository.fixtures.appendingPathComponent("detector_metadata_reference.json"))
        let file = try JSONDecoder().decode(File.self, from: data)
        XCTAssertFalse(file.entries.isEmpty)
        for entry in file.entries {
            let model = try TFLiteModel(path: Repository.modelPath(entry.model))
            let subgraph = try XCTUnwrap(try model.modelMetadata()?.subgraphs.first, entry.model)
            XCTAssertEqual(subgraph.customMetadata(named: ObjectDetectorMetadata.entryName)?.data.count, entry.entryBytes)
            let metadata = try XCTUnwrap(try subgraph.objectDetectorMetadata(), entry.model)
            let decoding = try XCTUnwrap(metadata.decoding)
            XCTAssertEqual(Decoding(classCount: decoding.classCount, boxCount: decoding.boxCount, coordinateCount: decoding.coordinateCount,
                                    keypointCoordinateOffset: decoding.keypointCoordinateOffset, keypointCount: decoding.keypointCount,
                                    valuesPerKeypoint: decoding.valuesPerKeypoint, xScale: decoding.xScale, yScale: decoding.yScale,
                                    widthScale: decoding.widthScale, heightScale: decoding.heightScale,
                                    appliesExponentialOnBoxSize: decoding.appliesExponentialOnBoxSize,
                                    appliesSigmoidToScores: decoding.appliesSigmoidToScores), entry.decoding)
            XCTAssertEqual(metadata.minParserVersion, entry.minParserVersion)
            XCTAssertEqual(metadata.anchors.count, entry.anchorCount)
            var packed = Data()
            for anchor in metadata.anchors {
                for value in [anchor.xCenter, anchor.yCenter, anchor.width, anchor.height] {
                    withUnsafeBytes(of: value.bitPattern.littleEndian) { packed.append(contentsOf: $0) }
                }
            }
            XCTAssertEqual(SHA256.hash(data: packed).map { String(format: "%02x", $0) }.joined(), entry.anchorsSHA256)
            let values = metadata.anchors.map { [$0.xCenter, $0.yCenter, $0.width, $0.height] }
            XCTAssertEqual(Array(values.prefix(entry.firstAnchors.count)), entry.firstAnchors)
            XCTAssertEqual(values.last, entry.lastAnchor)
        }
    }

    /// The fuzz seeds (tools/make_fuzz_seeds.py writes them with flatbuffers' builder; MediaPipe's reader gives the
    /// values below), and damaged blobs: typed errors, never a trap.
    func testSmallBlobsAndDamagedOnes() throws {
        let folder = Repository.root.appendingPathComponent("Tests/Fuzz/corpus/detector-metadata")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        XCTAssertEqual(names.count, 2)
        for name in names {
            let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(name)))
            let metadata = try ObjectDetectorMetadata(bytes: ByteStorage(copying: bytes).slice)
            XCTAssertEqual(metadata.anchors.count, 3, name)
            XCTAssertEqual(metadata.anchors[2].height, 2.244924, name)
            XCTAssertEqual(metadata.decoding?.classCount, name.hasPrefix("anchors-only") ? nil : 90, name)
            // Every truncation and a flipped identifier are errors (or, where the cut leaves a valid table, values).
            for length in stride(from: 0, to: bytes.count, by: 7) {
                _ = try? ObjectDetectorMetadata(bytes: ByteStorage(copying: Array(bytes.prefix(length))).slice)
            }
            var wrong = bytes
            wrong[4] = UInt8(ascii: "M")
            XCTAssertThrowsError(try ObjectDetectorMetadata(bytes: ByteStorage(copying: wrong).slice), name)
        }
    }
}
