// Face Detector, as an iOS app drives it through MediaPipe's headers (the shape of MediaPipe's iOS sample app,
// examples/face_detector/ios in google-ai-edge/mediapipe-samples, written here anew): a service made by one static
// constructor per running mode, options set one by one on `FaceDetectorOptions()` (`minDetectionConfidence`,
// `minSuppressionThreshold`, `baseOptions.modelAssetPath`, `baseOptions.delegate`), the service itself as the
// `faceDetectorLiveStreamDelegate`, results carried as `[FaceDetectorResult?]` and read back with `as?`, and an overlay
// that reads `categories.first`, `score`, `categoryName ?? ""`, `boundingBox` and `keypoints?.map { $0.location }`.
// Expected detections are built as the sample's unit test builds them: `Detection(categories:boundingBox:keypoints:)`
// with `ResultCategory(index:score:categoryName:displayName:)`.
import VisionTasks

struct FaceDetectorConstants {
    // The options of the reference's "short-options" set, so that HeaderAPITests can hold the answers to MediaPipe's.
    static let minDetectionConfidence: Float = 0.2
    static let minSuppressionThreshold: Float = 0.6
    static let delegate: Delegate = .CPU
    static let modelPath: String? = Bundle.main.path(forResource: "blaze_face_short_range", ofType: "tflite")
}

/// What the service hands its view controllers: the results of one image, or of a video's frames.
struct FaceDetectorResultBundle {
    let inferenceTime: Double
    let faceDetectorResults: [FaceDetectorResult?]
}

final class FaceDetectorService: NSObject {
    private(set) var faceDetector: FaceDetector?
    private(set) var runningMode = RunningMode.image
    private let minDetectionConfidence: Float
    private let minSuppressionThreshold: Float
    private let modelPath: String
    private let delegate: Delegate
    let liveStream = LiveStreamLog()

    private init?(modelPath: String?, minDetectionConfidence: Float, minSuppressionThreshold: Float,
                  runningMode: RunningMode, delegate: Delegate) throws {
        guard let modelPath = modelPath else { return nil }
        self.modelPath = modelPath
        self.minDetectionConfidence = minDetectionConfidence
        self.minSuppressionThreshold = minSuppressionThreshold
        self.runningMode = runningMode
        self.delegate = delegate
        super.init()
        try createFaceDetector()
    }

    private func createFaceDetector() throws {
        let faceDetectorOptions = FaceDetectorOptions()
        faceDetectorOptions.runningMode = runningMode
        faceDetectorOptions.minDetectionConfidence = minDetectionConfidence
        faceDetectorOptions.minSuppressionThreshold = minSuppressionThreshold
        faceDetectorOptions.baseOptions.modelAssetPath = modelPath
        faceDetectorOptions.baseOptions.delegate = delegate
        if runningMode == .liveStream {
            faceDetectorOptions.faceDetectorLiveStreamDelegate = self
        }
        faceDetector = try FaceDetector(options: faceDetectorOptions)
    }

    static func stillImageDetectorService(modelPath: String?, minDetectionConfidence: Float, minSuppressionThreshold: Float,
                                          delegate: Delegate) throws -> FaceDetectorService? {
        try FaceDetectorService(modelPath: modelPath, minDetectionConfidence: minDetectionConfidence,
                                minSuppressionThreshold: minSuppressionThreshold, runningMode: .image, delegate: delegate)
    }

    static func videoFaceDetectorService(modelPath: String?, minDetectionConfidence: Float, minSuppressionThreshold: Float,
                                         delegate: Delegate) throws -> FaceDetectorService? {
        try FaceDetectorService(modelPath: modelPath, minDetectionConfidence: minDetectionConfidence,
                                minSuppressionThreshold: minSuppressionThreshold, runningMode: .video, delegate: delegate)
    }

    static func liveStreamDetectorService(modelPath: String?, minDetectionConfidence: Float, minSuppressionThreshold: Float,
                                          delegate: Delegate) throws -> FaceDetectorService? {
        try FaceDetectorService(modelPath: modelPath, minDetectionConfidence: minDetectionConfidence,
                                minSuppressionThreshold: minSuppressionThreshold, runningMode: .liveStream, delegate: delegate)
    }

    func detect(image: UIImage) throws -> FaceDetectorResultBundle? {
        let mpImage = try MPImage(uiImage: image)
        let startDate = Date()
        let result = try faceDetector?.detect(image: mpImage)
        return FaceDetectorResultBundle(inferenceTime: Date().timeIntervalSince(startDate) * 1000, faceDetectorResults: [result])
    }

    /// The sample's video path hands each generated frame over as a `UIImage`, at `interval` milliseconds apart.
    func detect(frames: [UIImage], inferenceIntervalInMilliseconds interval: Int) throws -> FaceDetectorResultBundle {
        let startDate = Date()
        var faceDetectorResults: [FaceDetectorResult?] = []
        for (i, frame) in frames.enumerated() {
            let result = try faceDetector?.detect(videoFrame: MPImage(uiImage: frame), timestampInMilliseconds: interval * i)
            faceDetectorResults.append(result)
        }
        let perFrame = Date().timeIntervalSince(startDate) / Double(max(frames.count, 1)) * 1000
        return FaceDetectorResultBundle(inferenceTime: perFrame, faceDetectorResults: faceDetectorResults)
    }

