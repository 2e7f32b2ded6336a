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
