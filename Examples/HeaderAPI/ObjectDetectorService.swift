// Object Detector, as an iOS app drives it through MediaPipe's headers: a `Delegate` constant, `maxResults` and
// `scoreThreshold`, `Detection.boundingBox` as a `CGRect`, its optional keypoints, and the live-stream delegate.
import VisionTasks

struct ObjectConstants {
    static let maxResults = 5
    static let scoreThreshold: Float = 0.3
    static let delegate: Delegate = .CPU
    static let modelPath = Bundle.main.path(forResource: "ssd_mobilenet_v1", ofType: "tflite")
}

final class ObjectDetectorService: NSObject, ObjectDetectorLiveStreamDelegate {
    let liveStream = LiveStreamLog()

    func makeDetector(runningMode: RunningMode) throws -> ObjectDetector {
        let options = ObjectDetectorOptions()
        options.baseOptions.modelAssetPath = ObjectConstants.modelPath
        options.baseOptions.delegate = ObjectConstants.delegate
        options.runningMode = runningMode
        options.maxResults = ObjectConstants.maxResults
        options.scoreThreshold = ObjectConstants.scoreThreshold
        if runningMode == .liveStream {
            options.objectDetectorLiveStreamDelegate = self
        }
        return try ObjectDetector(options: options)
    }

    func objectDetector(_ objectDetector: ObjectDetector, didFinishDetection result: ObjectDetectorResult?,
                        timestampInMilliseconds: Int, error: Error?) {
        liveStream.record(timestampInMilliseconds, result?.detections.count, error)
    }
}

func runObjectDetector(imagePath: String) throws -> [String: Any] {
    let service = ObjectDetectorService()
    let detector = try service.makeDetector(runningMode: .image)
    guard let uiImage = UIImage(contentsOfFile: imagePath) else { throw VisionTaskError.processingFailed("no image") }
    let image = try MPImage(uiImage: uiImage)
    let result: ObjectDetectorResult = try detector.detect(image: image)

    let detections: [[String: Any]] = result.detections.map { detection in
        let box: CGRect = detection.boundingBox
        return [
            "boundingBox": ["originX": Int(box.origin.x), "originY": Int(box.origin.y),
                            "width": Int(box.size.width), "height": Int(box.size.height)],
            "categories": detection.categories.map(JSON.category),
            "keypoints": (detection.keypoints ?? []).map { ["x": Double($0.location.x), "y": Double($0.location.y)] },
        ]
    }

    let live = ObjectDetectorService()
    let liveDetector = try live.makeDetector(runningMode: RunningMode(rawValue: 2)!)
    for frame in 0..<3 {
        try liveDetector.detectAsync(image: image, timestampInMilliseconds: frame * 33)
        liveDetector.waitUntilIdle()
    }

    return [
        "task": "object", "image": URL(fileURLWithPath: imagePath).lastPathComponent,
        "result": ["detections": detections],
        "liveStream": live.liveStream.json,
    ]
}
