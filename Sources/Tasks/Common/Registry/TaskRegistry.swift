/// Every task the surfaces take from a ``TaskDescription``: one line per task. (Pose and face are still
/// wired into each surface by hand; they move here next. ML Kit's `odt` is above this module.)
package enum TaskRegistry {
    package static let tasks: [TaskDescription] = [
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
