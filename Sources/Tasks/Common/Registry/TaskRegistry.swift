/// Every task the surfaces take from a ``TaskDescription``: one line per task. (Face is still wired into
/// each surface by hand; it moves here next. ML Kit's `odt` is above this module.)
package enum TaskRegistry {
    package static let tasks: [TaskDescription] = [
        PoseLandmarker.registration,
        HandLandmarker.registration,
        GestureRecognizer.registration,
        ObjectDetector.registration,
        ImageClassifier.registration,
        FaceDetector.registration,
        ImageSegmenter.registration,
        InteractiveSegmenter.registration,
        ImageEmbedder.registration,
        HolisticLandmarker.registration,
    ]

    package static func task(named name: String) -> TaskDescription? {
        tasks.first { $0.name == name }
    }
}
