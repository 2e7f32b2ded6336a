import Foundation
import VisionTasksImaging
import VisionTasksModelFormat
import VisionTasks
import VisionTasksTestSupport
import VisionTasksTooling
import XCTest

/// The holistic landmarker's API as MediaPipe's `MPPHolisticLandmarker` has it: options by both releases' names, typed
/// errors for bad options and wrong models, running modes, the live stream, and thread counts that change nothing.
final class HolisticLandmarkerAPITests: XCTestCase {
    private func options(_ mode: RunningMode = .image) -> HolisticLandmarkerOptions {
        let options = HolisticLandmarkerOptions()
        options.baseOptions.modelAssetPath = Repository.modelPath("holistic_landmarker.task")
        options.runningMode = mode
        return options
    }

    private func image(_ name: String) throws -> MPImage {
        try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/\(name)").path)
    }

    /// MediaPipe 1.x's defaults (MPPHolisticLandmarkerOptions.h: suppression 0.3, the others 0.5, both outputs off),
    /// and 0.10's names setting the same values.
    /// MediaPipe's fields are the first person's, read and written through `people`: a changed field and `people`
    /// cannot disagree, and setting a field of an empty result makes its person the first.
    func testFieldsAreTheFirstPersons() {
        let point = NormalizedLandmark(x: 0.25, y: 0.5, z: 0)
        var result = HolisticLandmarkerResult(people: [], timestampInMilliseconds: 7)
        XCTAssertEqual(result.poseLandmarks, [])
        XCTAssertNil(result.faceBlendshapes)
        result.leftHandLandmarks = [point]
        XCTAssertEqual(result.people, [HolisticPerson(leftHandLandmarks: [point])])
        let second = HolisticPerson(poseLandmarks: [point, point])
        result.people.append(second)
        result.poseLandmarks = [point]
        XCTAssertEqual(result.people, [HolisticPerson(poseLandmarks: [point], leftHandLandmarks: [point]), second])
        // MediaPipe's initializer: nobody when every field is empty, else the one person its fields describe.
        let none = HolisticLandmarkerResult(faceLandmarks: [], faceBlendshapes: nil, poseLandmarks: [], poseWorldLandmarks: [],
                                            poseSegmentationMask: nil, leftHandLandmarks: [], leftHandWorldLandmarks: [],
                                            rightHandLandmarks: [], rightHandWorldLandmarks: [], timestampInMilliseconds: 0)
        XCTAssertEqual(none.people, [])
        let face = HolisticLandmarkerResult(faceLandmarks: [point], faceBlendshapes: nil, poseLandmarks: [], poseWorldLandmarks: [],
                                            poseSegmentationMask: nil, leftHandLandmarks: [], leftHandWorldLandmarks: [],
                                            rightHandLandmarks: [], rightHandWorldLandmarks: [], timestampInMilliseconds: 0)
        XCTAssertEqual(face.people, [HolisticPerson(faceLandmarks: [point])])
        XCTAssertEqual(face.faceLandmarks, [point])
    }

    func testDefaultsAndBothReleasesNames() {
        let o = HolisticLandmarkerOptions()
        XCTAssertEqual([o.minFaceDetectionConfidence, o.minFaceSuppressionThreshold, o.minFacePresenceConfidence,
                        o.minPoseDetectionConfidence, o.minPoseSuppressionThreshold, o.minPosePresenceConfidence,
                        o.minHandLandmarksConfidence], [0.5, 0.3, 0.5, 0.5, 0.3, 0.5, 0.5])
        XCTAssertFalse(o.outputFaceBlendshapes)
        XCTAssertFalse(o.outputPoseSegmentationMasks)
        o.minFaceLandmarksConfidence = 0.7
        o.minPoseLandmarksConfidence = 0.6
        o.outputSegmentationMask = true
        XCTAssertEqual(o.minFacePresenceConfidence, 0.7)
        XCTAssertEqual(o.minPosePresenceConfidence, 0.6)
        XCTAssertTrue(o.outputPoseSegmentationMasks)
        let copy = o.copy()
        o.minPosePresenceConfidence = 0.1
        XCTAssertEqual(copy.minPoseLandmarksConfidence, 0.6, "a copy keeps its own values")
    }

