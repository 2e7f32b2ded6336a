/// A task whose running-mode methods MediaPipe names `detect` (the pose, face and hand landmarkers and the object
/// detector): they are written once, here. Every call is checked against the task's running mode.
public protocol Detecting: VisionTask {}

extension Detecting {
    /// Image mode: one image; nothing is kept between calls.
    public func detect(image: MPImage) throws -> Result {
        try process(image: image)
    }

    /// Video mode: one frame; timestamps must increase. Regions are tracked (and, as the task's options say,
    /// landmarks smoothed) from the previous frames.
    public func detect(videoFrame image: MPImage, timestampInMilliseconds timestamp: Int) throws -> Result {
        try process(videoFrame: image, timestampInMilliseconds: timestamp)
    }

    /// Live-stream mode: queues a frame and returns at once; its result reaches the options' live-stream delegate. One
    /// frame is processed at a time and the newest one sent meanwhile waits; one it replaces is dropped, as MediaPipe
    /// does — and, unlike MediaPipe, said so through the delegate's `…didDropFrameAtTimestampInMilliseconds:` method,
    /// so every call is answered once.
    public func detectAsync(image: MPImage, timestampInMilliseconds timestamp: Int) throws {
        try processAsync(image: image, timestampInMilliseconds: timestamp)
    }
}
