import VisionTasksModelFormat

/// Maps an operator to its prepared kernel; the one place that knows which operators we run.
enum KernelRegistry {
    static func make(_ context: OperatorContext, code: OperatorCode) throws(EngineError) -> any Kernel {
        if code.builtin == .custom {
            switch code.customCode {
            case "Convolution2DTransposeBias": return try TransposeConvolutionBiasKernel(context)
            default: throw context.unsupported("custom operator '\(code.customCode ?? "")' is not implemented")
            }
        }
        switch code.builtin.name {
        case "CONV_2D": return try Conv2DKernel(context)
        case "DEPTHWISE_CONV_2D": return try DepthwiseConv2DKernel(context)
        case "FULLY_CONNECTED": return try FullyConnectedKernel(context)
        case "ADD": return try ElementwiseBinaryKernel(context, operation: .add)
        case "SUB": return try ElementwiseBinaryKernel(context, operation: .subtract)
        case "MUL": return try ElementwiseBinaryKernel(context, operation: .multiply)
        case "DIV": return try ElementwiseBinaryKernel(context, operation: .divide)
        case "MAXIMUM": return try ElementwiseBinaryKernel(context, operation: .maximum)
        case "MINIMUM": return try ElementwiseBinaryKernel(context, operation: .minimum)
        case "SQUARED_DIFFERENCE": return try ElementwiseBinaryKernel(context, operation: .squaredDifference)
        case "POW": return try ElementwiseBinaryKernel(context, operation: .power)
        case "PRELU": return try ElementwiseBinaryKernel(context, operation: .preluAlpha)
        case "RELU": return try ElementwiseUnaryKernel(context, function: .relu)
        case "RELU6": return try ElementwiseUnaryKernel(context, function: .relu6)
        case "RELU_N1_TO_1": return try ElementwiseUnaryKernel(context, function: .reluMinus1To1)
        case "LOGISTIC": return try ElementwiseUnaryKernel(context, function: .logistic)
        case "TANH": return try ElementwiseUnaryKernel(context, function: .tanh)
        case "HARD_SWISH": return try ElementwiseUnaryKernel(context, function: .hardSwish)
        case "NEG": return try ElementwiseUnaryKernel(context, function: .negate)
        case "ABS": return try ElementwiseUnaryKernel(context, function: .absolute)
        case "SQRT": return try ElementwiseUnaryKernel(context, function: .squareRoot)
        case "RSQRT": return try ElementwiseUnaryKernel(context, function: .reciprocalSquareRoot)
        case "EXP": return try ElementwiseUnaryKernel(context, function: .exponential)
        case "LOG": return try ElementwiseUnaryKernel(context, function: .logarithm)
        case "SQUARE": return try ElementwiseUnaryKernel(context, function: .square)
        case "MAX_POOL_2D": return try Pooling2DKernel(context, mode: .maximum)
        case "AVERAGE_POOL_2D": return try Pooling2DKernel(context, mode: .average)
        case "PAD", "PADV2": return try PadKernel(context)
        case "RESHAPE", "SQUEEZE", "EXPAND_DIMS": return try CopyKernel(context)
        case "CONCATENATION": return try ConcatenationKernel(context)
        case "RESIZE_BILINEAR": return try ResizeBilinearKernel(context)
        case "DEPTH_TO_SPACE": return try DepthToSpaceKernel(context)
        case "MEAN": return try ReduceKernel(context, operation: .mean)
        case "SUM": return try ReduceKernel(context, operation: .sum)
        case "REDUCE_MAX": return try ReduceKernel(context, operation: .maximum)
        case "REDUCE_MIN": return try ReduceKernel(context, operation: .minimum)
        case "REDUCE_PROD": return try ReduceKernel(context, operation: .product)
        case "SOFTMAX": return try SoftmaxKernel(context)
        case "GATHER": return try GatherKernel(context)
        case "UNPACK": return try UnpackKernel(context)
        case "STRIDED_SLICE": return try StridedSliceKernel(context)
        case "TRANSPOSE": return try TransposeKernel(context)
        case "DEQUANTIZE": return try DequantizeKernel(context)
        case "DENSIFY": return try DensifyKernel(context)
        default: throw context.unsupported("not implemented")
        }
    }
}
