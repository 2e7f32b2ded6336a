/// Smoothing of one tracked hand, for `.always` (MediaPipe smooths no hand, so there are no constants of its own):
/// the filters MediaPipe gives faces and poses — image landmarks through 1€ filters (min cutoff 0.05, β 80,
/// derivative cutoff 1) with the speed in sizes of the hand's landmark extent, world landmarks through 1€ filters
/// (0.1, 40, 1) in metres, as the pose's world landmarks.
struct HandSmoothing: Sendable {
    private var image = LandmarksSmoother(.init(minCutoff: 0.05, beta: 80, derivativeCutoff: 1, valueScale: .landmarkExtent),
                                          visibilityAlpha: nil)
    private var world = LandmarksSmoother(.init(minCutoff: 0.1, beta: 40, derivativeCutoff: 1, valueScale: .none), visibilityAlpha: nil)

    mutating func apply(_ hand: HandEstimate, imageWidth: Int, imageHeight: Int, timestampMilliseconds: Int) -> HandEstimate {
        var hand = hand
        hand.landmarks = image.smooth(hand.landmarks, region: nil, imageWidth: imageWidth, imageHeight: imageHeight,
                                      timestampMilliseconds: timestampMilliseconds)
        hand.world = world.smooth(hand.world, timestampMilliseconds: timestampMilliseconds)
        return hand
    }

    mutating func reset() {
        image.resetCoordinates()
        world.resetCoordinates()
    }
}
