/// Every task the surfaces take from a ``TaskDescription``: one line per task. (Pose, face, hand, gesture, object and
/// classify are still wired into each surface by hand; they move here next.)
package enum TaskRegistry {
    package static let tasks: [TaskDescription] = [
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
