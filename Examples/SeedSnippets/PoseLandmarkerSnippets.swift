// The Swift snippets of MediaPipe's "Pose Landmarker guide for iOS" (the product's specification in ../shared/seeds),
// each inside a function, with only `import MediaPipeTasksVision` changed to `import VisionTasks` and the UIImage
// of "Prepare data" replaced by `MPImage(contentsOfFile:)`. Between the `snippet` markers the text is the guide's;
// the code around the markers supplies what the guide leaves to the app: option values, an image path, timestamps.
// This file builds twice: in Swift 6 language mode (target seed-snippets) and Swift 5 (seed-snippets-swift5).
import VisionTasks
import Synchronization

// What the guide's snippets take from the app around them.
let minPoseDetectionConfidence: Float = 0.5
let minPosePresenceConfidence: Float = 0.5
let minTrackingConfidence: Float = 0.5
let numPoses = 1

// --- snippet: "Create the task" (Swift, Live stream), the delegate class; the app's code goes where the guide's
// comment says ---
// Class that conforms to the `PoseLandmarkerLiveStreamDelegate` protocol and
// implements the method that the pose landmarker calls once it finishes
// performing pose landmark detection in each input frame.
class PoseLandmarkerResultProcessor: NSObject, PoseLandmarkerLiveStreamDelegate {

  func poseLandmarker(
    _ poseLandmarker: PoseLandmarker,
    didFinishDetection result: PoseLandmarkerResult?,
    timestampInMilliseconds: Int,
    error: Error?) {

    // Process the pose landmarker result or errors here.
    liveStreamResults.withLock { $0.append((timestampInMilliseconds, result?.landmarks.count, error.map { "\($0)" })) }
  }
}
// --- end of snippet ---

/// What the live-stream delegate received: timestamp, poses found (nil on error), the error.
let liveStreamResults = Mutex<[(Int, Int?, String?)]>([])

func imageModeSnippets(imagePath: String) throws -> PoseLandmarkerResult {
    // --- snippet: "Create the task" (Swift, Image) ---
    let modelPath = Bundle.main.path(forResource: "pose_landmarker",
                                          ofType: "task")

    let options = PoseLandmarkerOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .image
    options.minPoseDetectionConfidence = minPoseDetectionConfidence
    options.minPosePresenceConfidence = minPosePresenceConfidence
    options.minTrackingConfidence = minTrackingConfidence
    options.numPoses = numPoses

    let poseLandmarker = try PoseLandmarker(options: options)
    // --- end of snippet ---
    // --- snippet: "Prepare data" (UIImage → MPImage(contentsOfFile:)) ---
    let image = try MPImage(contentsOfFile: imagePath)
    // --- end of snippet ---
    // --- snippet: "Run the task" (Swift, Image) ---
    let result = try poseLandmarker.detect(image: image)
    // --- end of snippet ---
    return result
}

func videoModeSnippets(imagePath: String, frames: Int) throws -> [PoseLandmarkerResult] {
    // --- snippet: "Create the task" (Swift, Video) ---
    let modelPath = Bundle.main.path(forResource: "pose_landmarker",
                                          ofType: "task")

    let options = PoseLandmarkerOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .video
    options.minPoseDetectionConfidence = minPoseDetectionConfidence
    options.minPosePresenceConfidence = minPosePresenceConfidence
    options.minTrackingConfidence = minTrackingConfidence
    options.numPoses = numPoses

    let poseLandmarker = try PoseLandmarker(options: options)
    // --- end of snippet ---
    let image = try MPImage(contentsOfFile: imagePath)
    var results: [PoseLandmarkerResult] = []
    for timestamp in stride(from: 0, to: frames * 33, by: 33) {
        // --- snippet: "Run the task" (Swift, Video) ---
        let result = try poseLandmarker.detect(
          videoFrame: image,
          timestampInMilliseconds: timestamp)
        // --- end of snippet ---
        results.append(result)
    }
    return results
}

func liveStreamSnippets(imagePath: String, frames: Int) throws {
    // --- snippet: "Create the task" (Swift, Live stream), after the delegate class ---
    let modelPath = Bundle.main.path(forResource: "pose_landmarker",
                                          ofType: "task")

    let options = PoseLandmarkerOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .liveStream
    options.minPoseDetectionConfidence = minPoseDetectionConfidence
    options.minPosePresenceConfidence = minPosePresenceConfidence
    options.minTrackingConfidence = minTrackingConfidence
    options.numPoses = numPoses

    // Assign an object of the class to the `poseLandmarkerLiveStreamDelegate`
    // property.
    let processor = PoseLandmarkerResultProcessor()
    options.poseLandmarkerLiveStreamDelegate = processor

    let poseLandmarker = try PoseLandmarker(options: options)
    // --- end of snippet ---
    let image = try MPImage(contentsOfFile: imagePath)
    for timestamp in stride(from: 0, to: frames * 33, by: 33) {
        // --- snippet: "Run the task" (Swift, Live stream) ---
        try poseLandmarker.detectAsync(
          image: image,
          timestampInMilliseconds: timestamp)
        // --- end of snippet ---
        // A camera waits a frame interval; waiting for the result instead keeps every frame (none is dropped).
        poseLandmarker.waitUntilIdle()
    }
    withExtendedLifetime(processor) {}
}
