import VisionTasksModelFormat

/// The storage of a quantized activation: uint8 (TFLite's first scheme, asymmetric per tensor — every model we ship)
/// or int8 (today's converters: symmetric per-channel weights, asymmetric activations). The kernels' typed bodies are
/// generic over it and called with a concrete type, so they are specialized.
/// (Codable only because SIMDScalar's vectors are: without it the compiler warns at every same-type constraint.)
protocol QuantizedElement: FixedWidthInteger, SIMDScalar, Sendable, Codable {}

extension UInt8: QuantizedElement {}
extension Int8: QuantizedElement {}

extension TensorType {
    /// Whether our quantized kernels take tensors of this type.
    var isQuantizedInteger: Bool { self == .uint8 || self == .int8 }

    /// The values a quantized element of this type can hold.
    var quantizedRange: ClosedRange<Int32> {
        switch self {
        case .uint8: return 0...255
        case .int8: return -128...127
        case .int16: return -32768...32767
        default: return Int32.min...Int32.max
        }
    }
}

extension Int32 {
    /// `value` truncated toward zero, saturated to Int32's range; NaN gives 0. Quantization parameters that pass the
    /// load checks can still be extreme (a subnormal output scale makes 1 / scale infinite, and 0 × ∞ is NaN):
    /// every float-to-integer conversion of the scalar quantized paths goes through this, never through a trap.
    @inline(__always) init(saturating value: Float) {
        if value.isNaN { self = 0 } else if value >= 2_147_483_648 { self = .max } else if value <= -2_147_483_648 { self = .min } else { self.init(value) }
    }
}

/// Affine per-tensor quantization: real = scale × (q − zeroPoint).
struct Quantization: Sendable, Equatable {
    let scale: Float
    let zeroPoint: Int32
    /// The range of the storage type.
    let range: ClosedRange<Int32>

    /// The quantized value nearest `value`, saturated to the type — XNNPACK's `xnn_qu8_quantize` / `xnn_qs8_quantize`:
    /// float division, the zero point added in float, clamped, rounded half to even. This is how XNNPACK (and so
    /// MediaPipe) turns a fused activation's bounds into quantized ones.
    func quantize(_ value: Float) -> Int32 {
        let shifted = value / scale + Float(zeroPoint)
        let clamped = min(max(shifted, Float(range.lowerBound)), Float(range.upperBound))
        return Int32(saturating: clamped.rounded(.toNearestOrEven))
    }

    /// The quantized bounds of a fused activation as LiteRT's builtin kernels compute them
    /// (`CalculateActivationRangeQuantized`): zero point + the bound / scale rounded half away from zero, saturated.
    /// For the operators XNNPACK does not take.
    func builtinBounds(_ activation: FusedActivation) -> ClosedRange<Int32>? {
        func quantized(_ value: Float) -> Int32 {
            min(max(zeroPoint &+ Int32(saturating: (value / scale).rounded()), range.lowerBound), range.upperBound)
        }
        switch activation {
        case .none: return range
        case .relu: return quantized(0)...range.upperBound
        case .relu6: return quantized(0)...quantized(6)
        case .reluN1To1: return quantized(-1)...quantized(1)
        case .tanh, .signBit: return nil
        }
    }

    /// The quantized bounds a fused activation leaves on the output, as XNNPACK computes them.
    func bounds(_ activation: FusedActivation) -> ClosedRange<Int32>? {
        switch activation {
        case .none: return range
        case .relu: return quantize(0)...range.upperBound
        case .relu6: return quantize(0)...quantize(6)
        case .reluN1To1: return quantize(-1)...quantize(1)
        case .tanh, .signBit: return nil
        }
    }
}

