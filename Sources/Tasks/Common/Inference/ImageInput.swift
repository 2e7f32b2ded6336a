import VisionTasksModelFormat

/// A model's image input: its size, and the value range its metadata asks for. Samples a region of an ``MPImage``
/// straight into the model's input tensor (MediaPipe's ImageToTensorCalculator).
struct ImageInput {
    let runner: TensorRunner
    let width: Int
    let height: Int
    let range: ClosedRange<Float>
    /// The model takes 8-bit pixels (a uint8 input): they go in as sampled, its metadata's normalization unused, as
    /// MediaPipe's ImageToTensorCalculator does for such models.
    let takesBytes: Bool

    /// - Parameters:
    ///   - defaultRange: used when the model carries no normalization metadata (MediaPipe's legacy graphs' value for
    ///     that model).
    ///   - acceptsBytes: whether a uint8 input is allowed (the object detector and image classifier take them).
    init(_ runner: TensorRunner, defaultRange: ClosedRange<Float>, acceptsBytes: Bool = false) throws(VisionTaskError) {
        guard let input = runner.interpreter.inputs.first, input.shape.count == 4, input.shape[0] == 1, input.shape[3] == 3,
              input.type == .float32 || (acceptsBytes && input.type == .uint8) else {
            throw .wrongModel("\(runner.member) does not take one \(acceptsBytes ? "float32 or uint8" : "float32") RGB image")
        }
        takesBytes = input.type == .uint8
        self.runner = runner
        height = input.shape[1]
        width = input.shape[2]
        var range = defaultRange
        if let normalization = runner.metadata?.subgraphs.first?.inputTensors.first?.normalization,
           let mean = normalization.mean.first, let std = normalization.std.first, std != 0 {
            range = ImageToTensorOptions.range(mean: mean, std: std)
        }
        self.range = range
    }

    /// Samples `region` of `image` into the model's input and runs the model.
    /// The image's region of interest (the whole image when it has none), turned by its orientation and stretched to
    /// the input with a replicated border: MediaPipe's classifier and embedder preprocessing.
    func runOnRegionOfInterest(_ image: MPImage) throws(VisionTaskError) {
        let rect = NormalizedRect.region(of: image, regionOfInterest: image.regionOfInterest)
        _ = try run(image, region: rect.region(imageWidth: image.width, imageHeight: image.height), keepAspectRatio: false, border: .replicate)
    }

    func run(_ image: MPImage, region: RegionOfInterest, keepAspectRatio: Bool,
             border: ImageToTensorOptions.Border) throws(VisionTaskError) -> TensorToImageTransform {
        let options = ImageToTensorOptions(width: width, height: height, keepAspectRatio: keepAspectRatio, border: border, range: range,
                                           maximumThreads: runner.threads)
        let transform: TensorToImageTransform
        if takesBytes {
            transform = try runner.withInputBytes(0) { buffer in
                try ImageToTensor.write(image, region: region, options: options, into: buffer)
            }
        } else {
            transform = try runner.withInputFloats(0) { buffer in
                try ImageToTensor.write(image, region: region, options: options, into: buffer)
            }
        }
        runner.invoke()
        return transform
    }
}

extension TensorRunner {
    /// The one model of a task that takes a single `.tflite` (the image classifier, the image embedder, the object
    /// detector), from `bundle`; `task` names the task in the error for a bundle of several members.
    static func singleModel(_ bundle: TaskBundle, threads: Int?, task: String) throws(VisionTaskError) -> TensorRunner {
        guard bundle.members.count == 1, let member = bundle.members.first?.path else {
            throw .wrongModel("\(task) is one .tflite model; this bundle holds \(bundle.memberPaths)")
        }
        return try TensorRunner(bundle: bundle, member: member, threads: threads)
    }
}

extension ImageInput {
    /// A whole-image model's input as MediaPipe's classification, embedding and detection graphs take it: uint8
    /// pixels as they are, or float32 through the metadata's normalization, which such a model must then carry.
    init(metadataNormalizedPixelsOf runner: TensorRunner) throws(VisionTaskError) {
        if runner.interpreter.inputs.first?.type == .float32,
           runner.metadata?.subgraphs.first?.inputTensors.first?.normalization == nil {
            throw .wrongModel("\(runner.member) takes float32 pixels but its metadata gives no normalization to make them with")
        }
        try self.init(runner, defaultRange: 0...1, acceptsBytes: true)
    }
}
