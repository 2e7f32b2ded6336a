import VisionTasksModelFormat

/// The gesture recognizer's pipeline: the hand pipeline, then each hand's gesture.
final class GesturePipeline: TaskPipeline {
    let hands: HandPipeline
    let classifier: GestureClassifier

    init(bundle: TaskBundle, options: GestureRecognizerOptions.Values) throws(VisionTaskError) {
        try bundle.requireMembers(["hand_detector.tflite", "hand_landmarks_detector.tflite", GestureClassifier.embedderMember,
                                   GestureClassifier.cannedMember], for: "gesture recognizer")
        hands = try HandPipeline(bundle: bundle, options: options.hand, baseOptions: options.baseOptions, runningMode: options.runningMode)
        classifier = try GestureClassifier(bundle: bundle, canned: options.cannedGesturesClassifierOptions,
                                           custom: options.customGesturesClassifierOptions, threads: options.baseOptions.numThreads)
    }

    var timings: GestureStageTimings {
        let h = hands.timings
        var g = classifier.embedder.timings
        for head in classifier.heads {
            g.preprocessing += head.runner.timings.preprocessing
            g.inference += head.runner.timings.inference
        }
        return GestureStageTimings(detector: h.detector, landmarks: h.landmarks, gestures: g)
    }

    func process(_ image: MPImage, timestampMilliseconds timestamp: Int?) throws(VisionTaskError) -> GestureRecognizerResult {
        let found = try hands.hands(image, timestampMilliseconds: timestamp)
        // The task's region of interest is the whole image, turned by its orientation (the embedder's inputs are
        // turned back by it).
        let rotation = Float(image.orientation.regionRotationDegrees * .pi / 180)
        var gestures: [[Category]] = []
        for hand in found {
            // MediaPipe drops a hand whose every category the options filtered out from the gesture list only,
            // which misaligns it with the other lists; an empty list keeps every hand at its index.
            let gesture = try classifier.gesture(of: hand, imageWidth: image.width, imageHeight: image.height, rotation: rotation)
            gestures.append(gesture.map { [$0] } ?? [])
        }
        return GestureRecognizerResult(gestures: gestures, handedness: found.map { [$0.handedness] }, landmarks: found.map(\.landmarks),
                                       worldLandmarks: found.map(\.world), timestampInMilliseconds: timestamp ?? 0)
    }
}

/// Where a gesture recognizer's time goes, per stage (for benchmarks).
package struct GestureStageTimings: Sendable {
    package var detector: StageTimings
    package var landmarks: StageTimings
    /// The embedder and the classifiers together.
    package var gestures: StageTimings
}
