import Foundation
import VisionTasksModelFormat

/// MediaPipe's ImageSegmenterGraph over one segmentation model, shared by the Image and Interactive Segmenters: the
/// model's input made as the graph makes it, the model run, and the masks made at the image's size
/// (``SegmentationOutput``).
///
/// Three-channel models take the image as every task does (ImageToTensorCalculator: the whole image, turned by its
/// orientation, stretched to the input with a replicated border). The masks are then resized to the buffer's own
/// width and height, *not* turned back: for a quarter-turned image MediaPipe gives the upright segmentation squeezed
/// into the buffer's size, and so do we (MediaPipe's masks are the truth here, `ImageSegmenterGraph` never undoes the
/// rotation). Four-channel models take ``FourChannelInput``: the buffer as stored, whatever its orientation.
final class SegmenterModel {
    /// What a four-channel model's fourth channel holds.
    enum FourthChannel {
        /// Zeros: the hair model's previous-frame mask, which MediaPipe always clears.
        case zero
        /// The image's alpha (255 where the image has none).
        case imageAlpha
    }

    enum Input {
        case image(ImageInput)
        case fourChannels(width: Int, height: Int, range: (lower: Float, upper: Float))
    }

    let runner: TensorRunner
    let input: Input
    /// The output the masks come from (the last), and the quality scores' (the first, when the model has two).
    let maskOutput: Int
    let qualityOutput: Int?
    let width: Int
    let height: Int
    let channels: Int
    let activation: SegmenterActivation
    /// The output's labels from the metadata (empty when it has none), one per channel.
    let labels: [String]
    /// MediaPipe's hair model: labels `background, hair` (the graph's own test for it).
    var isHairModel: Bool { labels.count == 2 && labels[1] == "hair" }
    /// Megabyte buffers kept from frame to frame (the task runs one frame at a time): allocated afresh each frame
    /// they were each a new mapping from the C allocator, and touching them cost a page fault per 4 KiB — about half
    /// of the interactive segmenter's 9 ms a frame outside its model (perf, on a Zen 4 host).
    private var rgba: [UInt8] = [], resized: [UInt8] = [], values: [Float] = [], planar: [Float] = []
    private let postprocessingThreads: Int

    init(bundle: TaskBundle, threads: Int?, displayNamesLocale: String, task: String) throws(VisionTaskError) {
        guard bundle.members.count == 1, let member = bundle.members.first?.path else {
            throw .wrongModel("\(task) takes one .tflite segmentation model; this bundle holds \(bundle.memberPaths)")
        }
        let runner = try TensorRunner(bundle: bundle, member: member, threads: threads)
        self.runner = runner
        // The masks' activation and resizing on two threads at most, as the pose landmarker's mask (MaskProjection):
        // a mask is a few milliseconds of memory-bound work, which a third thread barely shortens.
        postprocessingThreads = max(1, min(2, threads ?? ProcessInfo.processInfo.activeProcessorCount))
        guard let tensor = runner.interpreter.inputs.first, tensor.shape.count == 4, tensor.shape[0] == 1,
              tensor.shape[1] > 0, tensor.shape[2] > 0, tensor.shape[3] == 3 || tensor.shape[3] == 4 else {
            throw .wrongModel("\(member) is not a segmentation model: its input is not one image of 3 or 4 channels")
        }
        if tensor.shape[3] == 3 {
            input = .image(try ImageInput(runner, defaultRange: 0...1, acceptsBytes: true))
        } else {
            guard tensor.type == .float32,
                  let normalization = runner.metadata?.subgraphs.first?.inputTensors.first?.normalization,
                  let mean = normalization.mean.first, let std = normalization.std.first, std != 0 else {
                throw .wrongModel("\(member) takes four channels but not as float32 with normalization metadata, which MediaPipe's segmenter needs")
            }
            input = .fourChannels(width: tensor.shape[2], height: tensor.shape[1], range: ((0 - mean) / std, (255 - mean) / std))
        }
        let outputs = runner.interpreter.outputs
        guard (1...2).contains(outputs.count), let last = outputs.last, [.float32, .uint8, .int8].contains(last.type) else {
            throw .wrongModel("\(member) is not a segmentation model: it has \(outputs.count) outputs")
        }
        let shape = last.shape
        // MediaPipe's image-like tensor: [1, height, width, channels] or [height, width, channels].
        let dims: ArraySlice<Int> = shape.count == 4 && shape[0] == 1 ? shape.dropFirst() : shape.count == 3 ? shape[...] : []
        guard dims.count == 3, dims.allSatisfy({ $0 > 0 }), dims[dims.startIndex] > 1, dims[dims.startIndex + 1] > 1,
              dims[dims.startIndex + 2] <= 255 else {
            throw .wrongModel("\(member) is not a segmentation model: its output \(shape) is not a mask of up to 255 channels")
        }
        (height, width, channels) = (dims[dims.startIndex], dims[dims.startIndex + 1], dims[dims.startIndex + 2])
        maskOutput = outputs.count - 1
        qualityOutput = outputs.count == 2 ? 0 : nil
        // The activation from the model's `SEGMENTER_METADATA`; none without it, as MediaPipe defaults.
        var activation = SegmenterActivation.none
        if let custom = runner.metadata?.subgraphs.first?.customMetadata.first(where: { $0.name == CustomMetadata.segmenterName }) {
            let found: SegmenterActivation?
            do { found = try custom.segmenterActivation() } catch { throw .model(error) }
            guard let found else { throw .wrongModel("\(member): its segmenter metadata names an activation MediaPipe does not know") }
            activation = found
        }
        if activation == .softmax, channels < 2 {
            throw .wrongModel("\(member): softmax over one channel (MediaPipe requires channels > 1 for it)")
        }
        self.activation = activation
        // Labels as MediaPipe's GetLabelItemsIfAny reads them: the last output's first axis-label file.
        let files = runner.metadata?.subgraphs.first?.outputTensors.last?.associatedFiles
        let model: TFLiteModel
        do { model = try bundle.model(member) } catch { throw .model(error) }
        let labels = try ImageClassifierPipeline.labels(model, files, kind: .tensorAxisLabels, locale: nil) ?? []
        if !displayNamesLocale.isEmpty {
            // Read only to refuse a broken display-name file as MediaPipe does; masks carry no names.
            _ = try ImageClassifierPipeline.labels(model, files, kind: .tensorAxisLabels, locale: displayNamesLocale)
        }
        self.labels = labels
    }

