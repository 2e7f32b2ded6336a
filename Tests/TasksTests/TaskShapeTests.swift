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
        gesture.cannedGesturesClassifierOptions.maxResults = 4
        gesture.customGesturesClassifierOptions.categoryDenylist = ["None"]
        gesture.gestureRecognizerLiveStreamDelegate = delegate
        let copy = gesture.copy()
        gesture.numHands = 1
        gesture.cannedGesturesClassifierOptions.maxResults = nil
        gesture.baseOptions.numThreads = nil
        XCTAssertEqual(copy.baseOptions.numThreads, 3)
        XCTAssertEqual(copy.runningMode, .liveStream)
        XCTAssertEqual(copy.numHands, 2)
        XCTAssertEqual(copy.minTrackingConfidence, 0.25)
        XCTAssertEqual(copy.cannedGesturesClassifierOptions.maxResults, 4)
        XCTAssertEqual(copy.customGesturesClassifierOptions.categoryDenylist, ["None"])
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

    /// Code generic over `Detecting` (README's example) gets the same result as the task's own method, and
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
