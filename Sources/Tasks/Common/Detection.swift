import Foundation

/// A detection in normalized coordinates of the image it was found in: score, box and keypoints.
public struct Detection: Sendable, Equatable {
    public var score: Float
    public var xMin: Float
    public var yMin: Float
    public var width: Float
    public var height: Float
    public var keypoints: [SIMD2<Float>]
}

/// SSD anchor layout (MediaPipe's `SsdAnchorsCalculator` without multiscale generation).
struct SSDAnchorOptions {
    var inputWidth: Int
    var inputHeight: Int
    var minScale: Float
    var maxScale: Float
    var strides: [Int]
    var aspectRatios: [Float]
    var anchorOffsetX: Float = 0.5
    var anchorOffsetY: Float = 0.5
    var interpolatedScaleAspectRatio: Float = 1
    var fixedAnchorSize: Bool = true
    var reduceBoxesInLowestLayer: Bool = false
}

struct Anchor: Equatable {
    var xCenter: Float
    var yCenter: Float
    var width: Float
    var height: Float
}

enum SSDAnchors {
    static func scale(_ minScale: Float, _ maxScale: Float, _ index: Int, _ count: Int) -> Float {
        count == 1 ? (minScale + maxScale) * 0.5 : minScale + (maxScale - minScale) * Float(index) / Float(count - 1)
    }

    /// Layers with the same stride share one feature map; each map position gets one anchor per
    /// (aspect ratio, scale), plus the interpolated-scale anchor.
    static func generate(_ o: SSDAnchorOptions) -> [Anchor] {
        var anchors: [Anchor] = []
        var layer = 0
        while layer < o.strides.count {
            var heights: [Float] = [], widths: [Float] = [], ratios: [Float] = [], scales: [Float] = []
            var last = layer
            while last < o.strides.count, o.strides[last] == o.strides[layer] {
                let s = scale(o.minScale, o.maxScale, last, o.strides.count)
                if last == 0, o.reduceBoxesInLowestLayer {
                    ratios += [1, 2, 0.5]
                    scales += [0.1, s, s]
                } else {
                    for ratio in o.aspectRatios { ratios.append(ratio); scales.append(s) }
                    if o.interpolatedScaleAspectRatio > 0 {
                        let next = last == o.strides.count - 1 ? 1 : scale(o.minScale, o.maxScale, last + 1, o.strides.count)
                        scales.append((s * next).squareRoot())
                        ratios.append(o.interpolatedScaleAspectRatio)
                    }
                }
                last += 1
            }
            for (ratio, s) in zip(ratios, scales) {
                heights.append(s / ratio.squareRoot())
                widths.append(s * ratio.squareRoot())
            }
            let stride = Float(o.strides[layer])
            let mapHeight = Int((Float(o.inputHeight) / stride).rounded(.up))
            let mapWidth = Int((Float(o.inputWidth) / stride).rounded(.up))
            for y in 0..<mapHeight {
                for x in 0..<mapWidth {
                    for k in 0..<heights.count {
                        anchors.append(Anchor(
                            xCenter: (Float(x) + o.anchorOffsetX) / Float(mapWidth),
                            yCenter: (Float(y) + o.anchorOffsetY) / Float(mapHeight),
                            width: o.fixedAnchorSize ? 1 : widths[k], height: o.fixedAnchorSize ? 1 : heights[k]))
                    }
                }
            }
            layer = last
        }
        return anchors
    }
}

/// Box and keypoint decoding of SSD regressors (MediaPipe's `TensorsToDetectionsCalculator`, CPU path, XYWH).
struct DetectionDecoder {
    var anchors: [Anchor]
    var coordinateCount: Int
    var keypointCount: Int
    var keypointOffset: Int
    var scale: SIMD4<Float>  // x, y, w, h
    var scoreClipping: Float?
    var minimumScore: Float

    func decode(boxes raw: [Float], scores: [Float]) -> [Detection] {
        var detections: [Detection] = []
        for (i, anchor) in anchors.enumerated() where i < scores.count && (i + 1) * coordinateCount <= raw.count {
            var score = scores[i]
            if let clip = scoreClipping { score = min(max(score, -clip), clip) }
            score = 1 / (1 + expf(-score))
            guard score >= minimumScore else { continue }
            let o = i * coordinateCount
            let xCenter = raw[o] / scale.x * anchor.width + anchor.xCenter
            let yCenter = raw[o + 1] / scale.y * anchor.height + anchor.yCenter
            let w = raw[o + 2] / scale.z * anchor.width
            let h = raw[o + 3] / scale.w * anchor.height
            let xMin = xCenter - w / 2, yMin = yCenter - h / 2, xMax = xCenter + w / 2, yMax = yCenter + h / 2
            var keypoints: [SIMD2<Float>] = []
            for k in 0..<keypointCount {
                let ko = o + keypointOffset + 2 * k
                keypoints.append(SIMD2(raw[ko] / scale.x * anchor.width + anchor.xCenter,
                                       raw[ko + 1] / scale.y * anchor.height + anchor.yCenter))
            }
            detections.append(Detection(score: score, xMin: xMin, yMin: yMin, width: xMax - xMin, height: yMax - yMin, keypoints: keypoints))
        }
        return detections
    }
}

/// MediaPipe's weighted non-maximum suppression: each kept detection is the score-weighted average of the
/// detections overlapping the best remaining one by more than `threshold` IoU.
enum NonMaxSuppression {
    static func iou(_ a: Detection, _ b: Detection) -> Float {
        let iw = min(a.xMin + a.width, b.xMin + b.width) - max(a.xMin, b.xMin)
        let ih = min(a.yMin + a.height, b.yMin + b.height) - max(a.yMin, b.yMin)
        guard iw > 0, ih > 0 else { return 0 }
        let intersection = iw * ih
        let union = a.width * a.height + b.width * b.height - intersection
        return union > 0 ? intersection / union : 0
    }

    static func weighted(_ detections: [Detection], threshold: Float) -> [Detection] {
        // Stable sort by descending score, as std::sort over (index, score) pairs effectively is for distinct scores.
        var remaining = detections.indices.sorted { detections[$0].score > detections[$1].score }
        var output: [Detection] = []
        while let first = remaining.first {
            let best = detections[first]
            var candidates: [Int] = [], rest: [Int] = []
            for index in remaining {
                if iou(detections[index], best) > threshold { candidates.append(index) } else { rest.append(index) }
            }
            var merged = best
            if !candidates.isEmpty {
                var total: Float = 0, x0: Float = 0, y0: Float = 0, x1: Float = 0, y1: Float = 0
                var keypoints = [SIMD2<Float>](repeating: .zero, count: best.keypoints.count)
                for index in candidates {
                    let d = detections[index], s = d.score
                    total += s
                    x0 += d.xMin * s; y0 += d.yMin * s
                    x1 += (d.xMin + d.width) * s; y1 += (d.yMin + d.height) * s
                    for k in 0..<min(keypoints.count, d.keypoints.count) { keypoints[k] += d.keypoints[k] * s }
                }
                merged.xMin = x0 / total; merged.yMin = y0 / total
                merged.width = x1 / total - merged.xMin; merged.height = y1 / total - merged.yMin
                merged.keypoints = keypoints.map { $0 / total }
            }
            output.append(merged)
            if rest.count == remaining.count { break }
            remaining = rest
        }
        return output
    }
}
