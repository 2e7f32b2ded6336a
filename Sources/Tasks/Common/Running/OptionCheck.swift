/// Checks shared by every task's options.
enum OptionCheck {
    /// A confidence lies in [0, 1].
    static func confidence(_ value: Float, _ name: String) throws(VisionTaskError) {
        guard value.isFinite, (0...1).contains(value) else {
            throw .invalidOption(name: name, reason: "\(value) is outside [0.0, 1.0]")
        }
    }

    /// An instance count (numPoses, numFaces, numHands) is at least 1.
    static func count(_ value: Int, _ name: String) throws(VisionTaskError) {
        guard value >= 1 else { throw .invalidOption(name: name, reason: "\(value) is below 1") }
    }

    /// The options of a detect-then-track landmarker (pose, face, hand), which MediaPipe names after what it finds:
    /// for "Pose", `numPoses`, `minPoseDetectionConfidence`, `minPosePresenceConfidence`, and `minTrackingConfidence`.
    static func landmarker(_ instance: String, count: Int, detection: Float, presence: Float,
                           tracking: Float) throws(VisionTaskError) {
        try Self.count(count, "num\(instance)s")
        try confidence(detection, "min\(instance)DetectionConfidence")
        try confidence(presence, "min\(instance)PresenceConfidence")
        try confidence(tracking, "minTrackingConfidence")
    }

    /// A live-stream delegate is set exactly in live-stream mode.
    static func liveStreamDelegate(isSet: Bool, runningMode: RunningMode, _ name: String) throws(VisionTaskError) {
        if runningMode == .liveStream, !isSet { throw .missingLiveStreamDelegate }
        if runningMode != .liveStream, isSet { throw .invalidOption(name: name, reason: "only used in live-stream mode") }
    }
}
