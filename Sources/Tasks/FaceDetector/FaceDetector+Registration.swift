extension FaceDetector {
    /// The Face Detector as every surface takes it (`TaskRegistry`).
    package static let registration = TaskDescription(
        name: "face-detector", title: "Face Detector",
        summary: "Detect faces (boxes, scores and six keypoints) with MediaPipe's BlazeFace short- or full-range model, as MediaPipe's Face Detector does.",
        modelNames: ["face_detection_short_range.tflite", "face_detection_full_range_sparse.tflite"],
        options: [
            .number("minDetectionConfidence", \FaceDetectorOptions.minDetectionConfidence, in: 0...1,
                    help: "Faces scoring below this are not returned."),
            .number("minSuppressionThreshold", \FaceDetectorOptions.minSuppressionThreshold, in: 0...1,
                    help: "Overlap (IoU) above which two detections are merged as one face."),
        ],
        mediapipeClass: "FaceDetector", mediapipeMethod: "detect", benchImage: "face_landmark_ex1.jpg",
        benchVideo: "face_head_turning.mp4", task: FaceDetector.self
    ) { result in
        TaskAnswer(json: ["detections": result.detections.map(AnswerJSON.detection)],
                   summary: "\(result.detections.count) face(s)" + (result.detections.first?.categories.first.map { String(format: ", best %.3f", $0.score) } ?? ""),
                   marks: AnswerJSON.marks(result.detections))
    }
}
