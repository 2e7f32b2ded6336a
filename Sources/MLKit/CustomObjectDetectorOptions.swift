import Foundation

/// ML Kit's options for a detector whose objects a custom image classifier labels.
public final class CustomObjectDetectorOptions: CommonObjectDetectorOptions {
    public let localModel: LocalModel?
    public let remoteModel: RemoteModel?
    /// The least confidence a label needs, in [0, 1]. Unset or outside [0, 1] (NaN included), the classifier's
    /// metadata threshold is used, else 0 — as ML Kit documents it (an invalid value is not an error there).
    public var classificationConfidenceThreshold: NSNumber?
    /// The most labels per object; unset or not positive, ML Kit's default 10.
    public var maxPerObjectLabelCount = 10

    /// ML Kit's rule for `classificationConfidenceThreshold`: the option when it is in [0, 1], else the model
    /// metadata's threshold, else 0.
    package static func labelThreshold(requested: NSNumber?, metadata: Float?) -> Float {
        labelThreshold(requestedValue: requested?.floatValue, metadata: metadata)
    }

    /// As ``labelThreshold(requested:metadata:)``, for the option's value as a detector copied it.
    package static func labelThreshold(requestedValue value: Float?, metadata: Float?) -> Float {
        if let value, (0...1).contains(value) { return value }
        return metadata ?? 0
    }

    /// ML Kit's rule for `maxPerObjectLabelCount`: the option when positive, else 10.
    package static func labelCount(requested: Int) -> Int { requested > 0 ? requested : 10 }

    public init(localModel: LocalModel) {
        self.localModel = localModel
        remoteModel = nil
    }

    /// A downloaded remote model (``ModelManager``); processing fails with ``ObjectDetectionError/modelNotDownloaded(name:)``
    /// until it is.
    public init(remoteModel: RemoteModel) {
        localModel = nil
        self.remoteModel = remoteModel
    }
}
