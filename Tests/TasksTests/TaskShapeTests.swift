import VisionTasksTestSupport
import XCTest
import VisionTasks

/// The shape every task shares (`TaskOptions`, `VisionTask`, `Detecting`): what one base gives all six tasks alike.
final class TaskShapeTests: XCTestCase {
    final class AnyDelegate: PoseLandmarkerLiveStreamDelegate, FaceLandmarkerLiveStreamDelegate, HandLandmarkerLiveStreamDelegate,
        GestureRecognizerLiveStreamDelegate, ObjectDetectorLiveStreamDelegate, ImageClassifierLiveStreamDelegate {
        func poseLandmarker(_ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?, timestampInMilliseconds: Int, error: (any Error)?) {}
        func faceLandmarker(_ faceLandmarker: FaceLandmarker, didFinishDetection result: FaceLandmarkerResult?, timestampInMilliseconds: Int, error: (any Error)?) {}
        func handLandmarker(_ handLandmarker: HandLandmarker, didFinishDetection result: HandLandmarkerResult?, timestampInMilliseconds: Int, error: (any Error)?) {}
        func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, didFinishRecognition result: GestureRecognizerResult?, timestampInMilliseconds: Int, error: (any Error)?) {}
        func objectDetector(_ objectDetector: ObjectDetector, didFinishDetection result: ObjectDetectorResult?, timestampInMilliseconds: Int, error: (any Error)?) {}
        func imageClassifier(_ imageClassifier: ImageClassifier, didFinishClassification result: ImageClassifierResult?, timestampInMilliseconds: Int, error: (any Error)?) {}
    }

    /// A delegate outside live-stream mode is refused under the task's own MediaPipe property name, which the base
    /// derives from the options class; the check runs before any model is opened.
    func testEachTaskNamesItsOwnDelegateProperty() {
        let delegate = AnyDelegate()
        func refusal<Task: VisionTask>(_: Task.Type, _ options: Task.Options) -> String? {
            options.baseOptions.modelAssetPath = "/nonexistent.task"
            do {
                _ = try Task(options: options)
                return nil
            } catch VisionTaskError.invalidOption(let name, _) {
                return name
            } catch {
                return "\(error)"
            }
        }
        let pose = PoseLandmarkerOptions(), face = FaceLandmarkerOptions(), hand = HandLandmarkerOptions()
        let gesture = GestureRecognizerOptions(), objects = ObjectDetectorOptions(), classifier = ImageClassifierOptions()
        pose.poseLandmarkerLiveStreamDelegate = delegate
        face.faceLandmarkerLiveStreamDelegate = delegate
        hand.handLandmarkerLiveStreamDelegate = delegate
        gesture.gestureRecognizerLiveStreamDelegate = delegate
        objects.objectDetectorLiveStreamDelegate = delegate
        classifier.imageClassifierLiveStreamDelegate = delegate
        XCTAssertEqual(refusal(PoseLandmarker.self, pose), "poseLandmarkerLiveStreamDelegate")
        XCTAssertEqual(refusal(FaceLandmarker.self, face), "faceLandmarkerLiveStreamDelegate")
        XCTAssertEqual(refusal(HandLandmarker.self, hand), "handLandmarkerLiveStreamDelegate")
        XCTAssertEqual(refusal(GestureRecognizer.self, gesture), "gestureRecognizerLiveStreamDelegate")
        XCTAssertEqual(refusal(ObjectDetector.self, objects), "objectDetectorLiveStreamDelegate")
        XCTAssertEqual(refusal(ImageClassifier.self, classifier), "imageClassifierLiveStreamDelegate")
    }

    /// `copy()` (the base's) carries the shared options, the task's own and the delegate, and is independent after.
    func testCopyCarriesEveryLayerOfOptions() throws {
        let delegate = AnyDelegate()
        let gesture = GestureRecognizerOptions()
        gesture.baseOptions.numThreads = 3
        gesture.runningMode = .liveStream
        gesture.numHands = 2
        gesture.minTrackingConfidence = 0.25
        gesture.cannedGesturesClassifierOptions = ClassifierOptions(maxResults: 4)
        gesture.customGesturesClassifierOptions = ClassifierOptions()
        gesture.customGesturesClassifierOptions?.categoryDenylist = ["None"]
        gesture.gestureRecognizerLiveStreamDelegate = delegate
        let copy = gesture.copy()
        gesture.numHands = 1
        gesture.cannedGesturesClassifierOptions?.maxResults = -1
        gesture.baseOptions.numThreads = nil
        // A deep copy: the classes inside (base and classifier options) are new instances.
        XCTAssertFalse(copy.baseOptions === gesture.baseOptions)
        XCTAssertFalse(copy.cannedGesturesClassifierOptions === gesture.cannedGesturesClassifierOptions)
        XCTAssertEqual(copy.baseOptions.numThreads, 3)
        XCTAssertEqual(copy.runningMode, .liveStream)
        XCTAssertEqual(copy.numHands, 2)
        XCTAssertEqual(copy.minTrackingConfidence, 0.25)
        XCTAssertEqual(copy.cannedGesturesClassifierOptions?.maxResults, 4)
        XCTAssertEqual(copy.customGesturesClassifierOptions?.categoryDenylist, ["None"])
        XCTAssertTrue(copy.gestureRecognizerLiveStreamDelegate === delegate)

        let classifier = ImageClassifierOptions()
        classifier.maxResults = 3
        classifier.categoryAllowlist = ["cat"]
        let classifierCopy = classifier.copy()
        classifier.maxResults = -1
        XCTAssertEqual(classifierCopy.maxResults, 3)
        XCTAssertEqual(classifierCopy.categoryAllowlist, ["cat"])

        let pose = PoseLandmarkerOptions()
        pose.outputSegmentationMasks = true
        pose.landmarkSmoothing = .always
        let poseCopy = pose.copy()
        pose.outputSegmentationMasks = false
        XCTAssertTrue(poseCopy.outputSegmentationMasks)
        XCTAssertEqual(poseCopy.landmarkSmoothing, .always)
    }

    /// Code generic over `Detecting` (the example in the DocC article MediaPipeCode.md) gets the same result as the task's own method, and
    /// `init(modelPath:)` comes from the protocol for every task.
    func testGenericCodeOverDetectingTasks() throws {
        func landmarkCount<Task: Detecting>(_ task: Task, in image: MPImage, count: (Task.Result) -> Int) throws -> Int {
            count(try task.detect(image: image))
        }
        let image = try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/pose1.jpg").path)
        let landmarker = try PoseLandmarker(modelPath: Repository.modelPath("pose_landmarker_lite.task"))
        let direct = try landmarker.detect(image: image)
        XCTAssertEqual(try landmarkCount(landmarker, in: image) { $0.landmarks.first?.count ?? 0 }, 33)
        XCTAssertEqual(try landmarker.detect(image: image), direct)
        landmarker.close()
        XCTAssertThrowsError(try landmarker.detect(image: image)) { error in
            guard case VisionTaskError.taskClosed = error else { return XCTFail("\(error)") }
        }
    }
}

