// Gesture Recognizer, as an iOS app drives it through MediaPipe's headers: `ClassifierOptions` instances set through
// optional chaining, and a live-stream delegate that implements the header's spelling of the result method,
// `gestureRecognizer(_:didFinishGestureRecognition:timestampInMilliseconds:error:)`, and nothing else.
import VisionTasks

struct GestureConstants {
    static let numHands = 2
    static let delegate: Delegate = .CPU
    static let modelPath = Bundle.main.path(forResource: "gesture_recognizer", ofType: "task")
}

final class GestureRecognizerService: NSObject {
    let liveStream = LiveStreamLog()
    var gestureRecognizer: GestureRecognizer?

    init(runningMode: RunningMode) throws {
        super.init()
        let options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath = GestureConstants.modelPath
        options.baseOptions.delegate = GestureConstants.delegate
        options.runningMode = runningMode
        options.numHands = GestureConstants.numHands
        options.minHandDetectionConfidence = 0.5
        options.minHandPresenceConfidence = 0.5
        options.minTrackingConfidence = 0.5
        // MediaPipe's classifier options: a class, nil until set, then changed in place through the property.
        options.cannedGesturesClassifierOptions = ClassifierOptions()
        options.cannedGesturesClassifierOptions?.maxResults = 1
        options.cannedGesturesClassifierOptions?.scoreThreshold = 0
        options.cannedGesturesClassifierOptions?.displayNamesLocale = "en"
        if runningMode == .liveStream {
            options.gestureRecognizerLiveStreamDelegate = self
        }
        gestureRecognizer = try GestureRecognizer(options: options)
    }
}

extension GestureRecognizerService: GestureRecognizerLiveStreamDelegate {
    func gestureRecognizer(_ gestureRecognizer: GestureRecognizer, didFinishGestureRecognition result: GestureRecognizerResult?,
                           timestampInMilliseconds: Int, error: Error?) {
        liveStream.record(timestampInMilliseconds, result?.gestures.count, error)
    }
}

func runGestureRecognizer(imagePath: String) throws -> [String: Any] {
    guard let recognizer = try GestureRecognizerService(runningMode: .image).gestureRecognizer,
          let uiImage = UIImage(contentsOfFile: imagePath) else {
        throw VisionTaskError.processingFailed("no recognizer or no image")
    }
    let image = try MPImage(uiImage: uiImage)
    let result = try recognizer.recognize(image: image)

    let live = try GestureRecognizerService(runningMode: .liveStream)
    for frame in 0..<3 {
        try live.gestureRecognizer?.recognizeAsync(image: image, timestampInMilliseconds: frame * 33)
        live.gestureRecognizer?.waitUntilIdle()
    }

    return [
        "task": "gesture", "image": URL(fileURLWithPath: imagePath).lastPathComponent,
        "result": [
            "gestures": result.gestures.map { $0.map(JSON.category) },
            "handedness": result.handedness.map { $0.map(JSON.category) },
            "landmarks": result.landmarks.map { $0.map(JSON.landmark) },
            "worldLandmarks": result.worldLandmarks.map { $0.map(JSON.landmark) },
        ],
        "liveStream": live.liveStream.json,
    ]
}
