/// Options of a convolution (`Conv2DOptions`).
public struct Conv2DOptions: Sendable, Equatable {
    public var padding: Padding
    public var strideWidth: Int32
    public var strideHeight: Int32
    public var activation: FusedActivation
    public var dilationWidth: Int32
    public var dilationHeight: Int32
}

/// Options of a depthwise convolution (`DepthwiseConv2DOptions`).
public struct DepthwiseConv2DOptions: Sendable, Equatable {
    public var padding: Padding
    public var strideWidth: Int32
    public var strideHeight: Int32
    /// Redundant with the filter shape in current TFLite; kept for completeness.
    public var depthMultiplier: Int32
    public var activation: FusedActivation
    public var dilationWidth: Int32
    public var dilationHeight: Int32
}

/// Options of max and average pooling (`Pool2DOptions`).
public struct Pool2DOptions: Sendable, Equatable {
    public var padding: Padding
    public var strideWidth: Int32
    public var strideHeight: Int32
    public var filterWidth: Int32
    public var filterHeight: Int32
    public var activation: FusedActivation
}

/// Options of a fully connected layer (`FullyConnectedOptions`).
public struct FullyConnectedOptions: Sendable, Equatable {
    public var activation: FusedActivation
    /// 0 = default layout; 1 = shuffled 4×16 int8 weights.
    public var weightsFormat: UInt8
    public var keepNumDims: Bool
    public var asymmetricQuantizeInputs: Bool
}

/// Options of `STRIDED_SLICE`.
public struct StridedSliceOptions: Sendable, Equatable {
    public var beginMask: Int32
    public var endMask: Int32
    public var ellipsisMask: Int32
    public var newAxisMask: Int32
    public var shrinkAxisMask: Int32
    public var offset: Bool
}

/// Options of `TRANSPOSE_CONV`.
public struct TransposeConvOptions: Sendable, Equatable {
    public var padding: Padding
    public var strideWidth: Int32
    public var strideHeight: Int32
    public var activation: FusedActivation
}

/// The decoded `builtin_options` union of an operator.
///
/// Decoded by the union's own type tag, so the options are read even when the opcode is one we do not run.
/// Option tables with no fields (PAD, TRANSPOSE, DEQUANTIZE, DENSIFY, HARD_SWISH, NEG, …) decode as `.empty`.
public enum BuiltinOptions: Sendable, Equatable {
    case none
    case conv2D(Conv2DOptions)
    case depthwiseConv2D(DepthwiseConv2DOptions)
    case pool2D(Pool2DOptions)
    case fullyConnected(FullyConnectedOptions)
    case softmax(beta: Float)
    case concatenation(axis: Int32, activation: FusedActivation)
    case add(activation: FusedActivation, potScaleInt16: Bool)
    case sub(activation: FusedActivation, potScaleInt16: Bool)
    case mul(activation: FusedActivation)
    case div(activation: FusedActivation)
    case l2Normalization(activation: FusedActivation)
    case resizeBilinear(alignCorners: Bool, halfPixelCenters: Bool)
    case resizeNearestNeighbor(alignCorners: Bool, halfPixelCenters: Bool)
    case reshape(newShape: [Int32]?)
    case spaceToDepth(blockSize: Int32)
    case depthToSpace(blockSize: Int32)
    case gather(axis: Int32, batchDims: Int32)
    case reducer(keepDims: Bool)
    case squeeze(dimensions: [Int32])
    case stridedSlice(StridedSliceOptions)
    case split(count: Int32)
    case splitV(count: Int32)
    case pack(count: Int32, axis: Int32)
    case unpack(count: Int32, axis: Int32)
    case leakyRelu(alpha: Float)
    case cast(input: TensorType?, output: TensorType?)
    case argMax(outputType: TensorType?)
    case argMin(outputType: TensorType?)
    case transposeConv(TransposeConvOptions)
    case mirrorPad(symmetric: Bool)
    case batchMatMul(adjointX: Bool, adjointY: Bool)
    /// An options table that has no fields; `union` is its tag in the schema's `BuiltinOptions` union.
    case empty(union: UInt8)
    /// An options table this reader does not decode; `union` is its tag.
    case undecoded(union: UInt8)

