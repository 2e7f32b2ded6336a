import Foundation

/// The options' values, copied when a detector is made: the options are classes the caller may go on changing (as
/// ML Kit's are), and a detector's frames are processed on other threads.
struct ObjectDetectorConfiguration: Sendable {
    /// Where a custom classifier comes from.
    enum Classifier: Sendable {
        case local(LocalModel)
        case remote(RemoteModel)
    }

    let mode: ObjectDetectorMode
    let multipleObjects: Bool
    let classification: Bool
    let detectorPath: String
    let numThreads: Int?
    /// nil for the base detector (``ObjectDetectorOptions``), whose objects carry the detector's own labels.
    let classifier: Classifier?
    /// `classificationConfidenceThreshold` as set, before ML Kit's fall-back rule is applied.
    let requestedLabelThreshold: Float?
    let maxPerObjectLabelCount: Int

    init(_ options: CommonObjectDetectorOptions) {
        mode = options.detectorMode
        multipleObjects = options.shouldEnableMultipleObjects
        classification = options.shouldEnableClassification
        // The environment is read now, as the model is loaded now.
        detectorPath = options.detectorModelPath ?? ProcessInfo.processInfo.environment["VISION_TASKS_OBJECT_DETECTOR_MODEL"]
            ?? FileManager.default.currentDirectoryPath + "/Models/ssd_mobilenet_v1.tflite"
        numThreads = options.numThreads
        let custom = options as? CustomObjectDetectorOptions
        // Each initializer of the custom options sets one of the two models.
        classifier = custom?.localModel.map(Classifier.local) ?? custom?.remoteModel.map(Classifier.remote)
        requestedLabelThreshold = custom?.classificationConfidenceThreshold?.floatValue
        maxPerObjectLabelCount = custom?.maxPerObjectLabelCount ?? 10
    }
}