    func testOptionsOutOfRangeAreTypedErrors() {
        let cases: [(String, (HolisticLandmarkerOptions) -> Void)] = [
            ("minFaceDetectionConfidence", { $0.minFaceDetectionConfidence = 1.5 }),
            ("minFaceSuppressionThreshold", { $0.minFaceSuppressionThreshold = -0.1 }),
            ("minFacePresenceConfidence", { $0.minFaceLandmarksConfidence = .nan }),
            ("minPoseDetectionConfidence", { $0.minPoseDetectionConfidence = .infinity }),
            ("minPoseSuppressionThreshold", { $0.minPoseSuppressionThreshold = 2 }),
            ("minPosePresenceConfidence", { $0.minPosePresenceConfidence = -1 }),
            ("minHandLandmarksConfidence", { $0.minHandLandmarksConfidence = 1.01 }),
        ]
        for (name, change) in cases {
            let o = options()
            change(o)
            XCTAssertThrowsError(try HolisticLandmarker(options: o)) { error in
                guard case .invalidOption(let option, _) = error as? VisionTaskError else { return XCTFail("\(error)") }
                XCTAssertEqual(option, name)
            }
        }
        XCTAssertThrowsError(try HolisticLandmarker(options: options(.liveStream))) { error in
            XCTAssertEqual(error as? VisionTaskError, .missingLiveStreamDelegate)
        }
    }

    /// Another task's bundle lacks the holistic members (the pose bundle has no face or hand models; the face bundle
    /// no pose models); a single .tflite is no bundle; a missing file is a model error.
    func testWrongModelAndMissingFileAreTypedErrors() {
        for wrong in ["pose_landmarker_lite.task", "face_landmarker.task", "hand_landmarker.task"] {
            let o = options()
            o.baseOptions.modelAssetPath = Repository.modelPath(wrong)
            XCTAssertThrowsError(try HolisticLandmarker(options: o), wrong) { error in
                guard case .wrongModel = error as? VisionTaskError else { return XCTFail("\(wrong): \(error)") }
            }
        }
        let o = options()
        o.baseOptions.modelAssetPath = Repository.modelPath("face_detection_short_range.tflite")
        XCTAssertThrowsError(try HolisticLandmarker(options: o)) { error in
            XCTAssertNotNil(error as? VisionTaskError, "\(error)")
        }
        o.baseOptions.modelAssetPath = "/nonexistent/holistic.task"
        XCTAssertThrowsError(try HolisticLandmarker(options: o)) { error in
            guard case .model = error as? VisionTaskError else { return XCTFail("\(error)") }
        }
    }

    func testMethodsMustMatchTheRunningModeAndTimestampsIncrease() throws {
        let frame = try image("pose4.jpg")
        let imageMode = try HolisticLandmarker(options: options())
        XCTAssertThrowsError(try imageMode.detect(videoFrame: frame, timestampInMilliseconds: 0)) { error in
            guard case .wrongRunningMode = error as? VisionTaskError else { return XCTFail("\(error)") }
        }
        let video = try HolisticLandmarker(options: options(.video))
        XCTAssertThrowsError(try video.detect(image: frame))
        _ = try video.detect(videoFrame: frame, timestampInMilliseconds: 10)
        XCTAssertThrowsError(try video.detect(videoFrame: frame, timestampInMilliseconds: 10)) { error in
            XCTAssertEqual(error as? VisionTaskError, .nonIncreasingTimestamp(previous: 10, current: 10))
        }
        XCTAssertEqual(try video.detect(videoFrame: frame, timestampInMilliseconds: 20).poseLandmarks.count, 33)
    }

    /// Nobody in the picture, or a person without a visible face or hands: empty parts, never an error — in every
    /// mode, and with every output on (MediaPipe 0.10.14 aborts the process on a missing hand).
    func testAbsentPartsAreEmptyNeverErrors() throws {
        let empty = try image("obj_kitchen_empty.jpg"), person = try image("pose1.jpg")
        for mode in [RunningMode.image, .video] {
            let o = options(mode)
            o.outputFaceBlendshapes = true
            o.outputPoseSegmentationMasks = true
            let landmarker = try HolisticLandmarker(options: o)
            var t = 0
            func detect(_ image: MPImage) throws -> HolisticLandmarkerResult {
                t += 33
                return mode == .image ? try landmarker.detect(image: image) : try landmarker.detect(videoFrame: image, timestampInMilliseconds: t)
            }
            for image in [empty, person, empty, person] {
                let result = try detect(image)
                if image.width == empty.width {
                    XCTAssertEqual(result, HolisticLandmarkerResult(
                        faceLandmarks: [], faceBlendshapes: nil, poseLandmarks: [], poseWorldLandmarks: [], poseSegmentationMask: nil,
                        leftHandLandmarks: [], leftHandWorldLandmarks: [], rightHandLandmarks: [], rightHandWorldLandmarks: [],
                        timestampInMilliseconds: mode == .image ? 0 : t))
                } else {
                    // pose1.jpg: a pose and both hands, no face (MediaPipe 1.2.3 finds none either).
                    XCTAssertEqual(result.poseLandmarks.count, 33)
                    XCTAssertEqual(result.faceLandmarks.count, 0)
                    XCTAssertNil(result.faceBlendshapes)
                    XCTAssertNotNil(result.poseSegmentationMask)
                }
            }
        }
    }