    /// The region's angle as MediaPipe's Python API makes it from `rotation_degrees` d (the truth our masks are held
    /// to): −d·π/180 stored as a float, then OpenCV's `RotatedRect` angle `rotation · 180 / π` — −90° for d = 90 where
    /// our orientations say +270°. The same turn, but on a whole-image region OpenCV's corners then differ by ~1e-14 and
    /// the warp's half-way 1/32-pixel positions round the other way: up to 6 levels in the model's input and 0.16 in
    /// a selfie mask (pose4.jpg turned, against 0.011 between MediaPipe 0.10.14 and 1.2.3).
    static func pythonRotationDegrees(_ orientation: ImageOrientation) -> Double {
        let degrees = 360 - orientation.regionRotationDegrees
        let radians = Float(-degrees * Double.pi / 180)
        return Double(Float(Double(radians * 180) / Double.pi))
    }

    /// Runs the model on `image` and makes the masks asked for, at the buffer's size. `alpha`, for a four-channel
    /// model, gives its fourth channel (`width × height` bytes of the buffer); nil takes ``fourthChannel``'s.
    func segment(_ image: MPImage, confidenceMasks: Bool, categoryMask: Bool, alpha: [UInt8]? = nil,
                 fourthChannel: FourthChannel, timestamp: Int) throws(VisionTaskError) -> ImageSegmenterResult {
        switch input {
        case let .image(input):
            let rect = NormalizedRect.region(of: image, regionOfInterest: nil)
            var region = rect.region(imageWidth: image.width, imageHeight: image.height)
            if image.orientation.regionRotationDegrees != 0 {
                region.rotationDegrees = Self.pythonRotationDegrees(image.orientation)
            }
            _ = try input.run(image, region: region, keepAspectRatio: false, border: .replicate)
        case let .fourChannels(tensorWidth, tensorHeight, range):
            try runner.withInputFloats(0) { tensor in
                image.rgbaPixels(into: &rgba)
                rgba.withUnsafeMutableBufferPointer { rgba in
                    if let alpha {
                        for i in 0..<min(alpha.count, rgba.count / 4) { rgba[4 * i + 3] = alpha[i] }
                    } else if fourthChannel == .zero {
                        for i in stride(from: 3, to: rgba.count, by: 4) { rgba[i] = 0 }
                    }
                }
                FourChannelInput.write(rgba: rgba, width: image.width, height: image.height, into: tensor,
                                       tensorWidth: tensorWidth, tensorHeight: tensorHeight, range: range, resized: &resized)
            }
            runner.invoke()
        }
        let start = now()
        defer { runner.timings.postprocessing += Double(now() - start) / 1e6 }
        try runner.dequantizedOutput(maskOutput, into: &values)
        let output = SegmentationOutput(values: values, width: width, height: height, channels: channels, activation: activation)
        let quality = try qualityOutput.map { (index) throws(VisionTaskError) in try runner.dequantizedOutput(index) }
            ?? [Float](repeating: 1, count: channels)
        return ImageSegmenterResult(
            confidenceMasks: confidenceMasks ? output.confidenceMasks(outputWidth: image.width, outputHeight: image.height, planar: &planar,
                                                                    parts: postprocessingThreads) : nil,
            categoryMask: categoryMask ? output.categoryMask(outputWidth: image.width, outputHeight: image.height) : nil,
            qualityScores: quality, timestampInMilliseconds: timestamp)
    }
}
