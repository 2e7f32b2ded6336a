import VisionTasksModelFormat

/// The Image Embedder's work per image, as MediaPipe's ImageEmbedderGraph does it: the image (or its region of
/// interest, turned as its orientation says) stretched to the model's input as the Image Classifier's is — uint8
/// models take the 8-bit pixels, float ones the range their metadata's normalization gives — the model run, each
/// output head dequantized (uint8 models) and turned into an ``Embedding`` (``EmbeddingPostprocessing``).
final class ImageEmbedderPipeline: TaskPipeline {
    typealias Options = ImageEmbedderOptions
    struct Head {
        let name: String?
    }

    let runner: TensorRunner
    let input: ImageInput
    let heads: [Head]
    let postprocessing: EmbeddingPostprocessing

    /// Refuses, as MediaPipe's embedding post-processing graph does (`ConfigureEmbeddingPostprocessingGraph`), outputs
    /// that are not float32 or uint8, a mix of the two, and output metadata that does not match the outputs; and what
    /// MediaPipe's header asks of the model that its code would run anyway: at least one output, each one non-empty
    /// vector (`[1, N]` or `[N]`), a uint8 one with its scale and zero point.
    init(bundle: TaskBundle, options: TaskSettings<ImageEmbedderOptions.Values>) throws(VisionTaskError) {
        runner = try TensorRunner.singleModel(bundle, threads: options.baseOptions.numThreads, task: "an image embedder")
        let member = runner.member, metadata = runner.metadata
        input = try ImageInput(metadataNormalizedPixelsOf: runner)
        let outputs = runner.interpreter.outputs
        guard !outputs.isEmpty else { throw .wrongModel("\(member) has no output to take an embedding from") }
        for (index, output) in outputs.enumerated() {
            guard output.type == .float32 || output.type == .uint8 else {
                throw .wrongModel("\(member): expected output tensor at index \(index) to have type UINT8 or FLOAT32, found \(output.type.name) instead")
            }
            guard let size = output.shape.last, size > 0, output.elementCount == size else {
                throw .wrongModel("\(member): output \(index) (\(output.type.name) \(output.shape)) is not one non-empty embedding vector")
            }
            if output.type == .uint8, runner.interpreter.outputQuantization(index) == nil {
                throw .wrongModel("\(member): output \(index) is uint8 without a scale and zero point")
            }
        }
        let quantizedCount = outputs.filter { $0.type == .uint8 }.count
        guard quantizedCount == 0 || quantizedCount == outputs.count else {
            throw .wrongModel("\(member): expected either all or none of the output tensors to be quantized, but found "
                              + "\(quantizedCount) quantized outputs for \(outputs.count) total outputs")
        }
        heads = try Self.heads(metadata?.subgraphs.first?.outputTensors ?? [], outputCount: outputs.count, member: member)
        postprocessing = EmbeddingPostprocessing(l2Normalize: options.l2Normalize, quantize: options.quantize)
    }

    /// The heads' names as MediaPipe's `GetHeadNames` takes them: the output tensors' names in the metadata when any
    /// has one (an unnamed one then named ""), none when no tensor is named. (Our metadata reader reads an absent name
    /// as "", so a model naming every head "" gets no names where MediaPipe would give "" each.)
    static func heads(_ tensors: [TensorMetadata], outputCount: Int, member: String) throws(VisionTaskError) -> [Head] {
        guard !tensors.isEmpty else { return Array(repeating: Head(name: nil), count: outputCount) }
        guard tensors.count == outputCount else {
            throw .wrongModel("\(member): mismatch between number of output tensors (\(outputCount)) and output tensors metadata (\(tensors.count))")
        }
        guard tensors.contains(where: { !$0.name.isEmpty }) else {
            return Array(repeating: Head(name: nil), count: outputCount)
        }
        return tensors.map { Head(name: $0.name) }
    }

    /// Nothing is carried from frame to frame.
    func resetVideoState() {}

    var stageTimings: [NamedStageTimings] { [NamedStageTimings("embedder", runner.timings)] }

    func process(_ image: MPImage, timestampMilliseconds: Int?) throws(VisionTaskError) -> ImageEmbedderResult {
        try input.runOnRegionOfInterest(image)
        let start = now()
        defer { runner.timings.postprocessing += Double(now() - start) / 1e6 }
        var embeddings: [Embedding] = []
        for (index, head) in heads.enumerated() {
            embeddings.append(postprocessing.embedding(try runner.dequantizedOutput(index), headIndex: index, headName: head.name))
        }
        let timestamp = timestampMilliseconds ?? 0
        return ImageEmbedderResult(embeddingResult: EmbeddingResult(embeddings: embeddings, timestampInMilliseconds: timestamp),
                                   timestampInMilliseconds: timestamp)
    }
}
