/// Layer normalization over the last axis as TFLite's converter spells it in ten operators — MEAN, NEG,
/// SQUARED_DIFFERENCE, MEAN, ADD ε, RSQRT, MUL γ, MUL, MUL, ADD:
///
///     m = mean(x);  g = γ / √(mean((x − m)²) + ε);  y = x · g + (−m) · g
///
/// run as one pass over each row (the plan fuses the ten). Face blendshapes normalizes [97 × 64] eight times: 80
/// operators of a few microseconds each, most of them on a 97-value column, about a tenth of the model's time at
/// one thread and more at two, where none of them is worth splitting.
///
/// Every value goes through the same float operations, in the same order, as the ten kernels (the sums as
/// ``ReduceKernel`` takes them, on two SIMD8 accumulators; x · g and (−m) · g rounded separately, then added), so
/// the fused result is bit-identical to the operators run one by one.
struct LayerNormalizationKernel: Kernel {
    let input: Int
    let output: Int
    let rows: Int
    let channels: Int
    let epsilon: Float
    /// γ, one per channel.
    let scale: [Float]

    init(input: Int, output: Int, rows: Int, channels: Int, epsilon: Float, scale: [Float]) {
        (self.input, self.output, self.rows, self.channels, self.epsilon, self.scale) = (input, output, rows, channels, epsilon, scale)
    }

    func run(_ memory: TensorMemory) {
        let x = memory.floats(input), y = memory.floats(output)
        let channels = channels, vectorEnd = channels & ~15, inverseCount = 1 / Float(channels), epsilon = epsilon
        scale.withUnsafeBufferPointer { scale in
            let gamma = UnsafeRawPointer(scale.baseAddress!)
            for r in 0..<rows {
                let row = x + r &* channels, out = y + r &* channels
                @inline(__always) func load(_ i: Int) -> SIMD8<Float> { UnsafeRawPointer(row + i).loadUnaligned(as: SIMD8<Float>.self) }
                // MEAN
                var s0 = SIMD8<Float>(), s1 = SIMD8<Float>()
                var i = 0
                while i < vectorEnd { s0 += load(i); s1 += load(i &+ 8); i &+= 16 }
                var sum = (s0 + s1).sum()
                while i < channels { sum += row[i]; i &+= 1 }
                let mean = sum * inverseCount
                // SQUARED_DIFFERENCE, MEAN
                let m = SIMD8(repeating: mean)
                s0 = SIMD8(); s1 = SIMD8()
                i = 0
                while i < vectorEnd {
                    let d0 = load(i) - m, d1 = load(i &+ 8) - m
                    s0 += d0 * d0
                    s1 += d1 * d1
                    i &+= 16
                }
                var squares = (s0 + s1).sum()
                while i < channels { squares += (row[i] - mean) * (row[i] - mean); i &+= 1 }
                // ADD ε, RSQRT
                let reciprocal = 1 / (squares * inverseCount + epsilon).squareRoot()
                // NEG; MUL γ, MUL x, MUL −m, ADD
                let negated = -mean
                let r8 = SIMD8(repeating: reciprocal), n8 = SIMD8(repeating: negated)
                i = 0
                while i &+ 8 <= channels {
                    let g = r8 * gamma.loadUnaligned(fromByteOffset: 4 &* i, as: SIMD8<Float>.self)
                    UnsafeMutableRawPointer(out + i).storeBytes(of: load(i) * g + n8 * g, as: SIMD8<Float>.self)
                    i &+= 8
                }
                while i < channels {
                    let g = reciprocal * scale[i]
                    out[i] = row[i] * g + negated * g
                    i &+= 1
                }
            }
        }
    }
}
