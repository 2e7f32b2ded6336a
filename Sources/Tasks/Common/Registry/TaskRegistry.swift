/// Every task the surfaces take from a ``TaskDescription``: one line per task. (ML Kit's `odt`, in module MLKit above
/// this one, is the one task still wired into the command line and the worker by hand: its ML Kit API is not a
/// ``VisionTask``.)
package enum TaskRegistry {
    package static let tasks: [TaskDescription] = [
        PoseLandmarker.registration,
        FaceLandmarker.registration,
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
