import Foundation

/// Options every ML Kit object detector takes (ML Kit's `CommonObjectDetectorOptions`). A detector copies them when
/// it is made: changing them afterwards changes only detectors made afterwards.
public class CommonObjectDetectorOptions {
    /// `.stream` (the default) tracks objects across frames; `.singleImage` gives no tracking IDs.
    public var detectorMode: ObjectDetectorMode = .stream
    /// false (the default): only the most prominent object (the detector's best-scoring one); true: up to five.
    public var shouldEnableMultipleObjects = false
    /// Whether objects carry labels: the custom classifier's, or the detector's own (COCO names) without one.
    public var shouldEnableClassification = false
    /// The class-agnostic detector's model. ML Kit's own detector is not public; ours is SSD MobileNet v1 (COCO, uint8).
    /// When nil: the path in the environment variable `VISION_TASKS_OBJECT_DETECTOR_MODEL`, else
    /// `Models/ssd_mobilenet_v1.tflite` under the working directory. (Not an ML Kit option.)
    public var detectorModelPath: String?
    /// Threads per model run; nil for every core. (Not an ML Kit option.)
    public var numThreads: Int?

    init() {}
}
