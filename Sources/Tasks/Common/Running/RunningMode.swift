/// How a task is fed: single images, frames of a video (with timestamps), or a live stream whose results arrive
/// on a delegate.
public enum RunningMode: Sendable, Equatable, CustomStringConvertible {
    case image, video, liveStream

    public var description: String {
        switch self {
        case .image: return "image"
        case .video: return "video"
        case .liveStream: return "live stream"
        }
    }
}
