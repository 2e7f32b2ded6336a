import Foundation

/// One embedder head's embedding (MediaPipe's `MPPEmbedding`, `Embedding` in Swift): exactly one of the float and the
/// quantized forms is set, by the embedder's `quantize` option.
///
/// MediaPipe's API hands the values out as `[NSNumber]` (``floatEmbedding``, ``quantizedEmbedding``), which code
/// written for it reads with `.floatValue` and `.int8Value`; they are stored unboxed, and ``floatValues`` and
/// ``quantizedValues`` give them so, without an object per value.
public struct Embedding: Sendable, Equatable, Hashable {
    /// The float embedding; nil when the embedder quantizes.
    public var floatValues: [Float]?
    /// The scalar-quantized embedding, one signed byte per dimension (MediaPipe's `char`s: a value × 128, rounded and
    /// clamped to −128…127); nil when the embedder does not quantize.
    public var quantizedValues: [Int8]?
    /// The index of the model output head this embedding comes from.
    public var headIndex: Int
    /// The head's name: its output tensor's name in the model's metadata; nil when the metadata names no head.
    public var headName: String?

    public init(floatValues: [Float]?, quantizedValues: [Int8]?, headIndex: Int, headName: String?) {
        self.floatValues = floatValues; self.quantizedValues = quantizedValues
        self.headIndex = headIndex; self.headName = headName
    }

    /// MediaPipe's initializer: the values as `NSNumber`s (quantized ones read as signed bytes, `int8Value`, as
    /// MediaPipe reads them with `charValue`).
    public init(floatEmbedding: [NSNumber]?, quantizedEmbedding: [NSNumber]?, headIndex: Int, headName: String?) {
        self.init(floatValues: floatEmbedding?.map(\.floatValue), quantizedValues: quantizedEmbedding?.map(\.int8Value),
                  headIndex: headIndex, headName: headName)
    }

    /// The float embedding as MediaPipe gives it; nil when the embedder quantizes.
    public var floatEmbedding: [NSNumber]? {
        floatValues?.map { NSNumber(value: $0) }
    }

    /// The quantized embedding as MediaPipe gives it: each byte as a signed `char` (`numberWithChar:`), so that
    /// `.int8Value` reads it back; nil when the embedder does not quantize.
    public var quantizedEmbedding: [NSNumber]? {
        quantizedValues?.map { NSNumber(value: $0) }
    }
}

/// The embeddings of one input, one per model output head (MediaPipe's `MPPEmbeddingResult`, `EmbeddingResult` in Swift).
public struct EmbeddingResult: Sendable, Equatable, Hashable {
    public var embeddings: [Embedding]
    /// The timestamp of the input the embeddings belong to (0 in image mode), as MediaPipe's aggregation sets it.
    public var timestampInMilliseconds: Int

    public init(embeddings: [Embedding], timestampInMilliseconds: Int) {
        self.embeddings = embeddings
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}

/// Cosine similarity of two embeddings, as MediaPipe's iOS `MPPCosineSimilarity` computes it: two float embeddings
/// (values widened to double) or two quantized ones (read as signed bytes), the dot product and both squared norms
/// summed in double, then dot / √(‖u‖²·‖v‖²).
///
/// Its errors are MediaPipe's: embeddings of different sizes, or one float and one quantized. Beyond the iOS code,
/// which would return NaN, empty embeddings and a zero norm are errors too, as in MediaPipe's C++ and Python
/// `cosine_similarity` (`tasks/cc/components/utils/cosine_similarity.cc`).
enum CosineSimilarity {
    static func between(_ u: Embedding, _ v: Embedding) throws(VisionTaskError) -> Double {
        if let a = u.floatValues, let b = v.floatValues {
            return try compute(a, b, Double.init)
        }
        if let a = u.quantizedValues, let b = v.quantizedValues {
            return try compute(a, b, Double.init)
        }
        throw .invalidOption(name: "embedding2", reason: "Cannot compute cosine similarity between quantized and float embeddings.")
    }

    private static func compute<Element>(_ u: [Element], _ v: [Element], _ widen: (Element) -> Double) throws(VisionTaskError) -> Double {
        guard u.count == v.count else {
            throw .invalidOption(name: "embedding2", reason: "Cannot compute cosine similarity between embeddings of different sizes (\(u.count) vs \(v.count))")
        }
        guard !u.isEmpty else {
            throw .invalidOption(name: "embedding1", reason: "Cannot compute cosine similarity on empty embeddings")
        }
        var dot = 0.0, normU = 0.0, normV = 0.0
        for index in u.indices {
            let a = widen(u[index]), b = widen(v[index])
            dot += a * b
            normU += a * a
            normV += b * b
        }
        for (norm, name) in [(normU, "embedding1"), (normV, "embedding2")] {
            // MediaPipe would return NaN for a float embedding holding NaN or infinity; a typed error says why.
            guard norm.isFinite else {
                throw .invalidOption(name: name, reason: "Cannot compute cosine similarity on embedding with non-finite values")
            }
            guard norm > 0 else {
                throw .invalidOption(name: name, reason: "Cannot compute cosine similarity on embedding with 0 norm")
            }
        }
        return dot / (normU * normV).squareRoot()
    }
}