/// XNNPACK's "fp32" requantization of an int32 accumulator, which MediaPipe's results follow (shared/models/MODELS.md):
/// the accumulator converted to float, multiplied by the float scale, clamped to the activation's bounds less the
/// zero point, rounded half to even, the zero point added. TFLite's reference kernels use a fixed-point multiplier
/// and a rounding shift instead and land up to 1 LSB away per operator.
///
/// Except on arm64 for uint8 convolutions, depthwise convolutions and fully connected layers, and quantized MUL
/// (``roundsHalfUp``): there XNNPACK, so LiteRT, requantizes them with its "rndnu" kernels (src/configs/gemm-config.c,
/// dwconv-config.c, binary-elementwise-config.c):
/// the exact product of the accumulator and the scale rounded half up, which can land 1 away from the float product
/// rounded half to even (int8 layers take "fp32" there too).
struct Requantization: Sendable {
    let zeroPoint: Int32
    /// The output bounds less the zero point, as floats: clamping before rounding equals clamping after, since the
    /// bounds are integers.
    let lower: Float
    let upper: Float
    private let halfUp: Bool
    /// XNNPACK's "rndnu" arithmetic (``roundedHalfUp(_:scale:)``) instead of "fp32". A constant false off arm64, so
    /// that x86's requantizing stores carry no branch for it.
    var roundsHalfUp: Bool {
        #if arch(arm64)
        return halfUp
        #else
        return false
        #endif
    }

    init(output: Quantization, bounds: ClosedRange<Int32>, roundsHalfUp: Bool = false) {
        zeroPoint = output.zeroPoint
        lower = Float(bounds.lowerBound - output.zeroPoint)
        upper = Float(bounds.upperBound - output.zeroPoint)
        halfUp = roundsHalfUp
    }

    /// Whether LiteRT requantizes a convolution's, depthwise convolution's or fully connected layer's output with
    /// "rndnu" on this architecture: uint8 ones on arm64.
    static func roundsHalfUp(signed: Bool) -> Bool {
        #if arch(arm64)
        return !signed
        #else
        return false
        #endif
    }

    /// Whether LiteRT requantizes a quantized MUL with "rndnu" on this architecture: on arm64, both types
    /// (XNNPACK's `q[su]8_vmul_minmax_rndnu` kernels, binary-elementwise-config.c).
    static var multiplyRoundsHalfUp: Bool {
        #if arch(arm64)
        return true
        #else
        return false
        #endif
    }

    @inline(__always) func callAsFunction(_ accumulator: Int32, scale: Float) -> Int32 {
        if roundsHalfUp {
            let rounded = Self.roundedHalfUp(accumulator, scale: scale)
            return Int32(min(max(rounded, Int64(lower)), Int64(upper))) &+ zeroPoint
        }
        let scaled = min(max(Float(accumulator) * scale, lower), upper)
        return Int32(saturating: scaled.rounded(.toNearestOrEven)) &+ zeroPoint
    }

    /// accumulator × scale, rounded half up, exactly: the scale's 24-bit significand times the accumulator (at most
    /// 55 bits) shifted right by its exponent with half added first — XNNPACK's `xnn_qu8_requantize_rndnu` (its NEON
    /// kernels' doubling high multiply and rounding shift give the same integer). A file's extreme scale (XNNPACK
    /// asserts 2^-32 ≤ scale < 256) has its shift kept in range, a wrong value and never a trap.
    @inline(__always) static func roundedHalfUp(_ accumulator: Int32, scale: Float) -> Int64 {
        let bits = scale.bitPattern
        let significand = Int64((bits & 0x7F_FFFF) | 0x80_0000)
        let shift = min(max(150 - Int64((bits >> 23) & 0xFF), 1), 62)
        return (Int64(accumulator) &* significand &+ (1 &<< (shift &- 1))) &>> shift
    }

    @inline(__always) func callAsFunction(_ scaled: Float) -> Int32 {
        Int32(saturating: min(max(scaled, lower), upper).rounded(.toNearestOrEven)) &+ zeroPoint
    }
}

extension OperatorContext {
    /// Whether the operator computes on quantized integers (input 0 is uint8 or int8).
    var isQuantized: Bool {
        guard let first = inputs.first, first >= 0 else { return false }
        return type(first).isQuantizedInteger
    }

    /// The per-tensor quantization of a uint8/int8 tensor, required to be present.
    func quantization(_ tensor: Int) throws(EngineError) -> Quantization {
        let type = type(tensor)
        guard type.isQuantizedInteger else {
            throw unsupported("\(type.name) tensor '\(graph.names[tensor])' where a uint8 or int8 one is needed")
        }
        guard let q = graph.quantization[tensor], q.scale.count == 1, q.zeroPoint.count == 1 else {
            throw unsupported("tensor '\(graph.names[tensor])' needs one scale and one zero point")
        }
        return Quantization(scale: q.scale[0], zeroPoint: Int32(q.zeroPoint[0]), range: type.quantizedRange)
    }

