/// MediaPipe's `SegmentationSmoothingCalculator` on the CPU: each pixel of this frame's mask moves towards the last
/// frame's by `ratio` times its uncertainty (a polynomial in the distance of the probability from 0.5, the
/// calculator's approximation of the squared binary entropy). The holistic landmarker smooths its pose mask so (0.7).
/// Masks of different sizes (frames of different sizes) are not blended: the current one passes through, where
/// MediaPipe fails the frame (1.2.3 does so even in image mode, on a second image of another size).
enum MaskSmoothing {
    static func blend(current: Mask, previous: Mask, ratio: Float) -> Mask {
        guard current.width == previous.width, current.height == previous.height else { return current }
        let now = current.float32Values, before = previous.float32Values
        return Mask(width: current.width, height: current.height) { (output: UnsafeMutableBufferPointer<Float>) in
            for i in 0..<min(output.count, now.count, before.count) {
                let value = now[i], t = value - 0.5, x = t * t
                let polynomial = x * (5.68842 + x * (-0.748699 + x * (-57.8051 + x * (291.309 + x * -624.717))))
                let uncertainty = 1 - min(1, polynomial)
                output[i] = value + (before[i] - value) * (uncertainty * ratio)
            }
        }
    }
}
