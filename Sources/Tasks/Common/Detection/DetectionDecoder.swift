import Foundation

/// Box and keypoint decoding of SSD regressors (MediaPipe's `TensorsToDetectionsCalculator`, CPU path, XYWH).
struct DetectionDecoder {
    var anchors: [Anchor]
    var coordinateCount: Int
    var keypointCount: Int
    var keypointOffset: Int
    var scale: SIMD4<Float>  // x, y, w, h
    var scoreClipping: Float?
    var minimumScore: Float

    func decode(boxes raw: [Float], scores: [Float]) -> [RawDetection] {
        var detections: [RawDetection] = []
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
            detections.append(RawDetection(score: score, xMin: xMin, yMin: yMin, width: xMax - xMin, height: yMax - yMin, keypoints: keypoints))
        }
        return detections
    }
}
