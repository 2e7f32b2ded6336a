// Runs the guide's snippets on one image: seed-snippets IMAGE [FRAMES]. The model comes from where the snippets look
// for it, `Bundle.main.path(forResource: "pose_landmarker", ofType: "task")`: pose_landmarker.task beside the binary.
import VisionTasks

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: seed-snippets IMAGE [FRAMES]")
    exit(2)
}
let frames = arguments.count > 2 ? Int(arguments[2]) ?? 3 : 3
do {
    let image = try imageModeSnippets(imagePath: arguments[1])
    print("image: \(image.landmarks.count) pose(s), \(image.landmarks.first?.count ?? 0) landmarks")
    let video = try videoModeSnippets(imagePath: arguments[1], frames: frames)
    print("video: \(video.count) frames, poses \(video.map(\.landmarks.count))")
    try liveStreamSnippets(imagePath: arguments[1], frames: frames)
    let delivered = liveStreamResults.withLock { $0 }
    print("live stream: \(delivered.count) results, timestamps \(delivered.map(\.0)), poses \(delivered.map { $0.1 ?? -1 }), errors \(delivered.compactMap(\.2))")
} catch {
    print("error: \(error)")
    exit(1)
}
