import Foundation
import VisionTasksModelFormat
import VisionTasks
import VisionTasksTestSupport
import XCTest

/// The face landmarker's API beyond the reference numbers: options as MediaPipe checks them, bundles that are wrong
/// or damaged, results without the optional stages.
final class FaceLandmarkerAPITests: XCTestCase {
    private func options(_ model: String = Repository.modelPath("face_landmarker.task")) -> FaceLandmarkerOptions {
        let options = FaceLandmarkerOptions()
        options.baseOptions.modelAssetPath = model
        return options
    }

    private func image() throws -> MPImage {
        try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/face_day13.jpg").path)
    }

    /// The face bundle's members, with some left out or replaced, written as a new bundle.
    private func bundle(without omitted: Set<String> = [], replacing replaced: [String: [UInt8]] = [:]) throws -> String {
        let original = try TaskBundle(path: Repository.modelPath("face_landmarker.task"))
        let members = try original.memberPaths.filter { !omitted.contains($0) }.map { name in
            (name: name, bytes: try replaced[name] ?? original.member(name).bytes.bytes)
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("face-\(getpid())-\(UUID().uuidString).task").path
        try StoredZip.data(members).write(to: URL(fileURLWithPath: path))
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    private func assertError(_ options: FaceLandmarkerOptions, _ check: (VisionTaskError) -> Bool, _ label: String) {
        XCTAssertThrowsError(try FaceLandmarker(options: options), label) { error in
            guard let error = error as? VisionTaskError else { return XCTFail("\(label): untyped \(error)") }
            XCTAssertTrue(check(error), "\(label): \(error)")
        }
    }

    func testDefaultsAreMediaPipes() {
        let options = FaceLandmarkerOptions()
        XCTAssertEqual(options.runningMode, .image)
        XCTAssertEqual(options.numFaces, 1)
        XCTAssertEqual(options.minFaceDetectionConfidence, 0.5)
        XCTAssertEqual(options.minFacePresenceConfidence, 0.5)
        XCTAssertEqual(options.minTrackingConfidence, 0.5)
        XCTAssertFalse(options.outputFaceBlendshapes)
        XCTAssertFalse(options.outputFacialTransformationMatrixes)
    }

    func testOptionsOutOfRangeAreTypedErrors() {
        let cases: [(String, (FaceLandmarkerOptions) -> Void)] = [
            ("numFaces", { $0.numFaces = 0 }),
            ("minFaceDetectionConfidence", { $0.minFaceDetectionConfidence = 1.5 }),
            ("minFacePresenceConfidence", { $0.minFacePresenceConfidence = -0.1 }),
            ("minTrackingConfidence", { $0.minTrackingConfidence = .nan }),
            ("baseOptions.numThreads", { $0.baseOptions.numThreads = 0 }),
        ]
        for (name, change) in cases {
            let options = options()
            change(options)
            assertError(options, { if case .invalidOption(name, _) = $0 { return true }; return false }, name)
        }
        let live = options()
        live.runningMode = .liveStream
        assertError(live, { $0 == .missingLiveStreamDelegate }, "live stream without a delegate")
    }

    func testWrongOrIncompleteBundlesAreTypedErrors() throws {
        assertError(options(Repository.modelPath("pose_landmarker_lite.task")), {
            if case .wrongModel = $0 { return true }; return false
        }, "a pose bundle")
        assertError(options(try bundle(without: ["face_landmarks_detector.tflite"])), {
            if case let .wrongModel(reason) = $0 { return reason.contains("face_landmarks_detector.tflite") }; return false
        }, "no landmark model")

        // Blendshapes asked of a bundle without their model: refused at creation, as MediaPipe refuses it.
        let noBlendshapes = options(try bundle(without: ["face_blendshapes.tflite"]))
        XCTAssertNoThrow(try FaceLandmarker(options: noBlendshapes), "landmarks alone need no blendshape model")
        noBlendshapes.outputFaceBlendshapes = true
        assertError(noBlendshapes, {
            if case let .wrongModel(reason) = $0 { return reason.contains("face_blendshapes.tflite") }; return false
        }, "no blendshape model")

        let noGeometry = options(try bundle(without: ["geometry_pipeline_metadata_landmarks.binarypb"]))
        noGeometry.outputFacialTransformationMatrixes = true
        assertError(noGeometry, { if case .wrongModel = $0 { return true }; return false }, "no geometry metadata")
    }

    func testCorruptGeometryMetadataIsATypedError() throws {
        let original = try TaskBundle(path: Repository.modelPath("face_landmarker.task"))
        let bytes = try original.member("geometry_pipeline_metadata_landmarks.binarypb").bytes.bytes
        for damaged in [Array(bytes.prefix(bytes.count / 2)), [0x1A, 0xFF, 0xFF, 0x03] + bytes, [UInt8](repeating: 0xFF, count: 64)] {
            let options = options(try bundle(replacing: ["geometry_pipeline_metadata_landmarks.binarypb": damaged]))
            options.outputFacialTransformationMatrixes = true
            assertError(options, { if case .model = $0 { return true }; return false }, "damaged metadata (\(damaged.count) bytes)")
            options.outputFacialTransformationMatrixes = false
            XCTAssertNoThrow(try FaceLandmarker(options: options), "metadata not asked for is not read")
        }
    }

    func testOptionalStagesAreEmptyUnlessAskedFor() throws {
        let plain = try FaceLandmarker(options: options()).detect(image: try image())
        XCTAssertEqual(plain.faceLandmarks.map(\.count), [478])
        XCTAssertEqual(plain.faceBlendshapes, [])
        XCTAssertEqual(plain.facialTransformationMatrixes, [])
        let options = options()
        options.outputFaceBlendshapes = true
        options.outputFacialTransformationMatrixes = true
        let full = try FaceLandmarker(options: options).detect(image: try image())
        XCTAssertEqual(full.faceLandmarks, plain.faceLandmarks, "the optional stages do not change the landmarks")
        XCTAssertEqual(full.faceBlendshapes.map(\.categories.count), [52])
        XCTAssertEqual(full.facialTransformationMatrixes.map(\.rows), [4])
    }

    func testRunningModesAndTimestamps() throws {
        let video = options()
        video.runningMode = .video
        let landmarker = try FaceLandmarker(options: video)
        XCTAssertThrowsError(try landmarker.detect(image: try image())) { XCTAssertEqual($0 as? VisionTaskError, .wrongRunningMode(method: "detect(image:)", runningMode: .video)) }
        _ = try landmarker.detect(videoFrame: try image(), timestampInMilliseconds: 10)
        XCTAssertThrowsError(try landmarker.detect(videoFrame: try image(), timestampInMilliseconds: 10)) {
            XCTAssertEqual($0 as? VisionTaskError, .nonIncreasingTimestamp(previous: 10, current: 10))
        }
    }

    final class Answers: FaceLandmarkerLiveStreamDelegate, Sendable {
        let answers = LiveStreamAnswers<FaceLandmarkerResult>()
        func faceLandmarker(_ faceLandmarker: FaceLandmarker, didFinishDetection result: FaceLandmarkerResult?,
                            timestampInMilliseconds: Int, error: (any Error)?) {
            answers.finished(result, timestamp: timestampInMilliseconds, error: error)
        }
        func faceLandmarker(_ faceLandmarker: FaceLandmarker, didDropFrameAtTimestampInMilliseconds timestamp: Int) {
            answers.dropped(timestamp: timestamp)
        }
    }

    /// In live stream the blendshapes and the matrix are computed on the delivery queue, after the pipeline has
    /// moved on to the next frame; fed one frame per answer (nothing dropped), the results are video mode's,
    /// value for value — the stages read only their frame's landmarks.
    func testLiveStreamFinishesFramesAsVideoModeDoes() throws {
        let decoded = try videoFrames("face_head_turning.mp4", count: 15)
        let video = options(), live = options()
        for o in [video, live] { o.outputFaceBlendshapes = true; o.outputFacialTransformationMatrixes = true }
        video.runningMode = .video
        live.runningMode = .liveStream
        let delegate = Answers()
        live.faceLandmarkerLiveStreamDelegate = delegate
        let videoLandmarker = try FaceLandmarker(options: video), liveLandmarker = try FaceLandmarker(options: live)
        let results = try delegate.answers.feed(decoded) { try liveLandmarker.detectAsync(image: $0, timestampInMilliseconds: $1) }
        for frame in decoded {
            let expected = try videoLandmarker.detect(videoFrame: frame.image, timestampInMilliseconds: frame.timestamp)
            let result = try XCTUnwrap(results[frame.timestamp])
            XCTAssertEqual(expected.faceLandmarks.count, 1, "\(frame.timestamp)")
            XCTAssertEqual(result.faceLandmarks, expected.faceLandmarks, "\(frame.timestamp)")
            XCTAssertEqual(result.faceBlendshapes, expected.faceBlendshapes, "\(frame.timestamp)")
            XCTAssertEqual(result.facialTransformationMatrixes, expected.facialTransformationMatrixes, "\(frame.timestamp)")
        }
    }
}
