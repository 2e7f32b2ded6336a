// Runs one guide's snippets on one image: seed-snippets pose|face|gesture|face-detector IMAGE [FRAMES]. The model comes
// from where the snippets look for it, `Bundle.main.path(forResource: "pose_landmarker" / "face_landmarker" /
// "gesture_recognizer", ofType: "task")` or, for the face detector guide's, `(forResource: "model", ofType: "tflite")`:
// the bundle beside the binary.
import VisionTasks

let arguments = CommandLine.arguments
guard arguments.count >= 3, ["pose", "face", "gesture", "face-detector"].contains(arguments[1]) else {
    print("usage: seed-snippets pose|face|gesture|face-detector IMAGE [FRAMES]")
    exit(2)
}
let imagePath = arguments[2]
let frames = arguments.count > 3 ? Int(arguments[3]) ?? 3 : 3
do {
    if arguments[1] == "pose" {
        let image = try imageModeSnippets(imagePath: imagePath)
        print("image: \(image.landmarks.count) pose(s), \(image.landmarks.first?.count ?? 0) landmarks")
        let video = try videoModeSnippets(imagePath: imagePath, frames: frames)
        print("video: \(video.count) frames, poses \(video.map(\.landmarks.count))")
        try liveStreamSnippets(imagePath: imagePath, frames: frames)
        let delivered = liveStreamResults.withLock { $0 }
        print("live stream: \(delivered.count) results, timestamps \(delivered.map(\.0)), poses \(delivered.map { $0.1 ?? -1 }), errors \(delivered.compactMap(\.2))")
    } else if arguments[1] == "gesture" {
        let image = try gestureImageModeSnippets(imagePath: imagePath)
        print("image: \(image.gestures.count) hand(s), gestures \(image.gestures.map { $0.map { $0.categoryName ?? "?" } })")
        let video = try gestureVideoModeSnippets(imagePath: imagePath, frames: frames)
        print("video: \(video.count) frames, hands \(video.map(\.landmarks.count))")
        try gestureLiveStreamSnippets(imagePath: imagePath, frames: frames)
        let delivered = gestureLiveStreamResults.withLock { $0 }
        print("live stream: \(delivered.count) results, timestamps \(delivered.map(\.0)), hands \(delivered.map { $0.1 ?? -1 }), errors \(delivered.compactMap(\.2))")
    } else if arguments[1] == "face-detector" {
        let image = try faceDetectorImageModeSnippets(imagePath: imagePath)
        print("image: \(image.detections.count) face(s), keypoints \(image.detections.map { $0.keypoints?.count ?? 0 })")
        let byPath = try faceDetectorModelPathInitializer(imagePath: imagePath)
        print("FaceDetector(modelPath:): \(byPath.detections.count) face(s)")
        let video = try faceDetectorVideoModeSnippets(imagePath: imagePath, frames: frames)
        print("video: \(video.count) frames, faces \(video.map(\.detections.count))")
        try faceDetectorLiveStreamSnippets(imagePath: imagePath, frames: frames)
        let delivered = faceDetectorLiveStreamResults.withLock { $0 }
        print("live stream: \(delivered.count) results, timestamps \(delivered.map(\.0)), faces \(delivered.map { $0.1 ?? -1 }), errors \(delivered.compactMap(\.2))")
    } else {
        let image = try faceImageModeSnippets(imagePath: imagePath)
        print("image: \(image.faceLandmarks.count) face(s), \(image.faceLandmarks.first?.count ?? 0) landmarks")
        let video = try faceVideoModeSnippets(imagePath: imagePath, frames: frames)
        print("video: \(video.count) frames, faces \(video.map(\.faceLandmarks.count))")
        try faceLiveStreamSnippets(imagePath: imagePath, frames: frames)
        let delivered = faceLiveStreamResults.withLock { $0 }
        print("live stream: \(delivered.count) results, timestamps \(delivered.map(\.0)), faces \(delivered.map { $0.1 ?? -1 }), errors \(delivered.compactMap(\.2))")
    }
} catch {
    print("error: \(error)")
    exit(1)
}