/// MediaPipe's options classes: `BaseOptions` and `ClassifierOptions` are classes whose property setters copy, and a
/// task keeps a snapshot of its options.
final class OptionsClassTests: XCTestCase {
    func testBaseOptionsAssignmentCopiesAndTheTaskKeepsASnapshot() throws {
        let path = Repository.modelPath("pose_landmarker_lite.task")
        let options = PoseLandmarkerOptions()
        let base = BaseOptions()
        XCTAssertEqual(base.modelAssetPath, "", "MediaPipe's default path is empty, not nil")
        XCTAssertEqual(base.delegate, .CPU)
        base.modelAssetPath = path
        base.delegate = .GPU
        options.baseOptions = base
        base.modelAssetPath = "/nonexistent.task"
        XCTAssertEqual(options.baseOptions.modelAssetPath, path, "assigning stores a copy, as MediaPipe's `copy` property")
        XCTAssertEqual(options.baseOptions.delegate, .GPU)
        XCTAssertFalse(options.baseOptions === base)

        let copy = options.copy()
        options.baseOptions.modelAssetPath = "/elsewhere.task"
        XCTAssertEqual(copy.baseOptions.modelAssetPath, path, "copy() copies the base options too")

        options.baseOptions.modelAssetPath = path
        let landmarker = try PoseLandmarker(options: options)
        // Changes after creation reach nothing: the task runs on with the model and mode it was made with.
        options.baseOptions.modelAssetPath = "/nonexistent.task"
        options.baseOptions.numThreads = 0
        options.runningMode = .video
        let image = try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/pose1.jpg").path)
        XCTAssertEqual(try landmarker.detect(image: image).landmarks.count, 1)
    }

    func testRawValuesAreMediaPipes() {
        XCTAssertEqual(RunningMode(rawValue: 0), .image)
        XCTAssertEqual(RunningMode(rawValue: 1), .video)
        XCTAssertEqual(RunningMode(rawValue: 2), .liveStream)
        XCTAssertNil(RunningMode(rawValue: 3))
        XCTAssertEqual(Delegate(rawValue: 0), .CPU)
        XCTAssertEqual(Delegate(rawValue: 1), .GPU)
        XCTAssertEqual(MaskDataType(rawValue: 0), .uInt8)
        XCTAssertEqual(MaskDataType(rawValue: 1), .float32)
        XCTAssertEqual(HandLandmark.pinkyTIP.rawValue, 20)
        XCTAssertEqual(TasksErrorCode.invalidArgumentError.rawValue, 3)
        let error: any Error = VisionTaskError.invalidOption(name: "numPoses", reason: "0 is below 1")
        XCTAssertEqual((error as NSError).domain, "com.google.mediapipe.tasks")
        XCTAssertEqual((error as NSError).code, 3)
        XCTAssertEqual(error.localizedDescription, "invalid option `numPoses`: 0 is below 1")
    }

    /// A mask read as the type it is not converts as MediaPipe's `MPPMask.mm` does.
    func testMaskConvertsBetweenItsTypes() throws {
        let floats = Mask(width: 3, height: 2, float32Data: [0, 0.5, 1, 0.999, 0.25, 0.1])
        XCTAssertEqual(floats.dataType, .float32)
        XCTAssertEqual(floats.uint8Values, [0, 127, 255, 254, 63, 25])
        XCTAssertEqual(floats.float32Data[1], 0.5)
        var bytes: [UInt8] = [0, 51, 255, 128]
        let mask = try XCTUnwrap(Mask(uint8Data: &bytes, width: 2, height: 2, shouldCopy: false))
        bytes[1] = 0
        XCTAssertEqual(mask.uint8Data[1], 51, "the values are the mask's own")
        XCTAssertEqual(mask.float32Values, [0, Float(51) / 255, 1, Float(128) / 255])
        XCTAssertEqual(mask.float32Data, mask.float32Data, "the conversion is made once and kept")
        let none: [Float] = []
        XCTAssertNil(Mask(float32Data: none, width: -1, height: 2, shouldCopy: true))
    }
}
