/// The smoothing of MediaPipe's pose landmarker for a single tracked pose (`pose_landmarks_detector_graph.cc`, in
/// video and live-stream modes with numPoses 1): visibility through a low-pass filter (α 0.1) on both landmark
/// sets, image landmarks through 1€ filters (min cutoff 0.05, β 80, derivative cutoff 1) whose speed is measured in
/// sizes of the region derived for the next frame, world landmarks through 1€ filters (0.1, 40, 1) in metres
/// (`disable_value_scaling`). Auxiliary landmarks, the next frame's region, presence and masks stay unsmoothed.
struct PoseSmoothing: Sendable {
    private var image = LandmarksSmoother(
        .init(minCutoff: 0.05, beta: 80, derivativeCutoff: 1, valueScale: .region), visibilityAlpha: 0.1)
    private var world = LandmarksSmoother(
        .init(minCutoff: 0.1, beta: 40, derivativeCutoff: 1, valueScale: .none), visibilityAlpha: 0.1)

    mutating func apply(_ pose: PoseEstimate, imageWidth: Int, imageHeight: Int, timestampMilliseconds: Int) -> PoseEstimate {
        var pose = pose
        pose.landmarks = image.smooth(pose.landmarks, region: pose.nextRect, imageWidth: imageWidth, imageHeight: imageHeight,
                                      timestampMilliseconds: timestampMilliseconds)
        pose.world = world.smooth(pose.world, timestampMilliseconds: timestampMilliseconds)
        return pose
    }

    /// A frame without a pose. Only the image landmarks' 1€ filters start over: in MediaPipe's graph they alone also
    /// receive the image size, so they alone run (and reset) on a frame without landmarks.
    mutating func noPose() {
        image.resetCoordinates()
    }
}