    func detectAsync(image: UIImage, orientation: UIImage.Orientation, timeStamps: Int) throws {
        let mpImage = try MPImage(uiImage: image, orientation: orientation)
        try faceDetector?.detectAsync(image: mpImage, timestampInMilliseconds: timeStamps)
    }
}

extension FaceDetectorService: FaceDetectorLiveStreamDelegate {
    func faceDetector(_ faceDetector: FaceDetector, didFinishDetection result: FaceDetectorResult?,
                      timestampInMilliseconds: Int, error: Error?) {
        liveStream.record(timestampInMilliseconds, result?.detections.count, error)
    }
}

/// One face as the sample's overlay draws it: a label with the score in percent, the box, and the keypoints in pixels.
struct FaceOverlay {
    let name: String
    let borderRect: CGRect
    let keypoints: [CGPoint]

    static func overlays(fromDetections detections: [Detection], imageSize: CGSize) -> [FaceOverlay] {
        detections.compactMap { detection in
            guard let category = detection.categories.first else { return nil }
            let keypoints = (detection.keypoints?.map { $0.location } ?? [])
                .map { CGPoint(x: $0.x * imageSize.width, y: $0.y * imageSize.height) }
            let confidenceValue = Int(category.score * 100.0)
            return FaceOverlay(name: "\(category.categoryName ?? "") (\(confidenceValue)%) ", borderRect: detection.boundingBox,
                               keypoints: keypoints)
        }
    }
}

func runFaceDetector(imagePath: String) throws -> [String: Any] {
    guard let uiImage = UIImage(contentsOfFile: imagePath) else { throw VisionTaskError.processingFailed("no image") }
    guard let service = try FaceDetectorService.stillImageDetectorService(
        modelPath: FaceDetectorConstants.modelPath, minDetectionConfidence: FaceDetectorConstants.minDetectionConfidence,
        minSuppressionThreshold: FaceDetectorConstants.minSuppressionThreshold, delegate: FaceDetectorConstants.delegate)
    else { throw VisionTaskError.processingFailed("no blaze_face_short_range.tflite beside the binary") }
    let bundle = try service.detect(image: uiImage)
    guard let faceDetectorResult = bundle?.faceDetectorResults.first as? FaceDetectorResult else {
        throw VisionTaskError.processingFailed("no result")
    }
    let detections: [[String: Any]] = faceDetectorResult.detections.map { detection in
        let box: CGRect = detection.boundingBox
        return [
            "boundingBox": ["originX": Int(box.origin.x), "originY": Int(box.origin.y),
                            "width": Int(box.size.width), "height": Int(box.size.height)],
            "categories": detection.categories.map(JSON.category),
            "keypoints": (detection.keypoints ?? []).map { ["x": Double($0.location.x), "y": Double($0.location.y)] },
        ]
    }
    let image = try MPImage(uiImage: uiImage)
    let overlays = FaceOverlay.overlays(fromDetections: faceDetectorResult.detections,
                                        imageSize: CGSize(width: image.width, height: image.height))

    // The sample's unit test: expected detections built with MediaPipe's initializers and compared field by field.
    let rebuilt = faceDetectorResult.detections.map { detection in
        Detection(categories: detection.categories.map {
                      ResultCategory(index: $0.index, score: $0.score, categoryName: $0.categoryName, displayName: $0.displayName)
                  },
                  boundingBox: detection.boundingBox, keypoints: detection.keypoints)
    }

    guard let video = try FaceDetectorService.videoFaceDetectorService(
        modelPath: FaceDetectorConstants.modelPath, minDetectionConfidence: FaceDetectorConstants.minDetectionConfidence,
        minSuppressionThreshold: FaceDetectorConstants.minSuppressionThreshold, delegate: FaceDetectorConstants.delegate)
    else { throw VisionTaskError.processingFailed("no model") }
    let videoBundle = try video.detect(frames: [uiImage, uiImage, uiImage], inferenceIntervalInMilliseconds: 33)

    guard let live = try FaceDetectorService.liveStreamDetectorService(
        modelPath: FaceDetectorConstants.modelPath, minDetectionConfidence: FaceDetectorConstants.minDetectionConfidence,
        minSuppressionThreshold: FaceDetectorConstants.minSuppressionThreshold, delegate: FaceDetectorConstants.delegate)
    else { throw VisionTaskError.processingFailed("no model") }
    for frame in 0..<3 {
        try live.detectAsync(image: uiImage, orientation: .up, timeStamps: frame * 33)
        live.faceDetector?.waitUntilIdle()
    }

    return [
        "task": "face-detector", "image": URL(fileURLWithPath: imagePath).lastPathComponent,
        "result": ["detections": detections],
        "overlayLabels": overlays.map(\.name), "overlayKeypoints": overlays.map(\.keypoints.count),
        "rebuiltEqual": rebuilt == faceDetectorResult.detections,
        "video": videoBundle.faceDetectorResults.map { $0?.detections.count ?? -1 },
        "videoTimestamps": videoBundle.faceDetectorResults.map { $0?.timestampInMilliseconds ?? -1 },
        "liveStream": live.liveStream.json,
    ]
}
