import VisionTasksModelFormat

/// A landmark model run on one region of an image as MediaPipe's landmark graphs run it: the rotated region
/// stretched into the model's input (ImagePreprocessingGraph's defaults: no letterbox, a replicated border), the
/// model invoked, and the time spent decoding its outputs accounted as post-processing.
final class LandmarkModel {
    let runner: TensorRunner
    let input: ImageInput
    private var postprocessing: Double = 0

    init(bundle: TaskBundle, member: String, threads: Int?, defaultRange: ClosedRange<Float>) throws(VisionTaskError) {
        runner = try TensorRunner(bundle: bundle, member: member, threads: threads)
        input = try ImageInput(runner, defaultRange: defaultRange)
    }

    /// Runs the model on `rect` of `image`, then `decode` on its outputs (timed as post-processing).
    func run<R>(_ image: MPImage, rect: NormalizedRect,
                decode: (TensorRunner, TensorToImageTransform) throws(VisionTaskError) -> R) throws(VisionTaskError) -> R {
        let transform = try input.run(image, region: rect.region(imageWidth: image.width, imageHeight: image.height),
                                      keepAspectRatio: false, border: .replicate)
        let start = now()
        defer { postprocessing += Double(now() - start) / 1e6 }
        return try decode(runner, transform)
    }

    /// `count` points of `stride` values from output `index`, in the model's input pixels, normalized to [0, 1] of
    /// the input (TensorsToLandmarksCalculator: z on x's scale, divided by `zScale` as its `normalize_z`).
    func points(_ raw: [Float], count: Int, stride: Int, zScale: Float = 1) -> [SIMD3<Float>] {
        let width = Float(input.width), height = Float(input.height)
        return (0..<count).map { i in SIMD3(raw[stride * i] / width, raw[stride * i + 1] / height, raw[stride * i + 2] / width / zScale) }
    }

    var timings: StageTimings {
        var t = runner.timings
        t.postprocessing = postprocessing
        return t
    }
}

extension RegionFromDetection {
    /// The region for a detector's detection (its box, and its keypoints `startKeypoint` → `endKeypoint`), in
    /// normalized coordinates of the image.
    func rect(for detection: RawDetection, imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        rect(start: detection.keypoints[startKeypoint], end: detection.keypoints[endKeypoint],
             box: (detection.xMin, detection.yMin, detection.width, detection.height), imageWidth: imageWidth, imageHeight: imageHeight)
    }
}