    // Tags of the `BuiltinOptions` union, in schema order (index 0 = NONE).
    private enum Tag: UInt8 {
        case conv2D = 1, depthwiseConv2D = 2, pool2D = 5, fullyConnected = 8, softmax = 9, concatenation = 10
        case add = 11, l2Norm = 12, resizeBilinear = 15, reshape = 17, spaceToDepth = 19, mul = 21
        case gather = 23, reducer = 27, sub = 28, div = 29, squeeze = 30, stridedSlice = 32, split = 35, cast = 37
        case argMax = 40, transposeConv = 49, argMin = 57, pack = 59, unpack = 64, resizeNearestNeighbor = 74
        case leakyRelu = 75, mirrorPad = 77, splitV = 79, depthToSpace = 94, batchMatMul = 101
    }

    /// Tags of option tables declared without fields in the schema.
    private static let fieldlessTags: Set<UInt8> = [
        22, 24, 25, 26, 33, 34, 36, 38, 39, 41, 42, 43, 44, 45, 46, 47, 48, 51, 52, 53, 54, 56, 60, 62, 63, 65, 66, 67,
        68, 72, 73, 76, 78, 81, 82, 83, 84, 85, 86, 88, 89, 90, 91, 95, 96, 97, 98, 99, 100, 104, 105,
    ]

