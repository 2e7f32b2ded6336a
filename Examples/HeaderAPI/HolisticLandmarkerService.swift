// Holistic Landmarker, as an iOS app drives it through MediaPipe's headers (MPPHolisticLandmarker.h,
// MPPHolisticLandmarkerOptions.h, MPPHolisticLandmarkerResult.h; MediaPipe's samples have no iOS holistic app, so the
// service takes the shape of its other landmarker samples, written here anew): one static constructor per running
// mode, options set one by one on `HolisticLandmarkerOptions()` under the header's names, the service itself as the
// `holisticLandmarkerLiveStreamDelegate`, results carried as `[HolisticLandmarkerResult?]`, and the single person's
// parts read as the header declares them (arrays that are empty when a part is absent, `faceBlendshapes` and
// `poseSegmentationMask` optional).
import VisionTasks

struct HolisticLandmarkerConstants {
    static let minFaceDetectionConfidence: Float = 0.5
    static let minFaceSuppressionThreshold: Float = 0.3
    static let minFacePresenceConfidence: Float = 0.5
    static let minPoseDetectionConfidence: Float = 0.5
    static let minPoseSuppressionThreshold: Float = 0.3
    static let minPosePresenceConfidence: Float = 0.5
    static let minHandLandmarksConfidence: Float = 0.5
    static let delegate: Delegate = .CPU
    static let modelPath: String? = Bundle.main.path(forResource: "holistic_landmarker", ofType: "task")
}

struct HolisticResultBundle {
    let inferenceTime: Double
    let holisticLandmarkerResults: [HolisticLandmarkerResult?]
}

final class HolisticLandmarkerService: NSObject {
    private(set) var holisticLandmarker: HolisticLandmarker?
    private(set) var runningMode = RunningMode.image
    private let modelPath: String
    private let delegate: Delegate
    let liveStream = LiveStreamLog()

    private init?(modelPath: String?, runningMode: RunningMode, delegate: Delegate) throws {
        guard let modelPath = modelPath else { return nil }
        self.modelPath = modelPath
        self.runningMode = runningMode
        self.delegate = delegate
        super.init()
        try createHolisticLandmarker()
    }

    private func createHolisticLandmarker() throws {
        let options = HolisticLandmarkerOptions()
        options.runningMode = runningMode
        options.minFaceDetectionConfidence = HolisticLandmarkerConstants.minFaceDetectionConfidence
        options.minFaceSuppressionThreshold = HolisticLandmarkerConstants.minFaceSuppressionThreshold
        options.minFacePresenceConfidence = HolisticLandmarkerConstants.minFacePresenceConfidence
        options.minPoseDetectionConfidence = HolisticLandmarkerConstants.minPoseDetectionConfidence
        options.minPoseSuppressionThreshold = HolisticLandmarkerConstants.minPoseSuppressionThreshold
        options.minPosePresenceConfidence = HolisticLandmarkerConstants.minPosePresenceConfidence
        options.minHandLandmarksConfidence = HolisticLandmarkerConstants.minHandLandmarksConfidence
        options.outputFaceBlendshapes = true
        options.outputPoseSegmentationMasks = true
        options.baseOptions.modelAssetPath = modelPath
        options.baseOptions.delegate = delegate
        if runningMode == .liveStream {
            options.holisticLandmarkerLiveStreamDelegate = self
        }
        holisticLandmarker = try HolisticLandmarker(options: options)
    }

    static func stillImageLandmarkerService(modelPath: String?, delegate: Delegate) throws -> HolisticLandmarkerService? {
        try HolisticLandmarkerService(modelPath: modelPath, runningMode: .image, delegate: delegate)
    }

    static func videoLandmarkerService(modelPath: String?, delegate: Delegate) throws -> HolisticLandmarkerService? {
        try HolisticLandmarkerService(modelPath: modelPath, runningMode: .video, delegate: delegate)
    }

    static func liveStreamLandmarkerService(modelPath: String?, delegate: Delegate) throws -> HolisticLandmarkerService? {
        try HolisticLandmarkerService(modelPath: modelPath, runningMode: .liveStream, delegate: delegate)
    }

    func detect(image: UIImage) throws -> HolisticResultBundle? {
        let mpImage = try MPImage(uiImage: image)
        let startDate = Date()
        let result = try holisticLandmarker?.detect(image: mpImage)
        return HolisticResultBundle(inferenceTime: Date().timeIntervalSince(startDate) * 1000, holisticLandmarkerResults: [result])
    }

    func detect(frames: [UIImage], inferenceIntervalInMilliseconds interval: Int) throws -> HolisticResultBundle {
        let startDate = Date()
        var results: [HolisticLandmarkerResult?] = []
        for (i, frame) in frames.enumerated() {
            results.append(try holisticLandmarker?.detect(videoFrame: MPImage(uiImage: frame), timestampInMilliseconds: interval * i))
        }
        let perFrame = Date().timeIntervalSince(startDate) / Double(max(frames.count, 1)) * 1000
        return HolisticResultBundle(inferenceTime: perFrame, holisticLandmarkerResults: results)
    }

