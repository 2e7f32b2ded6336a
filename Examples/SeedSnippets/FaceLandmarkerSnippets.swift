// The Swift snippets of MediaPipe's "Face Landmarker guide for iOS" (../shared/seeds/004_680775fa41853f46.txt), each
// inside a function, with only `import MediaPipeTasksVision` changed to `import VisionTasks` and the UIImage of
// "Prepare data" replaced by `MPImage(contentsOfFile:)`. Between the `snippet` markers the text is the guide's; the
// code around the markers supplies what the guide leaves to the app: option values, an image path, timestamps.
// This file builds twice: in Swift 6 language mode (target seed-snippets) and Swift 5 (seed-snippets-swift5).
import VisionTasks
import Synchronization

// What the guide's snippets take from the app around them (minTrackingConfidence is the pose guide's, the same).
let minFaceDetectionConfidence: Float = 0.5
let minFacePresenceConfidence: Float = 0.5
let numFaces = 1

// --- snippet: "Create the task" (Swift, Live stream), the delegate class; the app's code goes where the guide's
// comment says ---
// Class that conforms to the `FaceLandmarkerLiveStreamDelegate` protocol and
// implements the method that the face landmarker calls once it finishes
// performing face landmark detection in each input frame.
class FaceLandmarkerResultProcessor: NSObject, FaceLandmarkerLiveStreamDelegate {

  func faceLandmarker(
    _ faceLandmarker: FaceLandmarker,
    didFinishDetection result: FaceLandmarkerResult?,
    timestampInMilliseconds: Int,
    error: Error?) {

    // Process the face landmarker result or errors here.
    faceLiveStreamResults.withLock { $0.append((timestampInMilliseconds, result?.faceLandmarks.count, error.map { "\($0)" })) }
  }
}
// --- end of snippet ---

/// What the face live-stream delegate received: timestamp, faces found (nil on error), the error.
let faceLiveStreamResults = Mutex<[(Int, Int?, String?)]>([])

func faceImageModeSnippets(imagePath: String) throws -> FaceLandmarkerResult {
    // --- snippet: "Create the task" (Swift, Image) ---
    let modelPath = Bundle.main.path(
      forResource: "face_landmarker",
      ofType: "task")

    let options = FaceLandmarkerOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .image
    options.minFaceDetectionConfidence = minFaceDetectionConfidence
    options.minFacePresenceConfidence = minFacePresenceConfidence
    options.minTrackingConfidence = minTrackingConfidence
    options.numFaces = numFaces

    let faceLandmarker = try FaceLandmarker(options: options)
    // --- end of snippet ---
    // --- snippet: "Prepare data" (UIImage → MPImage(contentsOfFile:)) ---
    let image = try MPImage(contentsOfFile: imagePath)
    // --- end of snippet ---
    // --- snippet: "Run the task" (Swift, Image) ---
    let result = try faceLandmarker.detect(image: image)
    // --- end of snippet ---
    return result
}

func faceVideoModeSnippets(imagePath: String, frames: Int) throws -> [FaceLandmarkerResult] {
    // --- snippet: "Create the task" (Swift, Video) ---
    let modelPath = Bundle.main.path(
      forResource: "face_landmarker",
      ofType: "task")

    let options = FaceLandmarkerOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .video
    options.minFaceDetectionConfidence = minFaceDetectionConfidence
    options.minFacePresenceConfidence = minFacePresenceConfidence
    options.minTrackingConfidence = minTrackingConfidence
    options.numFaces = numFaces

    let faceLandmarker = try FaceLandmarker(options: options)
    // --- end of snippet ---
    let image = try MPImage(contentsOfFile: imagePath)
    var results: [FaceLandmarkerResult] = []
    for timestamp in stride(from: 0, to: frames * 33, by: 33) {
        // --- snippet: "Run the task" (Swift, Video) ---
        let result = try faceLandmarker.detect(
          videoFrame: image,
          timestampInMilliseconds: timestamp)
        // --- end of snippet ---
        results.append(result)
    }
    return results
}

func faceLiveStreamSnippets(imagePath: String, frames: Int) throws {
    // --- snippet: "Create the task" (Swift, Live stream), after the delegate class ---
    let modelPath = Bundle.main.path(
      forResource: "face_landmarker",
      ofType: "task")

    let options = FaceLandmarkerOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .liveStream
    options.minFaceDetectionConfidence = minFaceDetectionConfidence
    options.minFacePresenceConfidence = minFacePresenceConfidence
    options.minTrackingConfidence = minTrackingConfidence
    options.numFaces = numFaces

    // Assign an object of the class to the `faceLandmarkerLiveStreamDelegate`
    // property.
    let processor = FaceLandmarkerResultProcessor()
    options.faceLandmarkerLiveStreamDelegate = processor

    let faceLandmarker = try FaceLandmarker(options: options)
    // --- end of snippet ---
    let image = try MPImage(contentsOfFile: imagePath)
    for timestamp in stride(from: 0, to: frames * 33, by: 33) {
        // --- snippet: "Run the task" (Swift, Live stream) ---
        try faceLandmarker.detectAsync(
          image: image,
          timestampInMilliseconds: timestamp)
        // --- end of snippet ---
        // A camera waits a frame interval; waiting for the result instead keeps every frame (none is dropped).
        faceLandmarker.waitUntilIdle()
    }
    withExtendedLifetime(processor) {}
}
