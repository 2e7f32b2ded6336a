/// An SSD detector model run on a whole image as MediaPipe's detector graphs run it (pose, face and palm detectors):
/// the image letterboxed into the model's input with a zero border, boxes and keypoints decoded against the anchors,
/// weighted non-maximum suppression, then back into the image (``BackProjection``).
final class SSDDetector {
    let runner: TensorRunner
    let input: ImageInput
    let decoder: DetectionDecoder
    /// IoU above which detections are merged.
    let suppressionThreshold: Float
    /// Decoding, suppression and letterbox removal so far, in milliseconds.
    private(set) var postprocessing: Double = 0

    /// - Parameters:
    ///   - anchors: the layout MediaPipe's graph generates for this model (`SsdAnchorsCalculator` options).
    ///   - coordinateCount: values per anchor in the regressor output: box (4) then keypoints (2 each).
    init(runner: TensorRunner, defaultRange: ClosedRange<Float>, anchors: SSDAnchorOptions, coordinateCount: Int,
         keypointCount: Int, minimumScore: Float, suppressionThreshold: Float) throws(VisionTaskError) {
        self.runner = runner
        input = try ImageInput(runner, defaultRange: defaultRange)
        let layout = anchors
        let anchors = SSDAnchors.generate(layout)
        let outputs = runner.interpreter.outputs
        guard input.width == layout.inputWidth, input.height == layout.inputHeight, outputs.count >= 2,
              outputs[0].elementCount == anchors.count * coordinateCount, outputs[1].elementCount == anchors.count else {
            throw .wrongModel("\(runner.member) is not the expected detector (\(layout.inputWidth) × \(layout.inputHeight) input, \(anchors.count) anchors × \(coordinateCount) values)")
        }
        decoder = DetectionDecoder(anchors: anchors, coordinateCount: coordinateCount, keypointCount: keypointCount,
                                   keypointOffset: 4, scale: SIMD4(Float(input.width), Float(input.height), Float(input.width), Float(input.height)),
                                   scoreClipping: 100, minimumScore: minimumScore)
        self.suppressionThreshold = suppressionThreshold
    }

    /// How detections go from the model's letterboxed input back to the image.
    enum BackProjection {
        /// Through the sampled region's matrix, letterbox and rotation together: MediaPipe's face and hand
        /// detector graphs (`DetectionProjectionCalculator`).
        case region
        /// The letterbox removed and nothing else, as MediaPipe's pose detector graph does
        /// (`DetectionLetterboxRemovalCalculator`): right for an upright picture only, which is all the pose pipeline
        /// gives it (it turns a turned buffer upright first); a turned one goes through the region regardless.
        case letterbox
    }

    /// Detections in normalized coordinates of the image (the buffer as stored), best first. The model sees the
    /// whole image turned upright by its orientation (``NormalizedRect/whole(of:)``), or `region` of it (MediaPipe's
    /// detector graphs' optional `NORM_RECT` input: the holistic landmarker looks for the face where the pose put
    /// it); detections in a region always come back through it (``BackProjection/region``).
    func detect(_ image: MPImage, region: NormalizedRect? = nil, backProjection: BackProjection) throws(VisionTaskError) -> [RawDetection] {
        let whole = region ?? NormalizedRect.whole(of: image)
        let transform = try input.run(image, region: whole.region(imageWidth: image.width, imageHeight: image.height),
                                      keepAspectRatio: true, border: .zero)
        let start = now()
        defer { postprocessing += Double(now() - start) / 1e6 }
        let kept = NonMaxSuppression.weighted(decoder.decode(boxes: try runner.output(0), scores: try runner.output(1)),
                                              threshold: suppressionThreshold)
        // A turned picture always goes through the region: letterbox removal alone would leave it turned.
        if backProjection == .region || whole.rotation != 0 || region != nil {
            let projection = DetectionProjection(region: transform.region, imageWidth: image.width, imageHeight: image.height)
            return kept.map(projection.detection)
        }
        let p = transform.padding
        let left = Float(p.left), top = Float(p.top)
        let width = 1 - Float(p.left + p.right), height = 1 - Float(p.top + p.bottom)
        return kept.map { d in
            var d = d
            d.xMin = (d.xMin - left) / width
            d.yMin = (d.yMin - top) / height
            d.width /= width
            d.height /= height
            d.keypoints = d.keypoints.map { SIMD2(($0.x - left) / width, ($0.y - top) / height) }
            return d
        }
    }

    /// Pre-processing, inference and post-processing time so far.
    var timings: StageTimings {
        var t = runner.timings
        t.postprocessing = postprocessing
        return t
    }
}
