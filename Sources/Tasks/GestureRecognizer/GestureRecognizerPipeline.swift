import VisionTasksModelFormat

/// The gesture recognizer's pipeline: the hand pipeline, then each hand's gesture.
final class GestureRecognizerPipeline: TaskPipeline {
    typealias Options = GestureRecognizerOptions
    let hands: HandLandmarkerPipeline
    let classifier: GestureClassifier

    init(bundle: TaskBundle, options: TaskSettings<GestureRecognizerOptions.Values>) throws(VisionTaskError) {
        try bundle.requireMembers(["hand_detector.tflite", "hand_landmarks_detector.tflite", GestureClassifier.embedderMember,
                                   GestureClassifier.cannedMember], for: "gesture recognizer")
        hands = try HandLandmarkerPipeline(bundle: bundle, options: options.with(options.hand))
        classifier = try GestureClassifier(bundle: bundle, canned: options.cannedGesturesClassifierOptions,
                                           custom: options.customGesturesClassifierOptions, threads: options.baseOptions.numThreads)
    }

    /// The hand stages keep the video-mode state; the gesture classifiers keep none.
    func resetVideoState() {
        hands.resetVideoState()
    }

    /// The hand stages, then the embedder and the classifiers together as "gestures".
    var stageTimings: [NamedStageTimings] {
        var g = classifier.embedder.timings
        for head in classifier.heads {
            g.preprocessing += head.runner.timings.preprocessing
            g.inference += head.runner.timings.inference
        }
        return hands.stageTimings + [NamedStageTimings("gestures", g)]
    }

    func process(_ image: MPImage, timestampMilliseconds timestamp: Int?) throws(VisionTaskError) -> GestureRecognizerResult {
        let found = try hands.hands(image, timestampMilliseconds: timestamp)
        // The task's region of interest is the whole image, turned by its orientation (the embedder's inputs are
        // turned back by it).
        let rotation = NormalizedRect.whole(of: image).rotation
        var gestures: [[Category]] = []
        for hand in found {
            // MediaPipe drops a hand whose every category the options filtered out from the gesture list only,
            // which misaligns it with the other lists; an empty list keeps every hand at its index.
            let gesture = try classifier.gesture(of: hand, imageWidth: image.width, imageHeight: image.height, rotation: rotation)
            gestures.append(gesture.map { [$0] } ?? [])
        }
        var result = GestureRecognizerResult(gestures: gestures, handedness: found.map { [$0.handedness] }, landmarks: found.map(\.landmarks),
                                             worldLandmarks: found.map(\.world), timestampInMilliseconds: timestamp ?? 0)
        result.identities = found.compactMap(\.identity)
        return result
    }
}