    /// A filter's scales and zero points, one per output channel along `axis` (a per-tensor pair repeated).
    func channelQuantization(_ tensor: Int, axis: Int, channels: Int) throws(EngineError) -> (scales: [Float], zeroPoints: [Int32]) {
        guard let q = graph.quantization[tensor], !q.scale.isEmpty, q.scale.count == q.zeroPoint.count else {
            throw unsupported("filter '\(graph.names[tensor])' has no quantization parameters")
        }
        if q.scale.count == 1 {
            return (Array(repeating: q.scale[0], count: channels), Array(repeating: Int32(q.zeroPoint[0]), count: channels))
        }
        guard Int(q.quantizedDimension) == axis, q.scale.count == channels else {
            throw fail("filter '\(graph.names[tensor])' has \(q.scale.count) scales along dimension \(q.quantizedDimension); \(channels) along \(axis) expected")
        }
        return (q.scale, q.zeroPoint.map { Int32($0) })
    }

    /// A constant int32 bias, or zeros when the optional input is absent.
    func constantBias(_ i: Int, count: Int) throws(EngineError) -> [Int32] {
        guard hasInput(i) else { return Array(repeating: 0, count: count) }
        let tensor = try input(i)
        guard type(tensor) == .int32, let values = constants.integers(tensor), values.count == count else {
            throw unsupported("bias '\(graph.names[tensor])' must be a constant int32 tensor of \(count) values")
        }
        return values.map { Int32(truncatingIfNeeded: $0) }
    }

    /// A constant quantized tensor's raw values, widened.
    func constantQuantizedValues(_ i: Int) throws(EngineError) -> [Int32] {
        let tensor = try input(i)
        guard let entry = constants.entries[tensor] else { throw unsupported("input \(i) must be constant") }
        switch entry.type {
        case .uint8: return (0..<entry.byteCount).map { Int32(entry.pointer.load(fromByteOffset: $0, as: UInt8.self)) }
        case .int8: return (0..<entry.byteCount).map { Int32(entry.pointer.load(fromByteOffset: $0, as: Int8.self)) }
        default: throw unsupported("input \(i) is \(entry.type.name), not uint8 or int8")
        }
    }

    /// Requires every listed tensor to have input 0's quantized type.
    func requireSameQuantizedType(_ tensors: [Int]) throws(EngineError) -> TensorType {
        let first = type(try input(0))
        guard first.isQuantizedInteger else { throw unsupported("\(first.name) input") }
        for tensor in tensors where type(tensor) != first {
            throw unsupported("mixes \(first.name) and \(type(tensor).name) ('\(graph.names[tensor])')")
        }
        return first
    }
}

/// Load-time checks of every tensor's quantization parameters, so that no kernel divides by a zero scale or reads a
/// scale that is not there.
enum QuantizationValidation {
    static func check(_ graph: GraphDescription) throws(EngineError) {
        for tensor in graph.shapes.indices {
            guard let q = graph.quantization[tensor], !q.isEmpty else { continue }
            let name = graph.names[tensor], type = graph.types[tensor], shape = graph.shapes[tensor]
            guard q.scale.count == q.zeroPoint.count || (q.zeroPoint.isEmpty && type == .float32) else {
                throw .invalidQuantization(tensor: name, reason: "\(q.scale.count) scales but \(q.zeroPoint.count) zero points")
            }
            // Float tensors may carry min/max or scales left by a converter; only integer storage is read through them.
            guard type.isQuantizedInteger || type == .int16 || type == .int32 else { continue }
            // A bias (int32) may have scale 0 when its filter's channel is all zeros; values never pass through it.
            for scale in q.scale where !(scale.isFinite && (scale > 0 || (type == .int32 && scale == 0))) {
                throw .invalidQuantization(tensor: name, reason: "scale \(scale) (must be positive and finite)")
            }
            let range = type.quantizedRange
            for zeroPoint in q.zeroPoint where !(Int64(range.lowerBound)...Int64(range.upperBound)).contains(zeroPoint) {
                throw .invalidQuantization(tensor: name, reason: "zero point \(zeroPoint) outside \(type.name)'s \(range)")
            }
            if q.scale.count > 1 {
                let axis = Int(q.quantizedDimension)
                guard axis >= 0, axis < shape.count, shape[axis] == q.scale.count else {
                    throw .invalidQuantization(
                        tensor: name, reason: "\(q.scale.count) per-channel scales along dimension \(axis) of shape \(shape)")
                }
            }
        }
    }
}
