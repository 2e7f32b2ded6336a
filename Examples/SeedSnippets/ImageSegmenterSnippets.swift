// The Swift snippets of MediaPipe's "Image segmentation guide for iOS"
// (https://ai.google.dev/edge/mediapipe/solutions/vision/image_segmenter/ios: "Create the task", "Prepare data", "Run
// the task"), each inside a function. Between the `snippet` markers each statement is the guide's, in its order, with
// its names, argument labels and layout — the model the guide bundles ("model", "tflite"), `ImageSegmenterOptions()`,
// `shouldOutputCategoryMask` / `shouldOutputConfidenceMasks`, `options.imageSegmenterLiveStreamDelegate`, the
// delegate's `imageSegmenter(_:didFinishSegmentation:timestampInMilliseconds:error:)`, `segment(image:)`,
// `segment(videoFrame:timestampInMilliseconds:)`, `segmentAsync(image:timestampInMilliseconds:)` — with
// `import MediaPipeTasksVision` changed to `import VisionTasks` and the UIImage of "Prepare data" replaced by
// `MPImage(contentsOfFile:)`; the comments are ours. Like the face detector's, this guide is not in ../shared/seeds:
// its code was read from a public copy of the page, whose prose stays out of this repository. The code around the
// markers supplies what the guide leaves to the app: an image path and timestamps.
// This file builds twice: in Swift 6 language mode (target seed-snippets) and Swift 5 (seed-snippets-swift5).
import VisionTasks
import Synchronization

// --- snippet: "Create the task" (Swift, Livestream), the delegate class; the app's code goes where the guide leaves
// the method's body for it ---
// The guide's result processor: it adopts `ImageSegmenterLiveStreamDelegate` and implements the one method the
// segmenter calls with each live-stream frame's masks.
class ImageSegmenterResultProcessor: NSObject, ImageSegmenterLiveStreamDelegate {

  func imageSegmenter(
    _ imageSegmenter: ImageSegmenter,
    didFinishSegmentation result: ImageSegmenterResult?,
    timestampInMilliseconds: Int,
    error: Error?) {

    // The app's handling of the result or error.
    imageSegmenterLiveStreamResults.withLock { $0.append((timestampInMilliseconds, result, error.map { "\($0)" })) }
  }
}
// --- end of snippet ---

/// What the segmenter's live-stream delegate received: timestamp, the result (nil on error), the error.
let imageSegmenterLiveStreamResults = Mutex<[(Int, ImageSegmenterResult?, String?)]>([])

func imageSegmenterImageModeSnippets(imagePath: String) throws -> ImageSegmenterResult {
    // --- snippet: "Create the task" (Swift, Image) ---
    let modelPath = Bundle.main.path(forResource: "model",
                                          ofType: "tflite")

    let options = ImageSegmenterOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .image
    options.shouldOutputCategoryMask = true
    options.shouldOutputConfidenceMasks = false

    let imageSegmenter = try ImageSegmenter(options: options)
    // --- end of snippet ---
    // --- snippet: "Prepare data" (UIImage → MPImage(contentsOfFile:)) ---
    let image = try MPImage(contentsOfFile: imagePath)
    // --- end of snippet ---
    // --- snippet: "Run the task" (Swift, Image) ---
    let result = try imageSegmenter.segment(image: image)
    // --- end of snippet ---
    return result
}

func imageSegmenterVideoModeSnippets(imagePath: String, frames: Int) throws -> [ImageSegmenterResult] {
    // --- snippet: "Create the task" (Swift, Video) ---
    let modelPath = Bundle.main.path(forResource: "model",
                                          ofType: "tflite")

    let options = ImageSegmenterOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .video
    options.shouldOutputCategoryMask = true
    options.shouldOutputConfidenceMasks = false

    let imageSegmenter = try ImageSegmenter(options: options)
    // --- end of snippet ---
    let image = try MPImage(contentsOfFile: imagePath)
    var results: [ImageSegmenterResult] = []
    for timestamp in stride(from: 0, to: frames * 33, by: 33) {
        // --- snippet: "Run the task" (Swift, Video) ---
        let result = try imageSegmenter.segment(
          videoFrame: image,
          timestampInMilliseconds: timestamp)
        // --- end of snippet ---
        results.append(result)
    }
    return results
}

func imageSegmenterLiveStreamSnippets(imagePath: String, frames: Int) throws {
    // --- snippet: "Create the task" (Swift, Livestream), after the delegate class ---
    let modelPath = Bundle.main.path(forResource: "model",
                                          ofType: "tflite")

    let options = ImageSegmenterOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .liveStream
    options.shouldOutputCategoryMask = true
    options.shouldOutputConfidenceMasks = false

    // The processor above becomes the options' live-stream delegate.
    let processor = ImageSegmenterResultProcessor()
    options.imageSegmenterLiveStreamDelegate = processor

    let imageSegmenter = try ImageSegmenter(options: options)
    // --- end of snippet ---
    let image = try MPImage(contentsOfFile: imagePath)
    for timestamp in stride(from: 0, to: frames * 33, by: 33) {
        // --- snippet: "Run the task" (Swift, Live stream) ---
        try imageSegmenter.segmentAsync(
          image: image,
          timestampInMilliseconds: timestamp)
        // --- end of snippet ---
        // A camera waits a frame interval; waiting for the result instead keeps every frame (none is dropped).
        imageSegmenter.waitUntilIdle()
    }
    withExtendedLifetime(processor) {}
}

/// The guide's other way to create the task: `ImageSegmenter(modelPath:)`, image mode with MediaPipe's default
/// options — confidence masks on, the category mask off ("Create the task" names it; its text shows no snippet for it).
func imageSegmenterModelPathInitializer(imagePath: String) throws -> ImageSegmenterResult {
    guard let modelPath = Bundle.main.path(forResource: "model", ofType: "tflite") else {
        throw VisionTaskError.processingFailed("no model.tflite beside the binary")
    }
    let imageSegmenter = try ImageSegmenter(modelPath: modelPath)
    return try imageSegmenter.segment(image: try MPImage(contentsOfFile: imagePath))
}
