/// What every task's result has (MediaPipe's `MPPTaskResult`, `TaskResult` in Swift, the base class of its results):
/// the timestamp of the frame it belongs to — the one passed in video and live-stream modes, 0 in image mode.
public protocol TaskResult {
    var timestampInMilliseconds: Int { get }
}
