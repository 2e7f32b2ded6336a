// Hand Landmarker, as an iOS app drives it through MediaPipe's headers: the finger tables and `handConnections`,
// `HandLandmark` indices, and a live-stream delegate that implements none of the protocol's (optional) methods.
import VisionTasks

struct HandConstants {
    static let numHands = 2
    static let delegate: Delegate = .CPU
    static let modelPath = Bundle.main.path(forResource: "hand_landmarker", ofType: "task")
}

/// Conforms and implements nothing: MediaPipe's hand delegate method is `@optional`.
final class SilentHandDelegate: NSObject, HandLandmarkerLiveStreamDelegate {}

/// Implements the method: gets every result.
final class HandResultProcessor: NSObject, HandLandmarkerLiveStreamDelegate {
    let liveStream = LiveStreamLog()

    func handLandmarker(_ handLandmarker: HandLandmarker, didFinishDetection result: HandLandmarkerResult?,
                        timestampInMilliseconds: Int, error: Error?) {
        liveStream.record(timestampInMilliseconds, result?.landmarks.count, error)
    }
}

func makeHandLandmarker(runningMode: RunningMode, delegate: HandLandmarkerLiveStreamDelegate?) throws -> HandLandmarker {
    let options = HandLandmarkerOptions()
    let baseOptions = BaseOptions()
    baseOptions.modelAssetPath = HandConstants.modelPath
    baseOptions.delegate = HandConstants.delegate
    options.baseOptions = baseOptions
    options.runningMode = runningMode
    options.numHands = HandConstants.numHands
    options.minHandDetectionConfidence = 0.5
    options.minHandPresenceConfidence = 0.5
    options.minTrackingConfidence = 0.5
    options.handLandmarkerLiveStreamDelegate = delegate
    return try HandLandmarker(options: options)
}

func runHandLandmarker(imagePath: String) throws -> [String: Any] {
    let landmarker = try makeHandLandmarker(runningMode: .image, delegate: nil)
    guard let uiImage = UIImage(contentsOfFile: imagePath) else { throw VisionTaskError.processingFailed("no image") }
    let image = try MPImage(uiImage: uiImage)
    let result = try landmarker.detect(image: image)

    let imageSize = CGSize(width: image.width, height: image.height)
    var lines: [String: [Int]] = [:]
    let tables: [(String, [Connection])] = [
        ("palm", HandLandmarker.handPalmConnections), ("thumb", HandLandmarker.handThumbConnections),
        ("indexFinger", HandLandmarker.handIndexFingerConnections), ("middleFinger", HandLandmarker.handMiddleFingerConnections),
        ("ringFinger", HandLandmarker.handRingFingerConnections), ("pinky", HandLandmarker.handPinkyConnections),
        ("hand", HandLandmarker.handConnections),
    ]
    for hand in result.landmarks {
        let dots = Overlay.dots(hand, imageSize: imageSize)
        for (name, table) in tables { lines[name, default: []].append(Overlay.lines(table, dots: dots).count) }
    }
    let indexTips = result.landmarks.map { JSON.landmark($0[Int(HandLandmark.indexFingerTIP.rawValue)]) }

    // A delegate with no method: the frames are processed and nothing is called.
    let silent = SilentHandDelegate()
    let silentLandmarker = try makeHandLandmarker(runningMode: RunningMode(rawValue: 2)!, delegate: silent)
    let processor = HandResultProcessor()
    let liveLandmarker = try makeHandLandmarker(runningMode: .liveStream, delegate: processor)
    for frame in 0..<3 {
        try silentLandmarker.detectAsync(image: image, timestampInMilliseconds: frame * 33)
        try liveLandmarker.detectAsync(image: image, timestampInMilliseconds: frame * 33)
        silentLandmarker.waitUntilIdle()
        liveLandmarker.waitUntilIdle()
    }
    withExtendedLifetime(silent) {}

    return [
        "task": "hand", "image": URL(fileURLWithPath: imagePath).lastPathComponent,
        "result": [
            "handedness": result.handedness.map { $0.map(JSON.category) },
            "landmarks": result.landmarks.map { $0.map(JSON.landmark) },
            "worldLandmarks": result.worldLandmarks.map { $0.map(JSON.landmark) },
        ],
        "lines": lines, "indexFingerTips": indexTips, "liveStream": processor.liveStream.json,
    ]
}
