@testable import VisionTasks
import VisionTasksModelFormat

/// Reaches into the gesture stage for what the public API does not show.
enum GestureClassifierProbe {
    /// The metadata score threshold of each classifier head, custom first.
    static func thresholds(bundlePath: String) throws -> [Float?] {
        let classifier = try GestureClassifier(bundle: try TaskBundle(path: bundlePath), canned: nil,
                                               custom: nil, threads: 1)
        return classifier.heads.map(\.metadataThreshold)
    }
}
