import Foundation
import VisionTasksModelFormat

/// The Object Detector's work per image, as MediaPipe's ObjectDetectorGraph does it, for the two kinds of model it
/// takes: the whole image stretched to the model's input (bilinear, replicated border; uint8 models take the pixels
/// as they are), the model run, then
/// - a model whose last operator is `TFLite_Detection_PostProcess` (its "in-model NMS" path: SSD MobileNet): the
///   operator's detections taken in its order — class allow/deny and score threshold per detection, `maxResults`
///   counted on the kept ones;
/// - a model with raw box and score outputs and MediaPipe's DETECTOR_METADATA (its "out-of-model NMS" path:
///   EfficientDet-Lite, MediaPipe's default): boxes decoded against the metadata's anchors (``AnchorBoxDecoder``),
///   then MediaPipe's hard non-maximum suppression, which `maxResults` cuts;
/// and either way projected back through the input's transform and turned into pixel boxes by truncation (each of x,
/// y, width, height on its own, clamped to [0, size]; MediaPipe's DetectionTransformationCalculator), detections with
/// the same integer box merged (its DetectionsDeduplicateCalculator).
final class ObjectDetectorPipeline: TaskPipeline {
    typealias Options = ObjectDetectorOptions
    let runner: TensorRunner
    let input: ImageInput
    let postprocessing: Postprocessing
    let selection: CategorySelection
    let maxResults: Int?

    /// Which of MediaPipe's two post-processing paths the model takes.
    enum Postprocessing {
        /// `TFLite_Detection_PostProcess` in the model: the output positions of the boxes, classes, scores and count,
        /// and the box value positions of ymin, xmin, ymax, xmax (the metadata's BoundingBoxProperties).
        case inModel(outputs: (boxes: Int, classes: Int, scores: Int, count: Int), boxOrder: (yMin: Int, xMin: Int, yMax: Int, xMax: Int))
        /// Raw boxes and scores, decoded with the model's DETECTOR_METADATA.
        case anchors(AnchorBoxDecoder, boxes: Int, scores: Int)
    }

    /// The overlap above which MediaPipe's out-of-model non-maximum suppression drops a box: ObjectDetectorOptions'
    /// `min_suppression_threshold` default (object_detector.h), which its Python, C and iOS APIs do not expose.
    static let suppressionThreshold: Float = 0.3

