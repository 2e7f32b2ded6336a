import VisionTasksModelFormat

/// MediaPipe's hand gesture stage (hand_gesture_recognizer_graph.cc): the embedder's three inputs built from a
/// hand's landmarks, handedness and world landmarks, the 128-value embedding, and the canned classifier — or a custom
/// one first, when the bundle carries it — combined as CombinedPredictionCalculator combines them.
final class GestureClassifier {
    static let embedderMember = "gesture_embedder.tflite"
    static let cannedMember = "canned_gesture_classifier.tflite"
    static let customMember = "custom_gesture_classifier.tflite"
    /// The label of "no gesture" in both classifiers (`kBackgroundLabel`).
    static let backgroundLabel = "None"

    let embedder: TensorRunner
    /// Custom first: its first gesture other than "None" wins over the canned classifier's.
    let heads: [Head]

    /// One classifier: its model, its labels and the options that filter its categories.
    struct Head {
        let runner: TensorRunner
        let labels: [String]
        let options: ClassifierSettings
        /// The score threshold in the model's metadata (Model Maker writes 0.5 into custom classifiers), used when
        /// no options are given, as MediaPipe's classification post-processing does.
        let metadataThreshold: Float?
    }

    init(bundle: TaskBundle, canned: ClassifierOptions.Values?, custom: ClassifierOptions.Values?, threads: Int?) throws(VisionTaskError) {
        try bundle.requireMembers([Self.embedderMember, Self.cannedMember], for: "gesture recognizer")
        embedder = try TensorRunner(bundle: bundle, member: Self.embedderMember, threads: threads)
        let inputs = embedder.interpreter.inputs
        guard inputs.map(\.elementCount) == [63, 1, 63], embedder.interpreter.outputs.first?.elementCount == 128 else {
            throw .wrongModel("\(Self.embedderMember) does not take a hand's landmarks, handedness and world landmarks to 128 values")
        }
        var heads: [Head] = []
        if (try? bundle.member(Self.customMember)) != nil {
            heads.append(try Self.head(bundle: bundle, member: Self.customMember, options: custom, threads: threads))
        }
        heads.append(try Self.head(bundle: bundle, member: Self.cannedMember, options: canned, threads: threads))
        self.heads = heads
    }

    private static func head(bundle: TaskBundle, member: String, options: ClassifierOptions.Values?, threads: Int?) throws(VisionTaskError) -> Head {
        let runner = try TensorRunner(bundle: bundle, member: member, threads: threads)
        let labels: [String]
        do {
            let model = try bundle.model(member)
            let file = runner.metadata?.subgraphs.first?.outputTensors.first?.associatedFiles
                .first { $0.kind == .tensorAxisLabels && $0.locale.isEmpty }
            guard let file else { throw FormatError.missingBundleMember(name: "the label file of \(member)", available: []) }
            labels = try model.labels(named: file.name)
        } catch let error as FormatError {
            throw .model(error)
        } catch {
            throw .wrongModel("\(member): \(error)")
        }
        guard runner.interpreter.inputs.first?.elementCount == 128, runner.interpreter.outputs.first?.elementCount == labels.count else {
            throw .wrongModel("\(member) does not score a 128-value embedding into its \(labels.count) labels")
        }
        return Head(runner: runner, labels: labels, options: ClassifierSettings(options),
                    metadataThreshold: runner.metadata?.subgraphs.first?.outputTensors.first?.scoreThreshold)
    }

    /// The gesture of one hand: one category (index −1, as MediaPipe reports gestures), or none when the options
    /// filtered every category of every classifier out.
    func gesture(of hand: HandEstimate, imageWidth: Int, imageHeight: Int, rotation: Float) throws(VisionTaskError) -> Category? {
        let landmarks = hand.landmarks.map { SIMD3($0.x, $0.y, $0.z) }
        let world = hand.world.map { SIMD3($0.x, $0.y, $0.z) }
        let hands = Self.normalized(Self.aspectCorrected(landmarks, width: imageWidth, height: imageHeight), rotation: rotation)
        let worldHands = Self.normalized(world, rotation: rotation)
        try embedder.withInputFloats(0) { fill($0, hands) }
        try embedder.withInputFloats(1) { $0[0] = hand.rightScore }
        try embedder.withInputFloats(2) { fill($0, worldHands) }
        embedder.invoke()
        let embedding = try embedder.output(0)
        var first: Category?
        for head in heads {
            try head.runner.withInputFloats(0) { input in for i in 0..<embedding.count { input[i] = embedding[i] } }
            head.runner.invoke()
            let scores = try head.runner.output(0)
            let categories = scores.enumerated().map { Category(index: $0.offset, score: $0.element, categoryName: head.labels[$0.offset]) }
            let kept = head.options.filter(categories.sorted { $0.score > $1.score }, defaultThreshold: head.metadataThreshold)
            guard !kept.isEmpty else { continue }
            // GetMaxScoringClassification: the first strictly above a start of 0 (an empty label if none is).
            var best = Category(index: -1, score: 0, categoryName: "")
            for category in kept where best.score < category.score {
                best = Category(index: -1, score: category.score, categoryName: category.categoryName)
            }
            if best.categoryName != Self.backgroundLabel { return best }
            first = first ?? best
        }
        return first
    }

    private func fill(_ buffer: UnsafeMutableBufferPointer<Float>, _ points: [SIMD3<Float>]) {
        for (i, p) in points.enumerated() {
            buffer[3 * i] = p.x; buffer[3 * i + 1] = p.y; buffer[3 * i + 2] = p.z
        }
    }

    /// LandmarksToMatrixCalculator's aspect step for image landmarks: x and y in units of the image's longer side.
    static func aspectCorrected(_ points: [SIMD3<Float>], width: Int, height: Int) -> [SIMD3<Float>] {
        let longer = Float(max(width, height))
        let sx = Float(width) / longer, sy = Float(height) / longer
        return points.map { SIMD3(($0.x - 0.5) * sx + 0.5, ($0.y - 0.5) * sy + 0.5, $0.z) }
    }

    /// LandmarksToMatrixCalculator's rotation (by −rotation about (0.5, 0.5)) and object normalization: the wrist
    /// at the origin, divided by the larger of the x and y extents (+ 1e-5).
    static func normalized(_ points: [SIMD3<Float>], rotation: Float) -> [SIMD3<Float>] {
        var points = points
        if rotation != 0 {
            let c = cosf(-rotation), s = sinf(-rotation)
            points = points.map { p in
                let x = p.x - 0.5, y = p.y - 0.5
                return SIMD3(x * c - y * s + 0.5, x * s + y * c + 0.5, p.z)
            }
        }
        guard let origin = points.first else { return points }
        var lo = SIMD2(origin.x, origin.y), hi = lo
        for p in points { lo = pointwiseMin(lo, SIMD2(p.x, p.y)); hi = pointwiseMax(hi, SIMD2(p.x, p.y)) }
        let scale = max(hi.x - lo.x, hi.y - lo.y) + 1e-5
        return points.map { ($0 - origin) / scale }
    }
}
