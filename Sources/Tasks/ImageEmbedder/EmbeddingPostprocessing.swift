/// What MediaPipe's embedding post-processing does to each (dequantized) output head: its `TensorsToEmbeddingsCalculator`
/// (`tasks/cc/components/calculators/tensors_to_embeddings_calculator.cc`), step for step, in float as it computes.
struct EmbeddingPostprocessing: Sendable {
    let l2Normalize: Bool
    let quantize: Bool

    /// One head's embedding: optionally L2-normalized, then as floats or scalar-quantized.
    func embedding(_ values: [Float], headIndex: Int, headName: String?) -> Embedding {
        let scale = l2Normalize ? Self.inverseL2Norm(values) : 1
        if quantize {
            return Embedding(floatValues: nil, quantizedValues: values.map { Self.quantized($0 * scale) },
                             headIndex: headIndex, headName: headName)
        }
        return Embedding(floatValues: values.map { $0 * scale }, quantizedValues: nil, headIndex: headIndex, headName: headName)
    }

    /// 1 / ‖values‖, the squares summed in float in index order as MediaPipe's `GetInverseL2Norm`; 1 when every value
    /// is 0 (the embedding is left as it is). The order is kept so that the norm, and so every value, is MediaPipe's.
    static func inverseL2Norm(_ values: [Float]) -> Float {
        var squared: Float = 0
        for value in values { squared += value * value }
        return squared > 0 ? 1 / squared.squareRoot() : 1
    }

    /// MediaPipe's scalar quantization: `roundf(value × 128)` (halves away from zero, as `rounded()`), clamped to
    /// −128…127. MediaPipe converts to `int` before clamping, which C++ leaves undefined for NaN and for values beyond
    /// `Int32`; here they take what the conversion gives on the ARM processors MediaPipe's iOS API runs on (it
    /// saturates, NaN gives 0), with no trap: a model's NaN output quantizes to 0, ±∞ to 127 and −128.
    static func quantized(_ value: Float) -> Int8 {
        let scaled = (value * 128).rounded()
        guard !scaled.isNaN else { return 0 }
        return Int8(max(-128, min(scaled, 127)))
    }
}
