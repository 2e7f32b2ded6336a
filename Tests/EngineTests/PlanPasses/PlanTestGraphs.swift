@testable import VisionTasksEngine
import VisionTasksModelFormat
import VisionTasksModelMutation
import Foundation
import XCTest

/// Tiny graphs for the plan's pass tests, built in code, and what the tests need to look at them: the lowered
/// ``PlanGraph``, the passes run up to a point, and a whole run's output bits.
enum PlanTestGraphs {
    // Builtin operator codes and option union tags of TFLite's schema.fbs.
    static let add: Int32 = 0, conv2D: Int32 = 3, mul: Int32 = 18, relu: Int32 = 19, pad: Int32 = 34, transpose: Int32 = 39
    static let logistic: Int32 = 14, tanh: Int32 = 28, mean: Int32 = 40, prelu: Int32 = 54, neg: Int32 = 59, rsqrt: Int32 = 76, squaredDifference: Int32 = 99
    static let conv2DOptions: UInt8 = 1, addOptions: UInt8 = 11, mulOptions: UInt8 = 21, reducerOptions: UInt8 = 27

    /// A VALID (or SAME) convolution of stride 1 with `activation` (a FusedActivation raw value).
    static func convolutionOptions(same: Bool = false, activation: UInt8 = 0) -> [Int: TFLiteBuilder.Field] {
        [0: .int8(same ? 0 : 1), 1: .int32(1), 2: .int32(1), 3: .uint8(activation)]
    }

    /// Deterministic values in (-1, 1), different for each `seed`.
    static func values(_ count: Int, seed: Int) -> [Float] {
        (0..<count).map { Float(sin(Double($0 * 7 + seed * 131 + 1) * 0.37)) }
    }

    static func model(_ builder: TFLiteBuilder) throws -> TFLiteModel {
        try TFLiteModel(bytes: ByteStorage(copying: builder.build()).slice)
    }

    static func lowered(_ builder: TFLiteBuilder) throws -> PlanGraph { try PlanGraph(model: model(builder)) }

    /// The plan graph after every pass before kernel building.
    static func rewritten(_ builder: TFLiteBuilder) throws -> PlanGraph {
        var plan = try lowered(builder)
        var budget = MemoryBudget(limit: ExecutionPlan.defaultMemoryBudget)
        PadFusion.run(&plan)
        try ConstantFolding.run(&plan, budget: &budget)
        EpilogueFusion.run(&plan)
        TokenMixingFusion.run(&plan)
        LayerNormalizationFusion.run(&plan)
        return plan
    }

    /// The bits of output 0 after one invoke on `inputs`, each input filled with ``values(_:seed:)``.
    static func outputBits(_ builder: TFLiteBuilder, threads: Int = 1, kernels: KernelConfig = .compiled) throws -> [UInt32] {
        let interpreter = try Interpreter(plan: ExecutionPlan(model: model(builder), kernels: kernels), threads: threads)
        for (index, input) in interpreter.inputs.enumerated() {
            try interpreter.setInput(index, floats: values(input.elementCount, seed: index))
        }
        interpreter.invoke()
        return try interpreter.outputFloats(0).map(\.bitPattern)
    }

    static func names(_ plan: PlanGraph) -> [String] { plan.nodes.map(\.name) }
}
