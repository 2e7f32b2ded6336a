import Foundation

/// An object found (ML Kit's `Object`): its box in image pixels, its tracking ID in stream mode, its labels.
public final class Object: @unchecked Sendable {
    // @unchecked: immutable; NSNumber is not marked Sendable on Linux.
    public let frame: CGRect
    /// Stays the same while the object stays in view, frame after frame; never reused. nil in single-image mode.
    public let trackingID: NSNumber?
    public let labels: [ObjectLabel]

    init(frame: CGRect, trackingID: NSNumber?, labels: [ObjectLabel]) {
        self.frame = frame
        self.trackingID = trackingID
        self.labels = labels
    }
}
