/// Options of an ``ObjectDetector``, with MediaPipe's names and its iOS defaults.
public final class ObjectDetectorOptions {
    /// Every option but the delegate, in one value: ``copy()`` copies it whole.
    struct Values: Sendable {
        var baseOptions = BaseOptions()
        var runningMode: RunningMode = .image
        var displayNamesLocale = "en"
        var maxResults = -1
        var scoreThreshold: Float = 0
        var categoryAllowlist: [String] = []
        var categoryDenylist: [String] = []
    }

    var values = Values()

    public var baseOptions: BaseOptions {
        get { values.baseOptions } set { values.baseOptions = newValue }
    }
    public var runningMode: RunningMode {
        get { values.runningMode } set { values.runningMode = newValue }
    }
    /// The locale of the display names to use, from the model metadata's label files ("en" by default).
    public var displayNamesLocale: String {
        get { values.displayNamesLocale } set { values.displayNamesLocale = newValue }
    }
    /// The most detections to return, best first; negative for all of them (0 is an error).
    public var maxResults: Int {
        get { values.maxResults } set { values.maxResults = newValue }
    }
    /// Detections scoring below this are not returned (MediaPipe's iOS API always applies it; default 0).
    public var scoreThreshold: Float {
        get { values.scoreThreshold } set { values.scoreThreshold = newValue }
    }
    /// Only these category names (the first label carrying each; unknown names are ignored, and if none is known
    /// every detection stays, as in MediaPipe). Exclusive with the denylist.
    public var categoryAllowlist: [String] {
        get { values.categoryAllowlist } set { values.categoryAllowlist = newValue }
    }
    /// Category names never returned. Exclusive with the allowlist.
    public var categoryDenylist: [String] {
        get { values.categoryDenylist } set { values.categoryDenylist = newValue }
    }
    /// Receives live-stream results; required in `.liveStream` mode. Held weakly.
    public weak var objectDetectorLiveStreamDelegate: (any ObjectDetectorLiveStreamDelegate)?

    public init() {}

    /// A copy with the same options and delegate.
    public func copy() -> ObjectDetectorOptions {
        let copy = ObjectDetectorOptions()
        copy.values = values
        copy.objectDetectorLiveStreamDelegate = objectDetectorLiveStreamDelegate
        return copy
    }

    func validate() throws(VisionTaskError) {
        try baseOptions.validate()
        try OptionCheck.categoryLists(allowlist: categoryAllowlist, denylist: categoryDenylist, maxResults: maxResults,
                                      scoreThreshold: scoreThreshold)
        try OptionCheck.liveStreamDelegate(isSet: objectDetectorLiveStreamDelegate != nil, runningMode: runningMode,
                                           "objectDetectorLiveStreamDelegate")
    }
}

/// Receives an ``ObjectDetector``'s live-stream results, in timestamp order, one at a time, on the detector's serial
/// delivery queue.
public protocol ObjectDetectorLiveStreamDelegate: AnyObject {
    func objectDetector(_ objectDetector: ObjectDetector, didFinishDetection result: ObjectDetectorResult?,
                        timestampInMilliseconds: Int, error: (any Error)?)
    /// A frame passed to `detectAsync` while the previous one was still being processed was dropped. Optional.
    func objectDetector(_ objectDetector: ObjectDetector, didDropFrameAtTimestampInMilliseconds timestamp: Int)
}

extension ObjectDetectorLiveStreamDelegate {
    /// By default a dropped frame is ignored, as MediaPipe does.
    public func objectDetector(_ objectDetector: ObjectDetector, didDropFrameAtTimestampInMilliseconds timestamp: Int) {}
}

/// The objects found, best first: a pixel box and one category each (index −1 and the label as its name when the
/// model's metadata labels the class, as MediaPipe reports them).
public struct ObjectDetectorResult: Sendable, Equatable {
    public var detections: [Detection]
    public var timestampInMilliseconds: Int

    public init(detections: [Detection], timestampInMilliseconds: Int) {
        self.detections = detections
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