    static func decode(tag: UInt8, table: FlatBufferTable?) throws(FormatError) -> BuiltinOptions {
        guard tag != 0 else { return .none }
        guard let table else {
            throw .invalidValue(what: "operator builtin_options missing for union tag", value: Int64(tag))
        }
        guard let known = Tag(rawValue: tag) else {
            return fieldlessTags.contains(tag) ? .empty(union: tag) : .undecoded(union: tag)
        }
        let t = table
        func activation(_ field: Int) throws(FormatError) -> FusedActivation {
            let raw: UInt8 = try t.scalar(field, default: 0, "fused_activation_function")
            guard let value = FusedActivation(rawValue: raw) else {
                throw .invalidValue(what: "fused_activation_function", value: Int64(raw))
            }
            return value
        }
        func padding(_ field: Int) throws(FormatError) -> Padding {
            let raw: UInt8 = try t.scalar(field, default: 0, "padding")
            guard let value = Padding(rawValue: raw) else { throw .invalidValue(what: "padding", value: Int64(raw)) }
            return value
        }
        func int(_ field: Int, _ name: String, default value: Int32 = 0) throws(FormatError) -> Int32 {
            try t.scalar(field, default: value, name)
        }
        func type(_ field: Int, _ name: String) throws(FormatError) -> TensorType? {
            guard t.fieldPosition(field) != nil else { return nil }
            let raw: UInt8 = try t.scalar(field, default: 0, name)
            guard let value = TensorType(rawValue: raw) else { throw .invalidValue(what: name, value: Int64(raw)) }
            return value
        }
        switch known {
        case .conv2D:
            return .conv2D(Conv2DOptions(
                padding: try padding(0), strideWidth: try int(1, "stride_w"), strideHeight: try int(2, "stride_h"),
                activation: try activation(3), dilationWidth: try int(4, "dilation_w_factor", default: 1),
                dilationHeight: try int(5, "dilation_h_factor", default: 1)))
        case .depthwiseConv2D:
            return .depthwiseConv2D(DepthwiseConv2DOptions(
                padding: try padding(0), strideWidth: try int(1, "stride_w"), strideHeight: try int(2, "stride_h"),
                depthMultiplier: try int(3, "depth_multiplier"), activation: try activation(4),
                dilationWidth: try int(5, "dilation_w_factor", default: 1),
                dilationHeight: try int(6, "dilation_h_factor", default: 1)))
        case .pool2D:
            return .pool2D(Pool2DOptions(
                padding: try padding(0), strideWidth: try int(1, "stride_w"), strideHeight: try int(2, "stride_h"),
                filterWidth: try int(3, "filter_width"), filterHeight: try int(4, "filter_height"),
                activation: try activation(5)))
        case .fullyConnected:
            return .fullyConnected(FullyConnectedOptions(
                activation: try activation(0), weightsFormat: try t.scalar(1, default: 0, "weights_format"),
                keepNumDims: try t.bool(2, "keep_num_dims"), asymmetricQuantizeInputs: try t.bool(3, "asymmetric_quantize_inputs")))
        case .softmax: return .softmax(beta: try t.float(0, default: 0, "beta"))
        case .concatenation: return .concatenation(axis: try int(0, "axis"), activation: try activation(1))
        case .add: return .add(activation: try activation(0), potScaleInt16: try t.bool(1, default: true, "pot_scale_int16"))
        case .sub: return .sub(activation: try activation(0), potScaleInt16: try t.bool(1, default: true, "pot_scale_int16"))
        case .mul: return .mul(activation: try activation(0))
        case .div: return .div(activation: try activation(0))
        case .l2Norm: return .l2Normalization(activation: try activation(0))
        // Fields 0 and 1 of ResizeBilinearOptions are the deprecated new_height/new_width.
        case .resizeBilinear:
            return .resizeBilinear(alignCorners: try t.bool(2, "align_corners"), halfPixelCenters: try t.bool(3, "half_pixel_centers"))
        case .resizeNearestNeighbor:
            return .resizeNearestNeighbor(alignCorners: try t.bool(0, "align_corners"), halfPixelCenters: try t.bool(1, "half_pixel_centers"))
        case .reshape: return .reshape(newShape: try t.scalars(0, as: Int32.self, "new_shape"))
        case .spaceToDepth: return .spaceToDepth(blockSize: try int(0, "block_size"))
        case .depthToSpace: return .depthToSpace(blockSize: try int(0, "block_size"))
        case .gather: return .gather(axis: try int(0, "axis"), batchDims: try int(1, "batch_dims"))
        case .reducer: return .reducer(keepDims: try t.bool(0, "keep_dims"))
        case .squeeze: return .squeeze(dimensions: try t.scalars(0, as: Int32.self, "squeeze_dims") ?? [])
        case .stridedSlice:
            return .stridedSlice(StridedSliceOptions(
                beginMask: try int(0, "begin_mask"), endMask: try int(1, "end_mask"), ellipsisMask: try int(2, "ellipsis_mask"),
                newAxisMask: try int(3, "new_axis_mask"), shrinkAxisMask: try int(4, "shrink_axis_mask"),
                offset: try t.bool(5, "offset")))
        case .split: return .split(count: try int(0, "num_splits"))
        case .splitV: return .splitV(count: try int(0, "num_splits"))
        case .cast: return .cast(input: try type(0, "in_data_type"), output: try type(1, "out_data_type"))
        case .argMax: return .argMax(outputType: try type(0, "output_type"))
        case .argMin: return .argMin(outputType: try type(0, "output_type"))
        case .transposeConv:
            return .transposeConv(TransposeConvOptions(
                padding: try padding(0), strideWidth: try int(1, "stride_w"), strideHeight: try int(2, "stride_h"),
                activation: try activation(3)))
        case .pack: return .pack(count: try int(0, "values_count"), axis: try int(1, "axis"))
        case .unpack: return .unpack(count: try int(0, "num"), axis: try int(1, "axis"))
        case .leakyRelu: return .leakyRelu(alpha: try t.float(0, default: 0, "alpha"))
        case .mirrorPad: return .mirrorPad(symmetric: try t.scalar(0, default: 0, "mode") as UInt8 == 1)
        case .batchMatMul: return .batchMatMul(adjointX: try t.bool(0, "adj_x"), adjointY: try t.bool(1, "adj_y"))
        }
    }
}
