/// The element type of a tensor, as TFLite's schema numbers it.
public enum TensorType: UInt8, Sendable, CaseIterable {
    case float32 = 0, float16, int32, uint8, int64, string, bool, int16, complex64, int8, float64, complex128
    case uint64, resource, variant, uint32, uint16, int4, bfloat16, int2, uint4, float8e4m3fn, float8e5m2

    /// The spelling LiteRT's Python API uses (NumPy's dtype names).
    public var name: String {
        switch self {
        case .float8e4m3fn: return "float8_e4m3fn"
        case .float8e5m2: return "float8_e5m2"
        case .string: return "string"
        default: return "\(self)"
        }
    }

    /// Bytes per element for types stored whole-byte; nil for strings, sub-byte and opaque types.
    public var byteSize: Int? {
        switch self {
        case .bool, .uint8, .int8, .float8e4m3fn, .float8e5m2: return 1
        case .float16, .int16, .uint16, .bfloat16: return 2
        case .float32, .int32, .uint32: return 4
        case .float64, .int64, .uint64, .complex64: return 8
        case .complex128: return 16
        case .string, .resource, .variant, .int4, .int2, .uint4: return nil
        }
    }
}

/// How a convolution or pooling window treats the border.
public enum Padding: UInt8, Sendable {
    case same = 0, valid = 1
}

/// The activation TFLite fuses into an operator's output.
public enum FusedActivation: UInt8, Sendable {
    case none = 0, relu, reluN1To1, relu6, tanh, signBit
}
