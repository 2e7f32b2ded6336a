import VisionTasksModelFormat

/// The Image Classifier's work per image, as MediaPipe's ImageClassifierGraph does it: the whole image (turned as its
/// orientation says) stretched to the model's input with bilinear sampling and a replicated border — uint8 models take
/// the 8-bit pixels as they are, float ones the range their metadata's normalization gives — the model run, each
/// output head dequantized and its categories chosen (``CategorySelection``). No softmax: the scores are the model's.
final class ImageClassifierPipeline: TaskPipeline {
    typealias Options = ImageClassifierOptions
    struct Head {
        let name: String?
        let selection: CategorySelection
        /// The classifier's own score threshold from its metadata (ScoreThresholdingOptions), if any.
        let metadataThreshold: Float?
    }

    let runner: TensorRunner
    let input: ImageInput
    let heads: [Head]

    init(bundle: TaskBundle, options: TaskSettings<ClassificationTaskOptions.Values>) throws(VisionTaskError) {
        runner = try TensorRunner.singleModel(bundle, threads: options.baseOptions.numThreads, task: "an image classifier")
        let member = runner.member, metadata = runner.metadata
        input = try ImageInput(metadataNormalizedPixelsOf: runner)
        let model: TFLiteModel
        do { model = try bundle.model(member) } catch { throw .model(error) }
        var heads: [Head] = []
        for (index, output) in runner.interpreter.outputs.enumerated() {
            // One score vector per head ([1, N] or [N]): a detector's box or count outputs are not class scores.
            guard [.float32, .uint8, .int8].contains(output.type), let classes = output.shape.last, classes > 0,
                  output.elementCount == classes else {
                throw .wrongModel("\(member): output \(index) (\(output.type.name) \(output.shape)) is not one vector of class scores")
            }
            let tensor = metadata?.subgraphs.first?.outputTensors.dropFirst(index).first
            let labels = try Self.labels(model, tensor?.associatedFiles, kind: .tensorAxisLabels, locale: nil)
                ?? (index == 0 ? options.labelsForModelsWithout : nil)
            let displayNames = try Self.labels(model, tensor?.associatedFiles, kind: .tensorAxisLabels, locale: options.displayNamesLocale)
            if let labels, labels.count != output.elementCount {
                throw .wrongModel("\(member): output \(index) has \(output.elementCount) scores but \(labels.count) labels")
            }
            heads.append(Head(name: tensor?.name, selection: try CategorySelection(
                labels: labels, displayNames: displayNames, allowlist: options.categoryAllowlist, denylist: options.categoryDenylist,
                scoreThreshold: options.scoreThreshold, metadataThreshold: tensor?.scoreThreshold,
                maxResults: options.maxResults), metadataThreshold: tensor?.scoreThreshold))
        }
        self.heads = heads
    }

    /// The first label file of `kind` (any locale), or with `locale` the one of that locale — MediaPipe's labels and
    /// display names; nil when there is none.
    static func labels(_ model: TFLiteModel, _ files: [AssociatedFile]?, kind: AssociatedFile.Kind, locale: String?) throws(VisionTaskError) -> [String]? {
        guard let file = files?.first(where: { $0.kind == kind && (locale == nil || $0.locale == locale) }) else { return nil }
        do { return try model.labels(named: file.name) } catch { throw .model(error) }
    }

    /// Nothing is carried from frame to frame.
    func resetVideoState() {}

    var stageTimings: [NamedStageTimings] { [NamedStageTimings("classifier", runner.timings)] }

    func process(_ image: MPImage, timestampMilliseconds: Int?) throws(VisionTaskError) -> ImageClassifierResult {
        try input.runOnRegionOfInterest(image)
        let start = now()
        defer { runner.timings.postprocessing += Double(now() - start) / 1e6 }
        var classifications: [Classifications] = []
        for (index, head) in heads.enumerated() {
            classifications.append(Classifications(headIndex: index, headName: head.name ?? "",
                                                   categories: head.selection.categories(try runner.dequantizedOutput(index))))
        }
        let timestamp = timestampMilliseconds ?? 0
        return ImageClassifierResult(classificationResult: ClassificationResult(classifications: classifications, timestampInMilliseconds: timestamp),
                                     timestampInMilliseconds: timestamp)
    }
}
