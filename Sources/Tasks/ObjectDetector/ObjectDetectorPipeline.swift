import Foundation
import VisionTasksModelFormat

/// The Object Detector's work per image, as MediaPipe's ObjectDetectorGraph does it for a model whose last operator
/// is `TFLite_Detection_PostProcess` (its "in-model NMS" path): the whole image stretched to the model's input
/// (bilinear, replicated border; uint8 models take the pixels as they are), the model run, then the operator's
/// detections taken in its order — class allow/deny and score threshold per detection, `maxResults` counted on the
/// kept ones — projected back through the input's transform, and turned into pixel boxes by truncation (each of x,
/// y, width, height on its own, clamped to [0, size]; MediaPipe's DetectionTransformationCalculator), detections
/// with the same integer box merged. No NMS after the operator's own.
final class ObjectDetectorPipeline: TaskPipeline {
    typealias Options = ObjectDetectorOptions
    let runner: TensorRunner
    let input: ImageInput
    /// Output positions of the boxes, classes, scores and count.
    let outputs: (boxes: Int, classes: Int, scores: Int, count: Int)
    /// Box value positions of ymin, xmin, ymax, xmax (the metadata's BoundingBoxProperties).
    let boxOrder: (yMin: Int, xMin: Int, yMax: Int, xMax: Int)
    let selection: CategorySelection
    let maxResults: Int?

    init(bundle: TaskBundle, options: TaskSettings<ClassificationTaskOptions.Values>) throws(VisionTaskError) {
        guard bundle.members.count == 1, let member = bundle.members.first?.path else {
            throw .wrongModel("an object detector is one .tflite model; this bundle holds \(bundle.memberPaths)")
        }
        runner = try TensorRunner(bundle: bundle, member: member, threads: options.baseOptions.numThreads)
        guard let subgraph = runner.metadata?.subgraphs.first else {
            throw .wrongModel("\(member): object detection models need TFLite model metadata, and this one has none")
        }
        let described = runner.interpreter.outputs
        guard described.count == 4, subgraph.outputTensors.count == 4 else {
            throw .wrongModel("\(member): an object detector's model ends in TFLite_Detection_PostProcess (4 outputs); this one has \(described.count)")
        }
        guard described.allSatisfy({ $0.type == .float32 }) else {
            throw .wrongModel("\(member): the detection outputs are not float32")
        }
        if runner.interpreter.inputs.first?.type == .float32, subgraph.inputTensors.first?.normalization == nil {
            throw .wrongModel("\(member) takes float32 pixels but its metadata gives no normalization to make them with")
        }
        input = try ImageInput(runner, defaultRange: 0...1, acceptsBytes: true)
        // Outputs by their metadata names, as MediaPipe finds them; in model order when a name is missing.
        let names = subgraph.outputTensors.map(\.name)
        if let boxes = names.firstIndex(of: "location"), let classes = names.firstIndex(of: "category"),
           let scores = names.firstIndex(of: "score"), let count = names.firstIndex(of: "number of detections") {
            outputs = (boxes, classes, scores, count)
        } else {
            outputs = (0, 1, 2, 3)
        }
        if case let .boundingBox(index, _, _)? = subgraph.outputTensors[outputs.boxes].content, index.count == 4,
           Set(index) == [0, 1, 2, 3] {
            // index[k] is where coordinate k (left, top, right, bottom) sits.
            boxOrder = (Int(index[1]), Int(index[0]), Int(index[3]), Int(index[2]))
        } else {
            boxOrder = (0, 1, 2, 3)
        }
        let model: TFLiteModel
        do { model = try bundle.model(member) } catch { throw .model(error) }
        let files = subgraph.outputTensors[outputs.classes].associatedFiles
        selection = try CategorySelection(
            labels: try ImageClassifierPipeline.labels(model, files, kind: .tensorValueLabels, locale: nil),
            displayNames: try ImageClassifierPipeline.labels(model, files, kind: .tensorValueLabels, locale: options.displayNamesLocale),
            allowlist: options.categoryAllowlist, denylist: options.categoryDenylist,
            scoreThreshold: options.scoreThreshold, metadataThreshold: subgraph.outputTensors[2].scoreThreshold,
            maxResults: options.maxResults)
        maxResults = options.maxResults > 0 ? options.maxResults : nil
    }

    /// Nothing is carried from frame to frame.
    func resetVideoState() {}

    var stageTimings: [NamedStageTimings] { [NamedStageTimings("detector", runner.timings)] }

    func process(_ image: MPImage, timestampMilliseconds: Int?) throws(VisionTaskError) -> ObjectDetectorResult {
        let region = NormalizedRect.whole(of: image).region(imageWidth: image.width, imageHeight: image.height)
        _ = try input.run(image, region: region, keepAspectRatio: false, border: .replicate)
        let start = now()
        defer { runner.timings.postprocessing += Double(now() - start) / 1e6 }
        let boxes = try runner.output(outputs.boxes), classes = try runner.output(outputs.classes)
        let scores = try runner.output(outputs.scores), count = try runner.output(outputs.count)
        let projection = DetectionProjection(region: region, imageWidth: image.width, imageHeight: image.height)
        var detections: [Detection] = []
        // Keyed by the box's four numbers: Swift 6.0's Foundation on Linux has no Hashable CGRect.
        var boxesSeen: [SIMD4<Double>: Int] = [:]
        let available = min(count.first.map { $0.isFinite ? Int(max($0, 0)) : 0 } ?? 0, scores.count, classes.count, boxes.count / 4)
        for i in 0..<available {
            if let maxResults, detections.count == maxResults { break }
            let classValue = classes[i]
            guard classValue.isFinite, abs(classValue) < 1e9 else { continue }
            let label = Int(classValue)
            guard selection.isAllowed(label), !(scores[i] < selection.threshold) else { continue }
            let xMin = boxes[4 * i + boxOrder.xMin], yMin = boxes[4 * i + boxOrder.yMin]
            let width = boxes[4 * i + boxOrder.xMax] - xMin, height = boxes[4 * i + boxOrder.yMax] - yMin
            guard !(width < 0), !(height < 0), !width.isNaN, !height.isNaN else { continue }
            let projected = projection.box(xMin: xMin, yMin: yMin, width: width, height: height)
            let pixels = PixelBoundingBox.rect(xMin: projected.xMin, yMin: projected.yMin, width: projected.width,
                                               height: projected.height, imageWidth: image.width, imageHeight: image.height)
            // MediaPipe reports a labelled class with index −1 (its label id cleared once a label is found).
            var category = selection.category(label, score: scores[i])
            if category.categoryName != nil { category.index = -1 }
            let key = SIMD4<Double>(Double(pixels.origin.x), Double(pixels.origin.y), Double(pixels.size.width), Double(pixels.size.height))
            if let earlier = boxesSeen[key] {
                detections[earlier].categories.append(category)
            } else {
                boxesSeen[key] = detections.count
                detections.append(Detection(categories: [category], boundingBox: pixels))
            }
        }
        return ObjectDetectorResult(detections: detections, timestampInMilliseconds: timestampMilliseconds ?? 0)
    }
}
