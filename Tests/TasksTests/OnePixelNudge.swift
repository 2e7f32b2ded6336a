import VisionTasksImaging

/// A one-pixel nudge, as MediaPipe's spread tools (tools/mediapipe_tracking_spread.py,
/// tools/mediapipe_holistic_goldens.py) nudge MediaPipe's input: the pixel's red level changed by one (its lowest bit
/// flipped) in every frame. The video reference tests run our tracking loops under the same nudges, to compare
/// distributions of trajectories rather than one.
struct OnePixelNudge {
    let row: Int
    let column: Int

    /// `image` with the pixel's red level changed, as RGB; nil nudge: the image itself.
    static func apply(_ nudge: OnePixelNudge?, to image: MPImage) throws -> MPImage {
        guard let nudge else { return image }
        var pixels = image.rgbPixels()
        pixels[(nudge.row * image.width + nudge.column) * 3] ^= 1
        return try MPImage(pixels: pixels, width: image.width, height: image.height, format: .rgb8)
    }
}
