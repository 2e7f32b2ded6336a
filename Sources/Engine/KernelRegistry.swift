import VisionTasksModelFormat

/// Maps an operator to its prepared kernel by its code and its tensors' types; the one place that knows which
/// operators we run. Float kernels and quantized ones (uint8/int8, in `Kernels/Quantized`) sit side by side: an
/// operator whose input 0 is uint8 or int8 takes the quantized kernel, anything else the float one, which names
/// the type it cannot take.
enum KernelRegistry {
    typealias Factory = @Sendable (OperatorContext) throws(EngineError) -> any Kernel

    /// Custom operators by their custom code.
    static let customOperators: [String: Factory] = [
        "Convolution2DTransposeBias": { context throws(EngineError) in try TransposeConvolutionBiasKernel(context) },
        "TFLite_Detection_PostProcess": { context throws(EngineError) in try DetectionPostProcessKernel(context) },
        // MediaPipe's hair segmentation model (and the interactive segmenter's stand-in, the same network).
        "MaxPoolingWithArgmax2D": { context throws(EngineError) in try MaxPoolingWithArgmaxKernel(context) },
        "MaxUnpooling2D": { context throws(EngineError) in try MaxUnpoolingKernel(context) },
    ]

    static func make(_ context: OperatorContext, code: OperatorCode) throws(EngineError) -> any Kernel {
        if code.builtin == .custom {
            guard let factory = customOperators[code.customCode ?? ""] else {
                throw context.unsupported("custom operator '\(code.customCode ?? "")' is not implemented")
            }
            return try factory(context)
        }
        if context.isQuantized || code.builtin == .quantize {
            return try quantized(context, code.builtin)
        }
        return try float(context, code.builtin)
    }

    /// Kernels for uint8 and int8 tensors.
    private static func quantized(_ context: OperatorContext, _ op: BuiltinOperator) throws(EngineError) -> any Kernel {
        switch op {
        case .conv2D: return try QuantizedConv2DKernel(context)
        case .depthwiseConv2D: return try QuantizedDepthwiseConv2DKernel(context)
        case .fullyConnected: return try QuantizedFullyConnectedKernel(context)
        case .add: return try QuantizedAddKernel(context, operation: .add)
        case .sub: return try QuantizedAddKernel(context, operation: .subtract)
        case .mul: return try QuantizedMultiplyKernel(context)
        case .averagePool2D: return try QuantizedAveragePoolKernel(context)
        case .maxPool2D: return try QuantizedMaxPoolKernel(context)
        case .mean: return try QuantizedMeanKernel(context)
        case .softmax: return try QuantizedSoftmaxKernel(context)
        case .logistic: return try QuantizedLookupKernel(context, function: .logistic)
        case .tanh: return try QuantizedLookupKernel(context, function: .tanh)
        case .relu: return try QuantizedLookupKernel(context, clamp: .relu)
        case .relu6: return try QuantizedLookupKernel(context, clamp: .relu6)
        case .reluN1To1: return try QuantizedLookupKernel(context, clamp: .reluN1To1)
        case .hardSwish: return try QuantizedLookupKernel(hardSwish: context)
        case .concatenation: return try ConcatenationKernel(context)
        case .pad, .padV2: return try PadKernel(context)
        case .resizeBilinear: return try QuantizedResizeBilinearKernel(context)
        case .quantize: return try QuantizeKernel(context)
        case .dequantize: return try DequantizeKernel(context)
        // Operators that only move elements take any element type; TFLite requires their input's quantization on
        // the output.
        case .reshape, .squeeze, .expandDims: return try CopyKernel(context)
        case .gather: return try GatherKernel(context)
        case .unpack: return try UnpackKernel(context)
        case .split: return try SplitKernel(context, variable: false)
        case .splitV: return try SplitKernel(context, variable: true)
        case .stridedSlice: return try StridedSliceKernel(context)
        case .transpose: return try TransposeKernel(context)
        case .resizeNearestNeighbor: return try ResizeNearestNeighborKernel(context)
        case .depthToSpace: return try DepthToSpaceKernel(context)
        default:
            throw context.unsupported("no kernel for \(context.type(try context.input(0)).name) tensors")
        }
    }