    final class Recorder: HolisticLandmarkerLiveStreamDelegate, @unchecked Sendable {
        let lock = NSLock()
        var timestamps: [Int] = []
        var poses: [Int] = []
        var dropped: [Int] = []
        func holisticLandmarker(_ holisticLandmarker: HolisticLandmarker, didFinishDetection result: HolisticLandmarkerResult?,
                                timestampInMilliseconds: Int, error: (any Error)?) {
            lock.lock(); defer { lock.unlock() }
            timestamps.append(timestampInMilliseconds)
            poses.append(result?.poseLandmarks.count ?? -1)
        }
        func holisticLandmarker(_ holisticLandmarker: HolisticLandmarker, didDropFrameAtTimestampInMilliseconds timestamp: Int) {
            lock.lock(); defer { lock.unlock() }
            dropped.append(timestamp)
        }
    }

    /// Live stream: every frame answered once (a result or a drop), results in timestamp order.
    func testLiveStreamAnswersEveryFrameInOrder() throws {
        let recorder = Recorder()
        let o = options(.liveStream)
        o.holisticLandmarkerLiveStreamDelegate = recorder
        o.outputPoseSegmentationMasks = true
        let landmarker = try HolisticLandmarker(options: o)
        let frame = try image("pose4.jpg")
        for t in 0..<40 {
            try landmarker.detectAsync(image: frame, timestampInMilliseconds: t)
            usleep(2000)
        }
        landmarker.waitUntilIdle()
        recorder.lock.lock(); defer { recorder.lock.unlock() }
        XCTAssertEqual(recorder.timestamps.count + recorder.dropped.count, 40)
        XCTAssertGreaterThan(recorder.timestamps.count, 1)
        XCTAssertEqual(recorder.timestamps, recorder.timestamps.sorted())
        XCTAssertTrue(recorder.poses.allSatisfy { $0 == 33 }, "\(recorder.poses)")
    }

    /// `numThreads` splits work, never changes a number: image mode on three photos and video mode on the clip's
    /// first frames (tracking, smoothing, the mask blended) are bit-identical at 1, 2 and 3 threads.
    func testResultsAreIdenticalAtOneTwoAndThreeThreads() throws {
        let images = try ["pose4.jpg", "hand_standing.png", "multi1.jpg"].map { try image($0) }
        var frames: [(MPImage, Int)] = []
        let video = try VideoDecoder(path: Repository.shared.appendingPathComponent("videos/full_body_juggle.mp4").path)
        while frames.count < 8, let frame = try video.nextFrame() { frames.append((frame.image, frame.timestampMs)) }
        func run(_ threads: Int) throws -> [HolisticLandmarkerResult] {
            func make(_ mode: RunningMode) throws -> HolisticLandmarker {
                let o = options(mode)
                o.baseOptions.numThreads = threads
                o.outputFaceBlendshapes = true
                o.outputPoseSegmentationMasks = true
                return try HolisticLandmarker(options: o)
            }
            let still = try make(.image), moving = try make(.video)
            return try images.map { try still.detect(image: $0) }
                + frames.map { try moving.detect(videoFrame: $0.0, timestampInMilliseconds: $0.1) }
        }
        let one = try run(1)
        XCTAssertEqual(one.filter { !$0.poseLandmarks.isEmpty }.count, images.count + frames.count, "a pose in every input")
        for threads in [2, 3] {
            let other = try run(threads)
            XCTAssertEqual(other.count, one.count)
            for (index, (a, b)) in zip(one, other).enumerated() {
                XCTAssertTrue(a == b, "result \(index) differs between 1 and \(threads) threads")
            }
        }
    }