    init(bundle: TaskBundle, options: TaskSettings<ClassificationTaskOptions.Values>) throws(VisionTaskError) {
        runner = try TensorRunner.singleModel(bundle, threads: options.baseOptions.numThreads, task: "an object detector")
        let member = runner.member
        guard let subgraph = runner.metadata?.subgraphs.first else {
            throw .wrongModel("\(member): object detection models need TFLite model metadata, and this one has none")
        }
        let described = runner.interpreter.outputs
        guard described.allSatisfy({ $0.type == .float32 }) else {
            throw .wrongModel("\(member): the detection outputs are not float32")
        }
        input = try ImageInput(metadataNormalizedPixelsOf: runner)
        let model: TFLiteModel
        do { model = try bundle.model(member) } catch { throw .model(error) }
        let names = subgraph.outputTensors.map(\.name)
        let labelled: Int, labelKind: AssociatedFile.Kind
        switch (described.count, subgraph.outputTensors.count) {
        case (4, 4):
            // Outputs by their metadata names, as MediaPipe finds them; in model order when a name is missing.
            let outputs: (boxes: Int, classes: Int, scores: Int, count: Int)
            if let boxes = names.firstIndex(of: "location"), let classes = names.firstIndex(of: "category"),
               let scores = names.firstIndex(of: "score"), let count = names.firstIndex(of: "number of detections") {
                outputs = (boxes, classes, scores, count)
            } else {
                outputs = (0, 1, 2, 3)
            }
            var boxOrder = (yMin: 0, xMin: 1, yMax: 2, xMax: 3)
            if case let .boundingBox(index, _, _)? = subgraph.outputTensors[outputs.boxes].content, index.count == 4,
               Set(index) == [0, 1, 2, 3] {
                // index[k] is where coordinate k (left, top, right, bottom) sits.
                boxOrder = (Int(index[1]), Int(index[0]), Int(index[3]), Int(index[2]))
            }
            postprocessing = .inModel(outputs: outputs, boxOrder: boxOrder)
            (labelled, labelKind) = (outputs.classes, .tensorValueLabels)
        case (2, 2):
            let metadata: ObjectDetectorMetadata?
            do { metadata = try subgraph.objectDetectorMetadata() } catch { throw .model(error) }
            guard let metadata else {
                throw .wrongModel("\(member) has two outputs but no DETECTOR_METADATA to decode them with (MediaPipe's object detector metadata)")
            }
            // By their metadata names; else boxes first, as MediaPipe falls back.
            let boxes = names.firstIndex(of: "location") ?? 0, scores = names.firstIndex(of: "score") ?? 1
            guard boxes != scores else { throw .wrongModel("\(member): the box and score outputs are the same tensor") }
            postprocessing = .anchors(try AnchorBoxDecoder(metadata, boxValues: described[boxes].elementCount,
                                                           scoreValues: described[scores].elementCount, member: member),
                                      boxes: boxes, scores: scores)
            (labelled, labelKind) = (scores, .tensorAxisLabels)
        default:
            throw .wrongModel("\(member): an object detector's model ends in TFLite_Detection_PostProcess (4 outputs) or in raw boxes and scores with MediaPipe's detector metadata (2 outputs); this one has \(described.count)")
        }
        let files = subgraph.outputTensors[labelled].associatedFiles
        selection = try CategorySelection(
            labels: try ImageClassifierPipeline.labels(model, files, kind: labelKind, locale: nil),
            displayNames: try ImageClassifierPipeline.labels(model, files, kind: labelKind, locale: options.displayNamesLocale),
            allowlist: options.categoryAllowlist, denylist: options.categoryDenylist,
            scoreThreshold: options.scoreThreshold, metadataThreshold: subgraph.outputTensors[labelled].scoreThreshold,
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
        // Boxes relative to the model's input, with their label and score, in MediaPipe's order.
        var found: [AnchorBoxDecoder.Candidate] = []
        switch postprocessing {
        case let .inModel(outputs, boxOrder):
            let boxes = try runner.output(outputs.boxes), classes = try runner.output(outputs.classes)
            let scores = try runner.output(outputs.scores), count = try runner.output(outputs.count)
            let available = min(count.first.map { $0.isFinite ? Int(max($0, 0)) : 0 } ?? 0, scores.count, classes.count, boxes.count / 4)
            for i in 0..<available {
                if let maxResults, found.count == maxResults { break }
                let classValue = classes[i]
                guard classValue.isFinite, abs(classValue) < 1e9 else { continue }
                let label = Int(classValue)
                guard selection.isAllowed(label), !(scores[i] < selection.threshold) else { continue }
                let xMin = boxes[4 * i + boxOrder.xMin], yMin = boxes[4 * i + boxOrder.yMin]
                let width = boxes[4 * i + boxOrder.xMax] - xMin, height = boxes[4 * i + boxOrder.yMax] - yMin
                guard !(width < 0), !(height < 0), !width.isNaN, !height.isNaN else { continue }
                found.append(.init(xMin: xMin, yMin: yMin, width: width, height: height, label: label, score: scores[i]))
            }
        case let .anchors(decoder, boxes, scores):
            let candidates = decoder.candidates(boxes: try runner.output(boxes), scores: try runner.output(scores), selection: selection)
            found = AnchorBoxDecoder.suppressed(candidates, threshold: Self.suppressionThreshold, maxResults: maxResults)
        }
        let projection = DetectionProjection(region: region, imageWidth: image.width, imageHeight: image.height)
        var detections: [Detection] = []
        // Keyed by the box's four numbers: Swift 6.0's Foundation on Linux has no Hashable CGRect.
        var boxesSeen: [SIMD4<Double>: Int] = [:]
        for candidate in found {
            let projected = projection.box(xMin: candidate.xMin, yMin: candidate.yMin, width: candidate.width, height: candidate.height)
            let pixels = PixelBoundingBox.rect(xMin: projected.xMin, yMin: projected.yMin, width: projected.width,
                                               height: projected.height, imageWidth: image.width, imageHeight: image.height)
            // MediaPipe reports a labelled class with index −1 (its label id cleared once a label is found).
            var category = selection.category(candidate.label, score: candidate.score)
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
