// Image Classifier, as an iOS app drives it through MediaPipe's headers: `maxResults`, the
// `classificationResult.classifications` heads, `Category` fields, and the live-stream delegate.
import VisionTasks

struct ClassifierConstants {
    static let maxResults = 5
    static let delegate: Delegate = .CPU
    static let modelPath = Bundle.main.path(forResource: "bird_classifier", ofType: "tflite")
}

final class ImageClassifierService: NSObject, ImageClassifierLiveStreamDelegate {
    let liveStream = LiveStreamLog()

    func makeClassifier(runningMode: RunningMode) throws -> ImageClassifier {
        let options = ImageClassifierOptions()
        let baseOptions = BaseOptions()
        baseOptions.modelAssetPath = ClassifierConstants.modelPath
        baseOptions.delegate = ClassifierConstants.delegate
        options.baseOptions = baseOptions
        options.runningMode = runningMode
        options.maxResults = ClassifierConstants.maxResults
        if runningMode == .liveStream {
            options.imageClassifierLiveStreamDelegate = self
        }
        return try ImageClassifier(options: options)
    }

    func imageClassifier(_ imageClassifier: ImageClassifier, didFinishClassification result: ImageClassifierResult?,
                         timestampInMilliseconds: Int, error: Error?) {
        liveStream.record(timestampInMilliseconds, result?.classificationResult.classifications.first?.categories.count, error)
    }
}

func runImageClassifier(imagePath: String) throws -> [String: Any] {
    let service = ImageClassifierService()
    let classifier = try service.makeClassifier(runningMode: .image)
    guard let uiImage = UIImage(contentsOfFile: imagePath) else { throw VisionTaskError.processingFailed("no image") }
    let image = try MPImage(uiImage: uiImage)
    let result = try classifier.classify(image: image)
    let classifications: ClassificationResult = result.classificationResult
    // The whole image as a region of interest (MPPImageClassifier's classifyImage:regionOfInterest:error:).
    let whole = try classifier.classify(image: image, regionOfInterest: CGRect(x: 0, y: 0, width: 1, height: 1))

    let live = ImageClassifierService()
    let liveClassifier = try live.makeClassifier(runningMode: RunningMode(rawValue: 2)!)
    for frame in 0..<3 {
        try liveClassifier.classifyAsync(image: image, timestampInMilliseconds: frame * 33)
        liveClassifier.waitUntilIdle()
    }

    return [
        "task": "classify", "image": URL(fileURLWithPath: imagePath).lastPathComponent,
        "result": ["classifications": classifications.classifications.map { $0.categories.map(JSON.category) }],
        "heads": classifications.classifications.map { head -> [String: Any] in ["headIndex": head.headIndex, "headName": head.headName ?? NSNull()] },
        "liveStream": live.liveStream.json,
        "wholeRegionTopCategory": whole.classificationResult.classifications.first?.categories.first?.categoryName ?? NSNull(),
    ]
}
