/// How a detector is used (ML Kit's `ObjectDetectorMode`): a live stream, where objects keep tracking IDs from frame
/// to frame, or unrelated single images.
public enum ObjectDetectorMode: Sendable {
    case stream
    case singleImage
}
