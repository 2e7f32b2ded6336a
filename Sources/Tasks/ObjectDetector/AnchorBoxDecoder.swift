import Foundation
import VisionTasksModelFormat

/// MediaPipe's decoding of a detector whose model ends in raw box and score tensors (EfficientDet-Lite): its
/// `TensorsToDetectionsCalculator` configured from the model's DETECTOR_METADATA, as detection_postprocessing_graph.cc
/// does it for the out-of-model NMS path — fixed anchors, boxes as (dy, dx, dh, dw) (its YXHW format, hard-coded on
/// that path), sizes through `exp` when the metadata says so, one class per box: the first highest score among the
/// allowed classes; kept when that score is not below the threshold and the box is not inverted. All in `Float`, as
/// the calculator's `float` arithmetic, without fused multiply-adds (Swift contracts none).
struct AnchorBoxDecoder: Sendable {
    /// A decoded candidate: its box relative to the model's input, class and score.
    struct Candidate: Sendable {
        var xMin: Float
        var yMin: Float
        var width: Float
        var height: Float
        var label: Int
        var score: Float
    }

    let anchors: [ObjectDetectorMetadata.Anchor]
    let decoding: ObjectDetectorMetadata.Decoding
    let classCount: Int

    /// Checks the metadata against the model's output sizes (boxes × 4 values, boxes × classes scores).
    init(_ metadata: ObjectDetectorMetadata, boxValues: Int, scoreValues: Int, member: String) throws(VisionTaskError) {
        guard let decoding = metadata.decoding else {
            throw .wrongModel("\(member): its DETECTOR_METADATA has no tensor decoding options")
        }
        let boxes = Int(decoding.boxCount), classes = Int(decoding.classCount)
        guard boxes > 0, classes > 0, metadata.anchors.count == boxes, decoding.coordinateCount == 4,
              boxes.multipliedReportingOverflow(by: 4) == (boxValues, false),
              boxes.multipliedReportingOverflow(by: classes) == (scoreValues, false) else {
            throw .wrongModel("\(member): DETECTOR_METADATA (\(decoding.boxCount) boxes, \(metadata.anchors.count) anchors, \(decoding.classCount) classes, \(decoding.coordinateCount) values a box) does not fit the outputs (\(boxValues) box values, \(scoreValues) scores)")
        }
        anchors = metadata.anchors
        self.decoding = decoding
        classCount = classes
    }

    func candidates(boxes: [Float], scores: [Float], selection: CategorySelection) -> [Candidate] {
        let d = decoding
        var found: [Candidate] = []
        for (i, anchor) in anchors.enumerated() {
            // The class: the first maximum among the allowed ones (a strict `<` from -FLT_MAX; a NaN score never wins).
            var best = -Float.greatestFiniteMagnitude, label = -1
            let row = i * classCount
            for c in 0..<classCount where selection.isAllowed(c) {
                var score = scores[row + c]
                if d.appliesSigmoidToScores { score = 1 / (1 + expf(-score)) }
                if best < score {
                    best = score
                    label = c
                }
            }
            guard label >= 0, !(best < selection.threshold) else { continue }
            let b = 4 * i
            let yCenter = boxes[b] / d.yScale * anchor.height + anchor.yCenter
            let xCenter = boxes[b + 1] / d.xScale * anchor.width + anchor.xCenter
            var h = boxes[b + 2] / d.heightScale, w = boxes[b + 3] / d.widthScale
            if d.appliesExponentialOnBoxSize {
                h = expf(h) * anchor.height
                w = expf(w) * anchor.width
            } else {
                h *= anchor.height
                w *= anchor.width
            }
            let xMin = xCenter - w / 2, yMin = yCenter - h / 2
            let width = (xCenter + w / 2) - xMin, height = (yCenter + h / 2) - yMin
            guard !(width < 0), !(height < 0), !width.isNaN, !height.isNaN else { continue }
            found.append(Candidate(xMin: xMin, yMin: yMin, width: width, height: height, label: label, score: best))
        }
        return found
    }

    /// MediaPipe's `NonMaxSuppressionCalculator` as the object detector configures it (algorithm DEFAULT, IoU): the
    /// candidates ordered by descending score with libc++'s `std::sort` (MediaPipe 1.2.3's; which tied box comes
    /// first decides which survives), each kept unless its overlap with one already kept is above `threshold`, until
    /// `maxResults` are kept (nil: all).
    static func suppressed(_ candidates: [Candidate], threshold: Float, maxResults: Int?) -> [Candidate] {
        var order = candidates.indices.map { ($0, candidates[$0].score) }
        LibcxxSort.sort(&order) { $0.1 > $1.1 }
        var kept: [Candidate] = []
        for (index, _) in order {
            if let maxResults, kept.count >= maxResults { break }
            let c = candidates[index]
            let box = (c.xMin, c.yMin, c.width, c.height)
            // The retained box first, the candidate second, as MediaPipe computes the similarity.
            if kept.contains(where: { mediaPipeIntersectionOverUnion(($0.xMin, $0.yMin, $0.width, $0.height), box) > threshold }) { continue }
            kept.append(c)
        }
        return kept
    }
}
