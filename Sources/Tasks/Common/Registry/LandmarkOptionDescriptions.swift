extension TaskOptionDescription {
    /// `--smoothing`, the landmarkers' choice of which instances video and live-stream modes smooth: a command-line
    /// option (not MediaPipe's, so not the service's).
    package static func smoothing<Options: TaskOptions>(_ path: ReferenceWritableKeyPath<Options, LandmarkSmoothing> & Sendable) -> Self {
        TaskOptionDescription.choice(
            "landmarkSmoothing", path,
            help: "Which instances video and live-stream modes smooth: mediapipe (as MediaPipe: only when at most one is sought), always (each tracked one), never."
        ).spelled("smoothing").only(.commandLine)
    }

    /// How many instances a landmarker looks for (`numPoses`, `numFaces`, `numHands`): the command line's range
    /// (``instanceRange``, far above what an image holds) and its default of two; the service takes MediaPipe's default
    /// and leaves the range to the task's own typed error.
    package static func instances<Options: TaskOptions>(_ name: String, _ path: ReferenceWritableKeyPath<Options, Int> & Sendable,
                                                        help: String) -> Self {
        TaskOptionDescription.integer(name, path, in: instanceRange, help: help)
            .defaulting(onCommandLine: .integer(2)).rangeChecked(on: .commandLine)
    }

    /// Most instances on the command line: the tasks' own limit is only "at least 1".
    package static let instanceRange = 1...1000

    /// A confidence the service sets by MediaPipe's name and the command line does not offer; the task checks its range.
    package static func serviceConfidence<Options: TaskOptions>(_ name: String, _ path: ReferenceWritableKeyPath<Options, Float> & Sendable,
                                                                help: String) -> Self {
        TaskOptionDescription.number(name, path, in: 0...1, help: help).only(.service).rangeChecked(on: .commandLine)
    }

    /// The hand landmarker's and the gesture recognizer's options (MediaPipe's `HandLandmarkerOptions` fields).
    package static func handOptions<Options: HandTaskOptions>(_: Options.Type) -> [TaskOptionDescription] {
        [
            instances("numHands", \Options.numHands, help: "Most hands to find."),
            smoothing(\Options.landmarkSmoothing),
            serviceConfidence("minHandDetectionConfidence", \Options.minHandDetectionConfidence, help: "Palm detections scoring below this are not used."),
            serviceConfidence("minHandPresenceConfidence", \Options.minHandPresenceConfidence, help: "Hands whose presence score is below this are not returned."),
            serviceConfidence("minTrackingConfidence", \Options.minTrackingConfidence, help: "Below this, the next frame detects hands afresh instead of tracking them."),
        ]
    }
}
