// Pose Landmarker, as an iOS app drives it through MediaPipe's headers: constants with a `Delegate`, a service that
// builds its options from a `BaseOptions` instance, a running mode from a bridge's raw value, the live-stream delegate,
// and an overlay that reads `visibility?.floatValue`, draws `PoseLandmarker.poseLandmarks` and reads the mask's
// `float32Data` pointer.
import VisionTasks

struct PoseConstants {
    static let numPoses = 2
    static let minPoseDetectionConfidence: Float = 0.5
    static let minPosePresenceConfidence: Float = 0.5
    static let minTrackingConfidence: Float = 0.5
    static let delegate: Delegate = .CPU
    static let modelPath = Bundle.main.path(forResource: "pose_landmarker_lite", ofType: "task")
}

final class PoseLandmarkerService: NSObject {
    private(set) var poseLandmarker: PoseLandmarker?
    private(set) var runningMode = RunningMode.image
    let liveStream = LiveStreamLog()

    /// `mode` as a React Native bridge passes it: MediaPipe's raw value (0 image, 1 video, 2 live stream).
    init?(modelPath: String?, mode: UInt) throws {
        guard let modelPath = modelPath, let runningMode = RunningMode(rawValue: mode) else { return nil }
        self.runningMode = runningMode
        super.init()
        let baseOptions = BaseOptions()
        baseOptions.modelAssetPath = modelPath
        baseOptions.delegate = PoseConstants.delegate
        let options = PoseLandmarkerOptions()
        options.baseOptions = baseOptions
        options.runningMode = runningMode
        options.numPoses = PoseConstants.numPoses
        options.minPoseDetectionConfidence = PoseConstants.minPoseDetectionConfidence
        options.minPosePresenceConfidence = PoseConstants.minPosePresenceConfidence
        options.minTrackingConfidence = PoseConstants.minTrackingConfidence
        options.shouldOutputSegmentationMasks = true
        if runningMode == .liveStream {
            options.poseLandmarkerLiveStreamDelegate = self
        }
        poseLandmarker = try PoseLandmarker(options: options)
    }
}

extension PoseLandmarkerService: PoseLandmarkerLiveStreamDelegate {
    func poseLandmarker(_ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
                        timestampInMilliseconds: Int, error: Error?) {
        liveStream.record(timestampInMilliseconds, result?.landmarks.count, error)
    }
}

/// The mask summary of the reference files, from the mask's pointers.
func poseMaskSummary(_ mask: Mask) -> [String: Any] {
    let count = mask.width * mask.height
    let floats = UnsafeBufferPointer(start: mask.float32Data, count: count)
    let bytes = UnsafeBufferPointer(start: mask.uint8Data, count: count)
    let mean = floats.reduce(0) { $0 + Double($1) } / Double(max(count, 1))
    return ["width": mask.width, "height": mask.height, "mean": mean,
            "fractionAbove0.5": Double(floats.filter { $0 > 0.5 }.count) / Double(max(count, 1)),
            "uint8Mean": bytes.reduce(0) { $0 + Double($1) } / Double(max(count, 1)),
            "dataType": mask.dataType.rawValue]
}

func runPoseLandmarker(imagePath: String) throws -> [String: Any] {
    guard let uiImage = UIImage(contentsOfFile: imagePath), let service = try PoseLandmarkerService(
        modelPath: PoseConstants.modelPath, mode: RunningMode.image.rawValue), let landmarker = service.poseLandmarker else {
        throw VisionTaskError.invalidOption(name: "modelPath", reason: "no pose_landmarker_lite.task beside the binary")
    }
    let image = try MPImage(uiImage: uiImage)
    let result = try landmarker.detect(image: image)

    let imageSize = CGSize(width: image.width, height: image.height)
    var lines: [Int] = []
    var visible: [Int] = []
    for pose in result.landmarks {
        let dots = Overlay.dots(pose, imageSize: imageSize)
        lines.append(Overlay.lines(PoseLandmarker.poseLandmarks, dots: dots).count)
        visible.append(pose.filter { ($0.visibility?.floatValue ?? 0) > 0.5 }.count)
    }
    // `segmentationMasks` is an array, as in MediaPipe: its first mask's values through the pointer.
    let firstMaskValue = result.segmentationMasks.first?.float32Data[0]

    // Video mode is refused in image mode: a typed error with MediaPipe's domain and code.
    var wrongMode: [String: Any] = [:]
    do {
        _ = try landmarker.detect(videoFrame: image, timestampInMilliseconds: 0)
    } catch {
        wrongMode = JSON.error(error)
    }

    guard let live = try PoseLandmarkerService(modelPath: PoseConstants.modelPath, mode: 2), let liveLandmarker = live.poseLandmarker else {
        throw VisionTaskError.missingLiveStreamDelegate
    }
    for frame in 0..<3 {
        try liveLandmarker.detectAsync(image: image, timestampInMilliseconds: frame * 33)
        liveLandmarker.waitUntilIdle()
    }

    return [
        "task": "pose", "image": URL(fileURLWithPath: imagePath).lastPathComponent,
        "result": [
            "landmarks": result.landmarks.map { $0.map(JSON.landmark) },
            "worldLandmarks": result.worldLandmarks.map { $0.map(JSON.landmark) },
            "segmentationMasks": result.segmentationMasks.map(poseMaskSummary),
        ],
        "timestampInMilliseconds": (result as TaskResult).timestampInMilliseconds,
        "lines": lines, "visibleLandmarks": visible, "firstMaskValue": firstMaskValue.map { Double($0) } ?? NSNull(),
        "wrongModeError": wrongMode, "liveStream": live.liveStream.json,
    ]
}