    func detectAsync(image: UIImage, orientation: UIImage.Orientation, timeStamps: Int) throws {
        let mpImage = try MPImage(uiImage: image, orientation: orientation)
        try holisticLandmarker?.detectAsync(image: mpImage, timestampInMilliseconds: timeStamps)
    }
}

extension HolisticLandmarkerService: HolisticLandmarkerLiveStreamDelegate {
    func holisticLandmarker(_ holisticLandmarker: HolisticLandmarker, didFinishDetection result: HolisticLandmarkerResult?,
                            timestampInMilliseconds: Int, error: Error?) {
        liveStream.record(timestampInMilliseconds, result?.poseLandmarks.count, error)
    }
}

func runHolisticLandmarker(imagePath: String) throws -> [String: Any] {
    guard let uiImage = UIImage(contentsOfFile: imagePath) else { throw VisionTaskError.processingFailed("no image") }
    guard let service = try HolisticLandmarkerService.stillImageLandmarkerService(
        modelPath: HolisticLandmarkerConstants.modelPath, delegate: HolisticLandmarkerConstants.delegate)
    else { throw VisionTaskError.processingFailed("no holistic_landmarker.task beside the binary") }
    guard let result = try service.detect(image: uiImage)?.holisticLandmarkerResults.first as? HolisticLandmarkerResult else {
        throw VisionTaskError.processingFailed("no result")
    }
    var mask: Any = NSNull()
    if let segmentationMask = result.poseSegmentationMask {
        let values = segmentationMask.float32Values
        mask = ["width": segmentationMask.width, "height": segmentationMask.height,
                "mean": Double(values.reduce(0, +)) / Double(max(values.count, 1)),
                "fractionAbove0.5": Double(values.filter { $0 > 0.5 }.count) / Double(max(values.count, 1))]
    }
    let json: [String: Any] = [
        "poseLandmarks": result.poseLandmarks.map(JSON.landmark), "poseWorldLandmarks": result.poseWorldLandmarks.map(JSON.landmark),
        "faceLandmarks": result.faceLandmarks.map(JSON.landmark),
        "faceBlendshapes": (result.faceBlendshapes?.categories ?? []).map(JSON.category),
        "leftHandLandmarks": result.leftHandLandmarks.map(JSON.landmark), "leftHandWorldLandmarks": result.leftHandWorldLandmarks.map(JSON.landmark),
        "rightHandLandmarks": result.rightHandLandmarks.map(JSON.landmark),
        "rightHandWorldLandmarks": result.rightHandWorldLandmarks.map(JSON.landmark), "segmentationMask": mask,
    ]
    // The header's designated initializer, as an app's test builds an expected result.
    let rebuilt = HolisticLandmarkerResult(
        faceLandmarks: result.faceLandmarks, faceBlendshapes: result.faceBlendshapes, poseLandmarks: result.poseLandmarks,
        poseWorldLandmarks: result.poseWorldLandmarks, poseSegmentationMask: result.poseSegmentationMask,
        leftHandLandmarks: result.leftHandLandmarks, leftHandWorldLandmarks: result.leftHandWorldLandmarks,
        rightHandLandmarks: result.rightHandLandmarks, rightHandWorldLandmarks: result.rightHandWorldLandmarks,
        timestampInMilliseconds: result.timestampInMilliseconds)

    guard let video = try HolisticLandmarkerService.videoLandmarkerService(
        modelPath: HolisticLandmarkerConstants.modelPath, delegate: HolisticLandmarkerConstants.delegate)
    else { throw VisionTaskError.processingFailed("no model") }
    let videoBundle = try video.detect(frames: [uiImage, uiImage, uiImage], inferenceIntervalInMilliseconds: 33)

    guard let live = try HolisticLandmarkerService.liveStreamLandmarkerService(
        modelPath: HolisticLandmarkerConstants.modelPath, delegate: HolisticLandmarkerConstants.delegate)
    else { throw VisionTaskError.processingFailed("no model") }
    for frame in 0..<3 {
        try live.detectAsync(image: uiImage, orientation: .up, timeStamps: frame * 33)
        live.holisticLandmarker?.waitUntilIdle()
    }

    return [
        "task": "holistic", "image": URL(fileURLWithPath: imagePath).lastPathComponent, "result": json,
        "rebuiltEqual": rebuilt == result,
        "video": videoBundle.holisticLandmarkerResults.map { $0?.poseLandmarks.count ?? -1 },
        "videoTimestamps": videoBundle.holisticLandmarkerResults.map { $0?.timestampInMilliseconds ?? -1 },
        "liveStream": live.liveStream.json,
    ]
}
