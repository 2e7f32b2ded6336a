// The Swift snippets of MediaPipe's "Face detection guide for iOS"
// (https://ai.google.dev/edge/mediapipe/solutions/vision/face_detector/ios: "Create the task", "Prepare data", "Run
// the task"), each inside a function. Between the `snippet` markers each statement is the guide's, in its order, with
// its names, argument labels and layout — the model the guide bundles ("model", "tflite"), `FaceDetectorOptions()`,
// `options.faceDetectorLiveStreamDelegate`, the delegate's `faceDetector(_:didFinishDetection:timestampInMilliseconds:
// error:)`, `detect(image:)`, `detect(videoFrame:timestampInMilliseconds:)`, `detectAsync(image:timestampInMilliseconds:)`
// — with `import MediaPipeTasksVision` changed to `import VisionTasks` and the UIImage of "Prepare data" replaced by
// `MPImage(contentsOfFile:)`; the comments are ours. Unlike the other guides here, this one is not in ../shared/seeds:
// its text was read from a public copy of the page, whose prose stays out of this repository. The code around the
// markers supplies what the guide leaves to the app: an image path and timestamps.
// This file builds twice: in Swift 6 language mode (target seed-snippets) and Swift 5 (seed-snippets-swift5).
import VisionTasks
import Synchronization

// --- snippet: "Create the task" (Swift, Livestream), the delegate class; the app's code goes where the guide leaves
// the method's body for it ---
// The guide's result processor: it adopts `FaceDetectorLiveStreamDelegate` and implements the one method the
// detector calls with each live-stream frame's faces.
class FaceDetectorResultProcessor: NSObject, FaceDetectorLiveStreamDelegate {

  func faceDetector(
    _ faceDetector: FaceDetector,
    didFinishDetection result: FaceDetectorResult?,
    timestampInMilliseconds: Int,
    error: Error?) {

    // The app's handling of the result or error.
    faceDetectorLiveStreamResults.withLock { $0.append((timestampInMilliseconds, result?.detections.count, error.map { "\($0)" })) }
  }
}
// --- end of snippet ---

/// What the face detector's live-stream delegate received: timestamp, faces found (nil on error), the error.
let faceDetectorLiveStreamResults = Mutex<[(Int, Int?, String?)]>([])

func faceDetectorImageModeSnippets(imagePath: String) throws -> FaceDetectorResult {
    // --- snippet: "Create the task" (Swift, Image) ---
    let modelPath = Bundle.main.path(forResource: "model",
                                          ofType: "tflite")

    let options = FaceDetectorOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .image

    let faceDetector = try FaceDetector(options: options)
    // --- end of snippet ---
    // --- snippet: "Prepare data" (UIImage → MPImage(contentsOfFile:)) ---
    let image = try MPImage(contentsOfFile: imagePath)
    // --- end of snippet ---
    // --- snippet: "Run the task" (Swift, Image) ---
    let result = try faceDetector.detect(image: image)
    // --- end of snippet ---
    return result
}

func faceDetectorVideoModeSnippets(imagePath: String, frames: Int) throws -> [FaceDetectorResult] {
    // --- snippet: "Create the task" (Swift, Video) ---
    let modelPath = Bundle.main.path(forResource: "model",
                                          ofType: "tflite")

    let options = FaceDetectorOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .video

    let faceDetector = try FaceDetector(options: options)
    // --- end of snippet ---
    let image = try MPImage(contentsOfFile: imagePath)
    var results: [FaceDetectorResult] = []
    for timestamp in stride(from: 0, to: frames * 33, by: 33) {
        // --- snippet: "Run the task" (Swift, Video) ---
        let result = try faceDetector.detect(
          videoFrame: image,
          timestampInMilliseconds: timestamp)
        // --- end of snippet ---
        results.append(result)
    }
    return results
}

func faceDetectorLiveStreamSnippets(imagePath: String, frames: Int) throws {
    // --- snippet: "Create the task" (Swift, Livestream), after the delegate class ---
    let modelPath = Bundle.main.path(
      forResource: "model",
      ofType: "tflite")

    let options = FaceDetectorOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .liveStream

    // The processor above becomes the options' live-stream delegate.
    let processor = FaceDetectorResultProcessor()
    options.faceDetectorLiveStreamDelegate = processor

    let faceDetector = try FaceDetector(options: options)
    // --- end of snippet ---
    let image = try MPImage(contentsOfFile: imagePath)
    for timestamp in stride(from: 0, to: frames * 33, by: 33) {
        // --- snippet: "Run the task" (Swift, Livestream) ---
        try faceDetector.detectAsync(
          image: image,
          timestampInMilliseconds: timestamp)
        // --- end of snippet ---
        // A camera waits a frame interval; waiting for the result instead keeps every frame (none is dropped).
        faceDetector.waitUntilIdle()
    }
    withExtendedLifetime(processor) {}
}

/// The guide's other way to create the task: `FaceDetector(modelPath:)`, image mode with the default options
/// ("Create the task" names it; its text shows no snippet for it).
func faceDetectorModelPathInitializer(imagePath: String) throws -> FaceDetectorResult {
    guard let modelPath = Bundle.main.path(forResource: "model", ofType: "tflite") else {
        throw VisionTaskError.processingFailed("no model.tflite beside the binary")
    }
    let faceDetector = try FaceDetector(modelPath: modelPath)
    return try faceDetector.detect(image: try MPImage(contentsOfFile: imagePath))
}
