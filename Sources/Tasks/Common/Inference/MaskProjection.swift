import Foundation
import VisionTasksImaging

/// Puts a model's segmentation logits back on the image: sigmoid, then each image pixel samples the mask where the
/// model saw it (bilinear, zero outside the crop) — MediaPipe's TensorsToSegmentation + inverse WarpAffine.
enum MaskProjection {
    /// A model's segmentation output, kept to be projected later (in live stream, beside the next frame).
    struct Logits: Sendable {
        let values: [Float]
        let width: Int
        let height: Int
        let transform: TensorToImageTransform
        let imageWidth: Int
        let imageHeight: Int

        func projected(threads: Int = 1) -> Mask {
            MaskProjection.project(logits: values, maskWidth: width, maskHeight: height, transform: transform,
                                   imageWidth: imageWidth, imageHeight: imageHeight, threads: threads)
        }
    }

    /// `threads`: rows are split between that many threads (at most two).
    static func project(logits: [Float], maskWidth: Int, maskHeight: Int, transform: TensorToImageTransform,
                        imageWidth: Int, imageHeight: Int, threads: Int = 1) -> Mask {
        // The probabilities inside a border of zeros one pixel wide: a position within a pixel of the mask reads
        // its four neighbours without a bounds check (the zeros are the outside).
        let stride = maskWidth + 2
        var padded = [Float](repeating: 0, count: stride * (maskHeight + 2))
        for i in 0..<min(maskWidth * maskHeight, logits.count) {
            padded[(i / maskWidth + 1) * stride + i % maskWidth + 1] = 1 / (1 + expf(-logits[i]))
        }
        let map = transform.inverse, step = map.stepPerImageColumn
        let columns = Float(maskWidth), rows = Float(maskHeight)
        // Mask pixels per image column, in Float: over a 1280-pixel row the product is off by ~1e-4 mask pixel.
        let du = Float(step.x * Double(maskWidth)), dv = Float(step.y * Double(maskHeight))
        // Written straight into the mask's own memory (zeros at first).
        return Mask(width: imageWidth, height: imageHeight) { (output: UnsafeMutableBufferPointer<Float>) in
            padded.withUnsafeBufferPointer { mask in
                // Each row writes only its own outputs.
                let parts = max(1, min(2, threads, imageHeight))
                let shared = RowsOfOneOutput(mask: mask, output: output)
                DispatchQueue.concurrentPerform(iterations: parts) { part in
                    let (mask, output) = (shared.mask, shared.output)
                    for y in (imageHeight * part / parts)..<(imageHeight * (part + 1) / parts) {
                        // Along a row the mask position moves by a constant step: only the pixels whose position
                        // falls on the mask (or within a pixel of it) are sampled, the rest stay 0.
                        let first = map.tensorPoint(imageX: 0.5, imageY: Double(y) + 0.5)
                        let xs = Self.columns(where: first.x, moves: step.x, staysWithin: maskWidth, imageWidth: imageWidth)
                            .clamped(to: Self.columns(where: first.y, moves: step.y, staysWithin: maskHeight, imageWidth: imageWidth))
                        let u0 = Float(first.x) * columns - 0.5, v0 = Float(first.y) * rows - 0.5
                        let row = y &* imageWidth
                        for x in xs {
                            let u = u0 + Float(x) * du, v = v0 + Float(x) * dv
                            // Beyond one mask pixel outside, all four neighbours are outside: the value stays 0.
                            guard u > -1, u < columns, v > -1, v < rows else { continue }
                            let cu = u.rounded(.down), cv = v.rounded(.down)
                            let i = (Int(cv) &+ 1) &* stride &+ Int(cu) &+ 1
                            let fu = u - cu, fv = v - cv, gu = 1 - fu, gv = 1 - fv
                            let top = mask[i] * gu * gv + mask[i &+ 1] * fu * gv
                            output[row &+ x] = top + mask[i &+ stride] * gu * fv + mask[i &+ stride &+ 1] * fu * fv
                        }
                    }
                }
            }
        }
    }

    /// The image columns x (of 0..<imageWidth) where `start + x × step`, a tensor coordinate in [0, 1], lies within
    /// a mask pixel of the `size`-pixel mask — widened by two columns against rounding; the caller checks exactly.
    private static func columns(where start: Double, moves step: Double, staysWithin size: Int, imageWidth: Int) -> Range<Int> {
        let low = -1.5 / Double(size), high = 1 + 1.5 / Double(size)
        guard step != 0 else { return start > low && start < high ? 0..<imageWidth : 0..<0 }
        let a = (low - start) / step, b = (high - start) / step
        guard a.isFinite, b.isFinite else { return 0..<imageWidth }
        let from = max(0, min(Double(imageWidth), min(a, b).rounded(.down) - 2))
        let to = max(0, min(Double(imageWidth), max(a, b).rounded(.up) + 2))
        return Int(from)..<max(Int(from), Int(to))
    }
}

/// The probabilities and the output, for threads that each write their own rows of it.
private struct RowsOfOneOutput: @unchecked Sendable {
    let mask: UnsafeBufferPointer<Float>
    let output: UnsafeMutableBufferPointer<Float>
}
