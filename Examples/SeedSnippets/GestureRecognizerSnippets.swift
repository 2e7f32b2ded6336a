// The Swift snippets of MediaPipe's "Gesture Recognizer guide for iOS" (../shared/seeds/003_2a47318bf906ef7f.txt), each
// inside a function, with only `import MediaPipeTasksVision` changed to `import VisionTasks` and the UIImage of
// "Prepare data" replaced by `MPImage(contentsOfFile:)`. Between the `snippet` markers the text is the guide's; the
// code around the markers supplies what the guide leaves to the app: option values, an image path, timestamps.
// This file builds twice: in Swift 6 language mode (target seed-snippets) and Swift 5 (seed-snippets-swift5).
import VisionTasks
import Synchronization

// What the guide's snippets take from the app around them.
let minHandDetectionConfidence: Float = 0.5
let minHandPresenceConfidence: Float = 0.5
let minHandTrackingConfidence: Float = 0.5
let numHands = 1

// --- snippet: "Create the task" (Swift, Live stream), the delegate class; the app's code goes where the guide's
// comment says ---
// Class that conforms to the `GestureRecognizerLiveStreamDelegate` protocol and
// implements the method that the gesture recognizer calls once it finishes
// performing recognizing hand gestures in each input frame.
class GestureRecognizerResultProcessor: NSObject, GestureRecognizerLiveStreamDelegate {

  func gestureRecognizer(
    _ gestureRecognizer: GestureRecognizer,
    didFinishRecognition result: GestureRecognizerResult?,
    timestampInMilliseconds: Int,
    error: Error?) {

    // Process the gesture recognizer result or errors here.
    gestureLiveStreamResults.withLock { $0.append((timestampInMilliseconds, result?.gestures.count, error.map { "\($0)" })) }
  }
}
// --- end of snippet ---

/// What the gesture live-stream delegate received: timestamp, hands found (nil on error), the error.
let gestureLiveStreamResults = Mutex<[(Int, Int?, String?)]>([])

func gestureImageModeSnippets(imagePath: String) throws -> GestureRecognizerResult {
    // --- snippet: "Create the task" (Swift, Image) ---
    let modelPath = Bundle.main.path(forResource: "gesture_recognizer",
                                          ofType: "task")

    let options = GestureRecognizerOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .image
    options.minHandDetectionConfidence = minHandDetectionConfidence
    options.minHandPresenceConfidence = minHandPresenceConfidence
    options.minTrackingConfidence = minHandTrackingConfidence
    options.numHands = numHands

    let gestureRecognizer = try GestureRecognizer(options: options)
    // --- end of snippet ---
    // --- snippet: "Prepare data" (UIImage → MPImage(contentsOfFile:)) ---
    let image = try MPImage(contentsOfFile: imagePath)
    // --- end of snippet ---
    // --- snippet: "Run the task" (Swift, Image) ---
    let result = try gestureRecognizer.recognize(image: image)
    // --- end of snippet ---
    return result
}

func gestureVideoModeSnippets(imagePath: String, frames: Int) throws -> [GestureRecognizerResult] {
    // --- snippet: "Create the task" (Swift, Video) ---
    let modelPath = Bundle.main.path(forResource: "gesture_recognizer",
                                          ofType: "task")

    let options = GestureRecognizerOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .video
    options.minHandDetectionConfidence = minHandDetectionConfidence
    options.minHandPresenceConfidence = minHandPresenceConfidence
    options.minTrackingConfidence = minHandTrackingConfidence
    options.numHands = numHands

    let gestureRecognizer = try GestureRecognizer(options: options)
    // --- end of snippet ---
    let image = try MPImage(contentsOfFile: imagePath)
    var results: [GestureRecognizerResult] = []
    for timestamp in stride(from: 0, to: frames * 33, by: 33) {
        // --- snippet: "Run the task" (Swift, Video) ---
        let result = try gestureRecognizer.recognize(
          videoFrame: image,
          timestampInMilliseconds: timestamp)
        // --- end of snippet ---
        results.append(result)
    }
    return results
}

func gestureLiveStreamSnippets(imagePath: String, frames: Int) throws {
    // --- snippet: "Create the task" (Swift, Live stream), after the delegate class ---
    let modelPath = Bundle.main.path(
      forResource: "gesture_recognizer",
      ofType: "task")

    let options = GestureRecognizerOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .liveStream
    options.minHandDetectionConfidence = minHandDetectionConfidence
    options.minHandPresenceConfidence = minHandPresenceConfidence
    options.minTrackingConfidence = minHandTrackingConfidence
    options.numHands = numHands

    // Assign an object of the class to the `gestureRecognizerLiveStreamDelegate`
    // property.
    let processor = GestureRecognizerResultProcessor()
    options.gestureRecognizerLiveStreamDelegate = processor

    let gestureRecognizer = try GestureRecognizer(options: options)
    // --- end of snippet ---
    let image = try MPImage(contentsOfFile: imagePath)
    for timestamp in stride(from: 0, to: frames * 33, by: 33) {
        // --- snippet: "Run the task" (Swift, Live stream) ---
        try gestureRecognizer.recognizeAsync(
          image: image,
          timestampInMilliseconds: timestamp)
        // --- end of snippet ---
        // A camera waits a frame interval; waiting for the result instead keeps every frame (none is dropped).
        gestureRecognizer.waitUntilIdle()
    }
    withExtendedLifetime(processor) {}
}