    /// The holistic bundle's members, some left out or replaced, written as a new bundle.
    private func bundle(without omitted: Set<String> = [], replacing replaced: [String: [UInt8]] = [:]) throws -> String {
        let original = try TaskBundle(path: Repository.modelPath("holistic_landmarker.task"))
        let members = try original.memberPaths.filter { !omitted.contains($0) }.map { name in
            (name: name, bytes: try replaced[name] ?? original.member(name).bytes.bytes)
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("holistic-\(getpid())-\(UUID().uuidString).task").path
        try StoredZip.data(members).write(to: URL(fileURLWithPath: path))
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    /// Every member the graph needs is required (MediaPipe's graph asks for each, blendshapes only when asked for);
    /// a member that is another model (the face detector where the hand re-crop model should be) or damaged bytes is
    /// a typed error, never a trap.
    func testMissingSwappedOrDamagedMembersAreTypedErrors() throws {
        let original = try TaskBundle(path: Repository.modelPath("holistic_landmarker.task"))
        for member in ["pose_detector.tflite", "pose_landmarks_detector.tflite", "face_detector.tflite",
                       "face_landmarks_detector.tflite", "hand_landmarks_detector.tflite", "hand_roi_refinement.tflite"] {
            let o = options()
            o.baseOptions.modelAssetPath = try bundle(without: [member])
            XCTAssertThrowsError(try HolisticLandmarker(options: o), member) { error in
                guard case .wrongModel = error as? VisionTaskError else { return XCTFail("\(member) missing: \(error)") }
            }
        }
        // Without the blendshape model: fine unless blendshapes are asked for.
        let noBlendshapes = try bundle(without: ["face_blendshapes.tflite"])
        let o = options()
        o.baseOptions.modelAssetPath = noBlendshapes
        XCTAssertEqual(try HolisticLandmarker(options: o).detect(image: image("pose4.jpg")).faceLandmarks.count, 478)
        o.outputFaceBlendshapes = true
        XCTAssertThrowsError(try HolisticLandmarker(options: o)) { error in
            guard case .wrongModel = error as? VisionTaskError else { return XCTFail("\(error)") }
        }
        let faceDetector = try original.member("face_detector.tflite").bytes.bytes
        for (member, bytes) in [("hand_roi_refinement.tflite", faceDetector), ("hand_landmarks_detector.tflite", faceDetector),
                                ("pose_landmarks_detector.tflite", faceDetector), ("face_detector.tflite", Array(faceDetector.prefix(4000))),
                                ("pose_detector.tflite", [UInt8](repeating: 0x5A, count: 64))] {
            let o = options()
            o.baseOptions.modelAssetPath = try bundle(replacing: [member: bytes])
            XCTAssertThrowsError(try HolisticLandmarker(options: o), member) { error in
                XCTAssertNotNil(error as? VisionTaskError, "\(member): untyped \(error)")
            }
        }
    }

    /// Video mode with the mask on over frames of changing sizes (where MediaPipe 1.2.3 fails the frame: its mask
    /// smoothing needs equal sizes), at the extremes of the accepted timestamps: each frame's mask is its own size,
    /// every number finite. Tiny and thin images answer without a trap.
    func testChangingFrameSizesExtremeTimestampsAndTinyImages() throws {
        let o = options(.video)
        o.outputPoseSegmentationMasks = true
        let landmarker = try HolisticLandmarker(options: o)
        let accepted = VisionTaskError.acceptedTimestamps
        let frames = try [image("pose1.jpg"), image("pose4.jpg"), image("pose1.jpg"), image("hand_standing.png")]
        for (frame, timestamp) in zip(frames, [accepted.lowerBound, 0, 1, accepted.upperBound]) {
            let result = try landmarker.detect(videoFrame: frame, timestampInMilliseconds: timestamp)
            XCTAssertEqual(result.poseLandmarks.count, 33, "\(timestamp)")
            let mask = try XCTUnwrap(result.poseSegmentationMask)
            XCTAssertEqual([mask.width, mask.height], [frame.width, frame.height])
            XCTAssertTrue(mask.float32Values.allSatisfy { $0.isFinite && $0 >= 0 && $0 <= 1 })
            let points = result.poseLandmarks + result.faceLandmarks + result.leftHandLandmarks + result.rightHandLandmarks
            XCTAssertTrue(points.allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }, "\(timestamp)")
        }
        let still = try HolisticLandmarker(options: options())
        for (width, height) in [(1, 1), (1, 300), (300, 1), (3, 2)] {
            let tiny = try MPImage(pixels: [UInt8](repeating: 128, count: width * height * 3), width: width, height: height, format: .rgb8)
            XCTAssertNoThrow(try still.detect(image: tiny), "\(width) × \(height)")
        }
    }
}
