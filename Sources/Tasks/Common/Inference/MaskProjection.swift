import Foundation
import VisionTasksImaging

/// Puts a model's segmentation logits back on the image: sigmoid, then each image pixel samples the mask where the
/// model saw it (bilinear, zero outside the crop) — MediaPipe's TensorsToSegmentation + inverse WarpAffine.
enum MaskProjection {
    static func project(logits: [Float], maskWidth: Int, maskHeight: Int, transform: TensorToImageTransform,
                        imageWidth: Int, imageHeight: Int) -> Mask {
        var probabilities = [Float](repeating: 0, count: maskWidth * maskHeight)
        for i in 0..<min(probabilities.count, logits.count) { probabilities[i] = 1 / (1 + expf(-logits[i])) }
        var output = [Float](repeating: 0, count: imageWidth * imageHeight)
        probabilities.withUnsafeBufferPointer { mask in
            for y in 0..<imageHeight {
                for x in 0..<imageWidth {
                    let t = transform.tensorPoint(imageX: Double(x) + 0.5, imageY: Double(y) + 0.5)
                    let u = Float(t.x) * Float(maskWidth) - 0.5, v = Float(t.y) * Float(maskHeight) - 0.5
                    let u0 = Int(u.rounded(.down)), v0 = Int(v.rounded(.down))
                    let fu = u - Float(u0), fv = v - Float(v0)
                    func at(_ c: Int, _ r: Int) -> Float {
                        c >= 0 && c < maskWidth && r >= 0 && r < maskHeight ? mask[r * maskWidth + c] : 0
                    }
                    output[y * imageWidth + x] = at(u0, v0) * (1 - fu) * (1 - fv) + at(u0 + 1, v0) * fu * (1 - fv)
                        + at(u0, v0 + 1) * (1 - fu) * fv + at(u0 + 1, v0 + 1) * fu * fv
                }
            }
        }
        return Mask(width: imageWidth, height: imageHeight, float32Data: output)
    }
}