    private static func float(_ context: OperatorContext, _ op: BuiltinOperator) throws(EngineError) -> any Kernel {
        switch op {
        case .conv2D: return try Conv2DKernel(context)
        case .depthwiseConv2D: return try DepthwiseConv2DKernel(context)
        case .fullyConnected: return try FullyConnectedKernel(context)
        case .add: return try ElementwiseBinaryKernel(context, operation: .add)
        case .sub: return try ElementwiseBinaryKernel(context, operation: .subtract)
        case .mul: return try ElementwiseBinaryKernel(context, operation: .multiply)
        case .div: return try ElementwiseBinaryKernel(context, operation: .divide)
        case .maximum: return try ElementwiseBinaryKernel(context, operation: .maximum)
        case .minimum: return try ElementwiseBinaryKernel(context, operation: .minimum)
        case .squaredDifference: return try ElementwiseBinaryKernel(context, operation: .squaredDifference)
        case .pow: return try ElementwiseBinaryKernel(context, operation: .power)
        case .prelu: return try ElementwiseBinaryKernel(context, operation: .preluAlpha)
        case .relu: return try ElementwiseUnaryKernel(context, function: .relu)
        case .relu6: return try ElementwiseUnaryKernel(context, function: .relu6)
        case .reluN1To1: return try ElementwiseUnaryKernel(context, function: .reluMinus1To1)
        case .logistic: return try ElementwiseUnaryKernel(context, function: .logistic)
        case .tanh: return try ElementwiseUnaryKernel(context, function: .tanh)
        case .hardSwish: return try ElementwiseUnaryKernel(context, function: .hardSwish)
        case .neg: return try ElementwiseUnaryKernel(context, function: .negate)
        case .abs: return try ElementwiseUnaryKernel(context, function: .absolute)
        case .sqrt: return try ElementwiseUnaryKernel(context, function: .squareRoot)
        case .rsqrt: return try ElementwiseUnaryKernel(context, function: .reciprocalSquareRoot)
        case .exp: return try ElementwiseUnaryKernel(context, function: .exponential)
        case .log: return try ElementwiseUnaryKernel(context, function: .logarithm)
        case .square: return try ElementwiseUnaryKernel(context, function: .square)
        case .maxPool2D: return try Pooling2DKernel(context, mode: .maximum)
        case .averagePool2D: return try Pooling2DKernel(context, mode: .average)
        case .pad, .padV2: return try PadKernel(context)
        case .reshape, .squeeze, .expandDims: return try CopyKernel(context)
        case .concatenation: return try ConcatenationKernel(context)
        case .resizeBilinear: return try ResizeBilinearKernel(context)
        case .resizeNearestNeighbor: return try ResizeNearestNeighborKernel(context)
        case .depthToSpace: return try DepthToSpaceKernel(context)
        case .mean: return try ReduceKernel(context, operation: .mean)
        case .sum: return try ReduceKernel(context, operation: .sum)
        case .reduceMax: return try ReduceKernel(context, operation: .maximum)
        case .reduceMin: return try ReduceKernel(context, operation: .minimum)
        case .reduceProd: return try ReduceKernel(context, operation: .product)
        case .softmax: return try SoftmaxKernel(context)
        case .gather: return try GatherKernel(context)
        case .unpack: return try UnpackKernel(context)
        // SPLIT's input 0 is its axis, so a quantized SPLIT comes here too; the kernel moves any element type.
        case .split: return try SplitKernel(context, variable: false)
        case .splitV: return try SplitKernel(context, variable: true)
        case .stridedSlice: return try StridedSliceKernel(context)
        case .transpose: return try TransposeKernel(context)
        // Input 0 is the output shape, so a quantized TRANSPOSE_CONV comes here too: its data is input 2.
        case .transposeConv:
            if context.hasInput(2), context.type(try context.input(2)).isQuantizedInteger {
                return try QuantizedTransposeConvolutionKernel(context)
            }
            return try TransposeConvolutionBiasKernel(builtin: context)
        case .dequantize: return try DequantizeKernel(context)
        case .densify: return try DensifyKernel(context)
        default: throw context.unsupported("not implemented")
        }
    }
}
