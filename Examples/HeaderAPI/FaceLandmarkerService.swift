// Face Landmarker, as an iOS app drives it through MediaPipe's headers: options on a `let`, set through
// `options.baseOptions`, blendshapes and transformation matrixes on, the overlay's connection tables
// (`FaceLandmarker.faceOvalConnections()`, `tesselationConnections()` …), matrices read with `value(atRow:column:)`.
import VisionTasks

struct FaceConstants {
    static let numFaces = 2
    static let delegate: Delegate = .CPU
    static let modelPath = Bundle.main.path(forResource: "face_landmarker", ofType: "task")
}

final class FaceLandmarkerService: NSObject, FaceLandmarkerLiveStreamDelegate {
    let liveStream = LiveStreamLog()

    func makeLandmarker(runningMode: RunningMode) throws -> FaceLandmarker {
        let options = FaceLandmarkerOptions()
        options.baseOptions.modelAssetPath = FaceConstants.modelPath
        options.baseOptions.delegate = FaceConstants.delegate
        options.runningMode = runningMode
        options.numFaces = FaceConstants.numFaces
        options.minFaceDetectionConfidence = 0.5
        options.minFacePresenceConfidence = 0.5
        options.minTrackingConfidence = 0.5
        options.outputFaceBlendshapes = true
        options.outputFacialTransformationMatrixes = true
        if runningMode == .liveStream {
            options.faceLandmarkerLiveStreamDelegate = self
        }
        return try FaceLandmarker(options: options)
    }

    func faceLandmarker(_ faceLandmarker: FaceLandmarker, didFinishDetection result: FaceLandmarkerResult?,
                        timestampInMilliseconds: Int, error: Error?) {
        liveStream.record(timestampInMilliseconds, result?.faceLandmarks.count, error)
    }
}

func runFaceLandmarker(imagePath: String) throws -> [String: Any] {
    let service = FaceLandmarkerService()
    let landmarker = try service.makeLandmarker(runningMode: .image)
    guard let uiImage = UIImage(contentsOfFile: imagePath) else { throw VisionTaskError.processingFailed("no image") }
    let image = try MPImage(uiImage: uiImage)
    let result = try landmarker.detect(image: image)

    let imageSize = CGSize(width: image.width, height: image.height)
    var lines: [String: [Int]] = [:]
    let tables: [(String, [Connection])] = [
        ("faceOval", FaceLandmarker.faceOvalConnections()), ("lips", FaceLandmarker.lipsConnections()),
        ("leftEye", FaceLandmarker.leftEyeConnections()), ("rightEye", FaceLandmarker.rightEyeConnections()),
        ("leftEyebrow", FaceLandmarker.leftEyebrowConnections()), ("rightEyebrow", FaceLandmarker.rightEyebrowConnections()),
        ("leftIris", FaceLandmarker.leftIrisConnections()), ("rightIris", FaceLandmarker.rightIrisConnections()),
        ("contours", FaceLandmarker.contoursConnections()), ("tesselation", FaceLandmarker.tesselationConnections()),
        ("face", FaceLandmarker.faceConnections()),
    ]
    for face in result.faceLandmarks {
        let dots = Overlay.dots(face, imageSize: imageSize)
        for (name, table) in tables { lines[name, default: []].append(Overlay.lines(table, dots: dots).count) }
    }
    // Rows of each 4 × 4 matrix through MediaPipe's accessor (`NSUInteger` indices).
    let matrixes = result.facialTransformationMatrixes.map { matrix in
        (0..<UInt(matrix.rows)).map { row in (0..<UInt(matrix.columns)).map { Double(matrix.value(atRow: row, column: $0)) } }
    }

    let live = FaceLandmarkerService()
    let liveLandmarker = try live.makeLandmarker(runningMode: RunningMode(rawValue: 2)!)
    for frame in 0..<3 {
        try liveLandmarker.detectAsync(image: image, timestampInMilliseconds: frame * 33)
        liveLandmarker.waitUntilIdle()
    }

    return [
        "task": "face", "image": URL(fileURLWithPath: imagePath).lastPathComponent,
        "result": [
            "faceLandmarks": result.faceLandmarks.map { $0.map(JSON.landmark) },
            "faceBlendshapes": result.faceBlendshapes.map { $0.categories.map(JSON.category) },
            "facialTransformationMatrixes": matrixes,
        ],
        "lines": lines, "liveStream": live.liveStream.json,
    ]
}
