// The Swift snippets of MediaPipe's "Image embedding guide for iOS"
// (https://ai.google.dev/edge/mediapipe/solutions/vision/image_embedder/ios: "Create the task", "Prepare data", "Run
// the task", "Handle and display results"), each inside a function. Between the `snippet` markers each statement is
// the guide's, in its order, with its names, argument labels and layout — the model the guide bundles ("model",
// "tflite"), `ImageEmbedderOptions()` with `quantize` and `l2Normalize`, `options.imageEmbedderLiveStreamDelegate`,
// the delegate's `imageEmbedder(_:didFinishEmbedding:timestampInMilliseconds:error:)`, `embed(image:)`,
// `embed(videoFrame:timestampInMilliseconds:)`, `embedAsync(image:timestampInMilliseconds:)` and
// `ImageEmbedder.cosineSimilarity(embedding1:embedding2:)` on `result.embeddingResult.embeddings[0]` — with
// `import MediaPipeTasksVision` changed to `import VisionTasks` and the UIImage of "Prepare data" replaced by
// `MPImage(contentsOfFile:)`; the comments are ours. Like the face detector's, this guide is not in ../shared/seeds:
// its code was read from a public copy of the page, whose prose stays out of this repository. The code around the
// markers supplies what the guide leaves to the app: image paths, timestamps and the second result it compares.
// This file builds twice: in Swift 6 language mode (target seed-snippets) and Swift 5 (seed-snippets-swift5).
import VisionTasks
import Synchronization

// --- snippet: "Create the task" (Swift, Livestream), the delegate class; the app's code goes where the guide leaves
// the method's body for it ---
// The guide's result processor: it adopts `ImageEmbedderLiveStreamDelegate` and implements the one method the
// embedder calls with each live-stream frame's embeddings.
class ImageEmbedderResultProcessor: NSObject, ImageEmbedderLiveStreamDelegate {

  func imageEmbedder(
    _ imageEmbedder: ImageEmbedder,
    didFinishEmbedding result: ImageEmbedderResult?,
    timestampInMilliseconds: Int,
    error: Error?) {

    // The app's handling of the result or error.
    imageEmbedderLiveStreamResults.withLock { $0.append((timestampInMilliseconds, result, error.map { "\($0)" })) }
  }
}
// --- end of snippet ---

/// What the embedder's live-stream delegate received: timestamp, the result (nil on error), the error.
let imageEmbedderLiveStreamResults = Mutex<[(Int, ImageEmbedderResult?, String?)]>([])

/// Image mode on `imagePath`, then "Handle and display results": the similarity of its first embedding to that of
/// `otherImagePath`, embedded by the same task.
func imageEmbedderImageModeSnippets(imagePath: String, otherImagePath: String) throws
    -> (result: ImageEmbedderResult, similarity: NSNumber) {
    // --- snippet: "Create the task" (Swift, Image) ---
    let modelPath = Bundle.main.path(
      forResource: "model",
      ofType: "tflite")

    let options = ImageEmbedderOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.quantize = true
    options.l2Normalize = true

    let imageEmbedder = try ImageEmbedder(options: options)
    // --- end of snippet ---
    // --- snippet: "Prepare data" (UIImage → MPImage(contentsOfFile:)) ---
    let image = try MPImage(contentsOfFile: imagePath)
    // --- end of snippet ---
    // --- snippet: "Run the task" (Swift, Image) ---
    let result = try imageEmbedder.embed(image: image)
    // --- end of snippet ---
    let otherResult = try imageEmbedder.embed(image: try MPImage(contentsOfFile: otherImagePath))
    // --- snippet: "Handle and display results" (Swift) ---
    let similarity = try ImageEmbedder.cosineSimilarity(
      embedding1: result.embeddingResult.embeddings[0],
      embedding2: otherResult.embeddingResult.embeddings[0])
    // --- end of snippet ---
    return (result, similarity)
}

func imageEmbedderVideoModeSnippets(imagePath: String, frames: Int) throws -> [ImageEmbedderResult] {
    // --- snippet: "Create the task" (Swift, Video) ---
    let modelPath = Bundle.main.path(
      forResource: "model",
      ofType: "tflite")

    let options = ImageEmbedderOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .video
    options.quantize = true
    options.l2Normalize = true

    let imageEmbedder = try ImageEmbedder(options: options)
    // --- end of snippet ---
    let image = try MPImage(contentsOfFile: imagePath)
    var results: [ImageEmbedderResult] = []
    for timestamp in stride(from: 0, to: frames * 33, by: 33) {
        // --- snippet: "Run the task" (Swift, Video) ---
        let result = try imageEmbedder.embed(
          videoFrame: image,
          timestampInMilliseconds: timestamp)
        // --- end of snippet ---
        results.append(result)
    }
    return results
}

func imageEmbedderLiveStreamSnippets(imagePath: String, frames: Int) throws {
    // --- snippet: "Create the task" (Swift, Livestream), after the delegate class ---
    let modelPath = Bundle.main.path(
      forResource: "model",
      ofType: "tflite")

    let options = ImageEmbedderOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .liveStream
    options.quantize = true
    options.l2Normalize = true

    // The processor above becomes the options' live-stream delegate.
    let processor = ImageEmbedderResultProcessor()
    options.imageEmbedderLiveStreamDelegate = processor

    let imageEmbedder = try ImageEmbedder(options: options)
    // --- end of snippet ---
    let image = try MPImage(contentsOfFile: imagePath)
    for timestamp in stride(from: 0, to: frames * 33, by: 33) {
        // --- snippet: "Run the task" (Swift, Live stream) ---
        try imageEmbedder.embedAsync(
          image: image,
          timestampInMilliseconds: timestamp)
        // --- end of snippet ---
        // A camera waits a frame interval; waiting for the result instead keeps every frame (none is dropped).
        imageEmbedder.waitUntilIdle()
    }
    withExtendedLifetime(processor) {}
}

/// The guide's other way to create the task: `ImageEmbedder(modelPath:)`, image mode with MediaPipe's default
/// options — float embeddings, not normalized ("Create the task" names it; its text shows no snippet for it).
func imageEmbedderModelPathInitializer(imagePath: String) throws -> ImageEmbedderResult {
    guard let modelPath = Bundle.main.path(forResource: "model", ofType: "tflite") else {
        throw VisionTaskError.processingFailed("no model.tflite beside the binary")
    }
    let imageEmbedder = try ImageEmbedder(modelPath: modelPath)
    return try imageEmbedder.embed(image: try MPImage(contentsOfFile: imagePath))
}
