/// How a task is fed: single images, frames of a video (with timestamps), or a live stream whose results arrive
/// on a delegate. MediaPipe's `MPPRunningMode` (`RunningMode` in Swift), with its raw values: image 0, video 1, live
/// stream 2 (`RunningMode(rawValue: 1)` is `.video`).
public enum RunningMode: UInt, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    case image = 0
    case video = 1
    case liveStream = 2

    public var description: String {
        switch self {
        case .image: return "image"
        case .video: return "video"
        case .liveStream: return "live stream"
        }
    }
}
