import VisionTasks
import VisionTasksMLKit

/// Every task the surfaces take from a ``TaskDescription``: one line per task. It sits above both task modules, so that
/// ML Kit's detector (module VisionTasksMLKit, above VisionTasks) is listed as MediaPipe's tasks are.
package enum TaskRegistry {
    package static let tasks: [TaskDescription] = [
        PoseLandmarker.registration,
        FaceLandmarker.registration,
        HandLandmarker.registration,
        GestureRecognizer.registration,
        VisionTasks.ObjectDetector.registration,
        ImageClassifier.registration,
        FaceDetector.registration,
        ImageSegmenter.registration,
        InteractiveSegmenter.registration,
        ImageEmbedder.registration,
        HolisticLandmarker.registration,
        VisionTasksMLKit.ObjectDetector.registration,
    ]

    package static func task(named name: String) -> TaskDescription? {
        tasks.first { $0.name == name }
    }
}
