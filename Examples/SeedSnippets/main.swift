// Runs one guide's snippets on one image:
//     seed-snippets pose|face|gesture|face-detector|image-segmenter|image-embedder IMAGE [FRAMES [OTHER_IMAGE]]
// The model comes from where the snippets look for it, `Bundle.main.path(forResource: "pose_landmarker" /
// "face_landmarker" / "gesture_recognizer", ofType: "task")` or, for the face detector, image segmenter and image
// embedder guides', `(forResource: "model", ofType: "tflite")`: the bundle beside the binary. OTHER_IMAGE is the one
// the embedder guide's cosine similarity compares with (default: IMAGE). With SEED_SNIPPETS_OUTPUT set to a folder,
// the segmenter's masks and the embedder's values are written there too, for the test to hold against MediaPipe's.
import VisionTasks

let tasks = ["pose", "face", "gesture", "face-detector", "image-segmenter", "image-embedder"]
let arguments = CommandLine.arguments
guard arguments.count >= 3, tasks.contains(arguments[1]) else {
    print("usage: seed-snippets \(tasks.joined(separator: "|")) IMAGE [FRAMES [OTHER_IMAGE]]")
    exit(2)
}
let imagePath = arguments[2]
let frames = arguments.count > 3 ? Int(arguments[3]) ?? 3 : 3
let otherImagePath = arguments.count > 4 ? arguments[4] : imagePath
do {
    if arguments[1] == "image-segmenter" {
        try runImageSegmenterSnippets(imagePath: imagePath, frames: frames)
        exit(0)
    }
    if arguments[1] == "image-embedder" {
        try runImageEmbedderSnippets(imagePath: imagePath, otherImagePath: otherImagePath, frames: frames)
        exit(0)
    }
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

/// The image segmenter guide's snippets, summed up a line per running mode; the masks go to SEED_SNIPPETS_OUTPUT.
func runImageSegmenterSnippets(imagePath: String, frames: Int) throws {
    func size(_ mask: Mask?) -> String { mask.map { "\($0.width)x\($0.height)" } ?? "none" }
    let image = try imageSegmenterImageModeSnippets(imagePath: imagePath)
    let values = Set(image.categoryMask?.uint8Values ?? []).sorted()
    print("image: category mask \(size(image.categoryMask)), values \(values), confidence masks \(image.confidenceMasks?.count ?? 0), quality scores \(image.qualityScores ?? [])")
    try SnippetOutput.save("image", image)
    let byPath = try imageSegmenterModelPathInitializer(imagePath: imagePath)
    print("ImageSegmenter(modelPath:): confidence masks \((byPath.confidenceMasks ?? []).map(size)), category mask \(size(byPath.categoryMask))")
    try SnippetOutput.save("model-path", byPath)
    let video = try imageSegmenterVideoModeSnippets(imagePath: imagePath, frames: frames)
    print("video: \(video.count) frames, category masks \(video.map { size($0.categoryMask) })")
    for (index, result) in video.enumerated() { try SnippetOutput.save("video-\(index)", result) }
    try imageSegmenterLiveStreamSnippets(imagePath: imagePath, frames: frames)
    let delivered = imageSegmenterLiveStreamResults.withLock { $0 }
    print("live stream: \(delivered.count) results, timestamps \(delivered.map(\.0)), category masks \(delivered.map { size($0.1?.categoryMask) }), errors \(delivered.compactMap(\.2))")
    for (index, entry) in delivered.enumerated() { if let result = entry.1 { try SnippetOutput.save("live-\(index)", result) } }
}

/// The image embedder guide's snippets, summed up a line per running mode; the values go to SEED_SNIPPETS_OUTPUT.
func runImageEmbedderSnippets(imagePath: String, otherImagePath: String, frames: Int) throws {
    func heads(_ result: ImageEmbedderResult) -> String {
        result.embeddingResult.embeddings.map { embedding in
            let form = embedding.quantizedValues.map { "quantized \($0.count)" } ?? embedding.floatValues.map { "float \($0.count)" } ?? "empty"
            return "head \(embedding.headIndex) \(embedding.headName ?? "-") \(form)"
        }.joined(separator: "; ")
    }
    let image = try imageEmbedderImageModeSnippets(imagePath: imagePath, otherImagePath: otherImagePath)
    print("image: \(heads(image.result))")
    try SnippetOutput.save("image", image.result)
    print("cosine similarity: \(image.similarity.doubleValue)")
    let byPath = try imageEmbedderModelPathInitializer(imagePath: imagePath)
    print("ImageEmbedder(modelPath:): \(heads(byPath))")
    try SnippetOutput.save("model-path", byPath)
    let video = try imageEmbedderVideoModeSnippets(imagePath: imagePath, frames: frames)
    print("video: \(video.count) frames, timestamps \(video.map(\.timestampInMilliseconds)), \(video.map(heads))")
    for (index, result) in video.enumerated() { try SnippetOutput.save("video-\(index)", result) }
    try imageEmbedderLiveStreamSnippets(imagePath: imagePath, frames: frames)
    let delivered = imageEmbedderLiveStreamResults.withLock { $0 }
    print("live stream: \(delivered.count) results, timestamps \(delivered.map(\.0)), \(delivered.map { $0.1.map(heads) ?? "nil" }), errors \(delivered.compactMap(\.2))")
    for (index, entry) in delivered.enumerated() { if let result = entry.1 { try SnippetOutput.save("live-\(index)", result) } }
}

/// Raw results for the test: masks and embeddings are too long to print. Masks as `NAME.category` (bytes),
/// `NAME.confidence-K` (little-endian float32s) and `NAME.quality` (the scores, one a line); embeddings as
/// `NAME.head-K.float` (little-endian float32s) or `NAME.head-K.quantized` (signed bytes).
enum SnippetOutput {
    static let directory = ProcessInfo.processInfo.environment["SEED_SNIPPETS_OUTPUT"].map { URL(fileURLWithPath: $0) }

    static func write(_ name: String, _ bytes: [UInt8]) throws {
        guard let directory else { return }
        try Data(bytes).write(to: directory.appendingPathComponent(name))
    }

    static func bytes(_ floats: [Float]) -> [UInt8] {
        floats.flatMap { value -> [UInt8] in
            let bits = value.bitPattern.littleEndian
            return (0..<4).map { UInt8(truncatingIfNeeded: bits >> ($0 * 8)) }
        }
    }

    static func save(_ name: String, _ result: ImageSegmenterResult) throws {
        if let mask = result.categoryMask { try write("\(name).category", mask.uint8Values) }
        for (index, mask) in (result.confidenceMasks ?? []).enumerated() {
            try write("\(name).confidence-\(index)", bytes(mask.float32Values))
        }
        try write("\(name).quality", Array((result.qualityScores ?? []).map { "\($0)\n" }.joined().utf8))
    }

    static func save(_ name: String, _ result: ImageEmbedderResult) throws {
        for embedding in result.embeddingResult.embeddings {
            if let values = embedding.floatValues { try write("\(name).head-\(embedding.headIndex).float", bytes(values)) }
            if let values = embedding.quantizedValues {
                try write("\(name).head-\(embedding.headIndex).quantized", values.map { UInt8(bitPattern: $0) })
            }
        }
    }
}
