import Foundation
import VisionTasksModelFormat

/// MediaPipe's face detector graph (face_detector_graph.cc) for its two BlazeFace models, which carry no detector
/// metadata, so that the graph's "legacy model" settings apply, chosen by the input's side as it chooses them: the
/// whole image letterboxed into the input (zero border), boxes and keypoints decoded against the anchors, weighted
/// non-maximum suppression by IoU, projected back into the image and made pixel boxes. Nothing is carried from frame
/// to frame: video and live-stream results are image mode's, frame by frame, as MediaPipe's.
final class FaceDetectorPipeline: TaskPipeline {
    typealias Options = FaceDetectorOptions
    let detector: SSDDetector

    /// The short-range model's input side and anchors (`kShortRangeImageSize`): four layers, two anchors a position.
    static let shortRange = SSDAnchorOptions(inputWidth: 128, inputHeight: 128, minScale: 0.1484375, maxScale: 0.75,
                                             strides: [8, 16, 16, 16], aspectRatios: [1])
    /// The full-range model's (`kLongRangeImageSize`): one layer of stride 4, one anchor a position (no interpolated
    /// scale), 48 × 48 = 2304 anchors.
    static let fullRange = SSDAnchorOptions(inputWidth: 192, inputHeight: 192, minScale: 0.1484375, maxScale: 0.75,
                                            strides: [4], aspectRatios: [1], interpolatedScaleAspectRatio: 0)

    init(bundle: TaskBundle, options: TaskSettings<FaceDetectorOptions.Values>) throws(VisionTaskError) {
        guard bundle.members.count == 1, let member = bundle.members.first?.path else {
            throw .wrongModel("a face detector is one .tflite model (face_detection_short_range.tflite or face_detection_full_range_sparse.tflite); this bundle holds \(bundle.memberPaths)")
        }
        let runner = try TensorRunner(bundle: bundle, member: member, threads: options.baseOptions.numThreads)
        let side = runner.interpreter.inputs.first.flatMap { $0.shape.count == 4 ? $0.shape[2] : nil }
        let anchors: SSDAnchorOptions
        switch side {
        case Self.shortRange.inputWidth: anchors = Self.shortRange
        case Self.fullRange.inputWidth: anchors = Self.fullRange
        default:
            throw .wrongModel("\(member) is not a BlazeFace face detector: its input is not 128 × 128 (short range) or 192 × 192 (full range)")
        }
        // Pixels in [-1, 1], as the graph's ImageToTensorCalculator makes them for these models.
        detector = try SSDDetector(runner: runner, defaultRange: -1...1, anchors: anchors, coordinateCount: 16, keypointCount: 6,
                                   minimumScore: options.minDetectionConfidence, suppressionThreshold: options.minSuppressionThreshold)
    }

    /// Nothing is carried from frame to frame.
    func resetVideoState() {}

    var stageTimings: [NamedStageTimings] { [NamedStageTimings("detector", detector.timings)] }

    func process(_ image: MPImage, timestampMilliseconds: Int?) throws(VisionTaskError) -> FaceDetectorResult {
        let detections = try detector.detect(image, backProjection: .region).map { found in
            // One class, no label map: TensorsToDetectionsCalculator's label id 0 and the score; no keypoint labels.
            Detection(categories: [Category(index: 0, score: found.score)],
                      boundingBox: PixelBoundingBox.rect(xMin: found.xMin, yMin: found.yMin, width: found.width, height: found.height,
                                                         imageWidth: image.width, imageHeight: image.height),
                      keypoints: found.keypoints.map { NormalizedKeypoint(location: CGPoint(x: CGFloat($0.x), y: CGFloat($0.y))) })
        }
        return FaceDetectorResult(detections: detections, timestampInMilliseconds: timestampMilliseconds ?? 0)
    }
}
