import VisionTasksModelFormat
import VisionTasksTestSupport
import XCTest

/// Metadata facts stated in ../shared/models/MODELS.md (and visible in MediaPipe's own task graphs).
final class MetadataTests: XCTestCase {
    private func metadata(_ file: String, _ member: String) throws -> ModelMetadata {
        let model = try TaskBundle(path: Repository.modelPath(file)).model(member)
        return try XCTUnwrap(try model.modelMetadata(), "\(file)#\(member) has no metadata")
    }

    private func inputNormalization(_ metadata: ModelMetadata) throws -> (mean: [Float], std: [Float]) {
        try XCTUnwrap(metadata.subgraphs.first?.inputTensors.first?.normalization)
    }

    func testPoseDetectorNormalizesToMinusOneOne() throws {
        let normalization = try inputNormalization(try metadata("pose_landmarker_lite.task", "pose_detector.tflite"))
        XCTAssertEqual(normalization.mean, [127.5])
        XCTAssertEqual(normalization.std, [127.5])
    }

    func testLandmarkModelsNormalizeToZeroOne() throws {
        for (file, member) in [("pose_landmarker_lite.task", "pose_landmarks_detector.tflite"),
                               ("face_landmarker.task", "face_landmarks_detector.tflite"),
                               ("hand_landmarker.task", "hand_landmarks_detector.tflite")] {
            let normalization = try inputNormalization(try metadata(file, member))
            XCTAssertEqual(Set(normalization.mean), [0], file)
            XCTAssertEqual(Set(normalization.std), [255], file)
        }
    }

    func testFullPoseLandmarkModelCarriesNoTFLiteMetadata() throws {
        // LiteRT lists only min_runtime_version and reduced_precision_support for it (see the listing fixture):
        // the pose task must fall back to MediaPipe's [0, 1] input range for this member.
        let model = try TaskBundle(path: Repository.modelPath("pose_landmarker_full.task")).model("pose_landmarks_detector.tflite")
        XCTAssertNil(try model.modelMetadata())
    }

    func testSSDMetadataHasImageInputAndLabels() throws {
        let meta = try metadata("ssd_mobilenet_v1.tflite", "ssd_mobilenet_v1.tflite")
        let input = try XCTUnwrap(meta.subgraphs.first?.inputTensors.first)
        XCTAssertEqual(input.normalization?.mean, [127.5])
        XCTAssertEqual(input.normalization?.std, [127.5])
        guard case let .image(colorSpace, _, _)? = input.content else { return XCTFail("\(String(describing: input.content))") }
        XCTAssertEqual(colorSpace, 1, "RGB")
        let labelFiles = meta.allAssociatedFiles.filter { $0.kind == .tensorValueLabels }
        XCTAssertEqual(labelFiles.map(\.name), ["labels.txt"])
    }

    func testFaceBlendshapesHasNoMetadata() throws {
        let model = try TaskBundle(path: Repository.modelPath("face_landmarker.task")).model("face_blendshapes.tflite")
        XCTAssertNil(try model.modelMetadata())
    }

    func testMetadataOfWrongKindIsRejected() throws {
        // A model flatbuffer is not a metadata flatbuffer: the identifiers differ.
        let model = try TFLiteModel(path: Repository.modelPath("selfie_segmentation.tflite"))
        XCTAssertThrowsError(try ModelMetadata(bytes: model.bytes)) { error in
            guard case .notAFlatBuffer = error as? FormatError else { return XCTFail("\(error)") }
        }
    }
}
