@testable import VisionTasksEngine
import VisionTasksModelMutation
import XCTest

/// ``EpilogueFusion``: a convolution takes the residual ADD, clamp and PReLU after it as its epilogue.
final class EpilogueFusionTests: XCTestCase {
    typealias G = PlanTestGraphs

    static let alpha: [Float] = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]

    /// x [1,2,2,4] → 1×1 CONV_2D → c [1,2,2,8]; s = c + r; t = RELU(s); y = PRELU(t, α).
    static func residualBlock(convolutionIsOutput: Bool = false) -> TFLiteBuilder {
        var b = TFLiteBuilder()
        let x = b.tensor("x", .float32, [1, 2, 2, 4]), r = b.tensor("r", .float32, [1, 2, 2, 8])
        let w = b.constant("w", floats: G.values(32, seed: 3), shape: [8, 1, 1, 4])
        let bias = b.constant("bias", floats: G.values(8, seed: 4))
        let c = b.tensor("c", .float32, [1, 2, 2, 8]), s = b.tensor("s", .float32, [1, 2, 2, 8])
        let t = b.tensor("t", .float32, [1, 2, 2, 8]), y = b.tensor("y", .float32, [1, 2, 2, 8])
        let alpha = b.constant("alpha", floats: Self.alpha)
        b.op(G.conv2D, inputs: [x, w, bias], outputs: [c], optionsType: G.conv2DOptions, options: G.convolutionOptions())
        b.op(G.add, inputs: [c, r], outputs: [s], optionsType: G.addOptions, options: [:])
        b.op(G.relu, inputs: [s], outputs: [t])
        b.op(G.prelu, inputs: [t, alpha], outputs: [y])
        (b.inputs, b.outputs) = ([x, r], convolutionIsOutput ? [y, c] : [y])
        return b
    }

    func testAddReluAndPReLUBecomeTheConvolutionsEpilogue() throws {
        let plan = try G.rewritten(Self.residualBlock())
        XCTAssertEqual(G.names(plan), ["CONV_2D+ADD+RELU+PRELU"])
        let node = plan.nodes[0]
        XCTAssertEqual(node.operators.map(\.index), [0, 1, 2, 3])
        XCTAssertEqual(node.inputs, [0, 2, 3, 1], "x, the weights, the bias, then the residual r")
        XCTAssertEqual(node.outputs, [7])
        guard case let .epilogue(epilogue, output) = node.fusion else { return XCTFail("\(node.fusion)") }
        XCTAssertEqual(output, 7)
        XCTAssertEqual(epilogue.addend, 1)
        XCTAssertNil(epilogue.addendChannels)
        XCTAssertEqual(epilogue.clamp, .relu)
        XCTAssertEqual(epilogue.alpha, Self.alpha + Array(repeating: 0, count: 8), "slopes padded to a panel of 16")
    }

    func testNothingFusesWhenTheConvolutionsOutputIsAGraphOutput() throws {
        let plan = try G.rewritten(Self.residualBlock(convolutionIsOutput: true))
        XCTAssertEqual(G.names(plan), ["CONV_2D", "ADD", "RELU", "PRELU"])
    }

    /// The residual's writer comes after the convolution in the file but reads only a graph input: it moves
    /// before the convolution, which then takes the ADD.
    func testTheResidualsWriterMovesBeforeTheConvolution() throws {
        var b = TFLiteBuilder()
        let x = b.tensor("x", .float32, [1, 2, 2, 4]), r0 = b.tensor("r0", .float32, [1, 2, 2, 8])
        let w = b.constant("w", floats: G.values(32, seed: 3), shape: [8, 1, 1, 4])
        let c = b.tensor("c", .float32, [1, 2, 2, 8]), r = b.tensor("r", .float32, [1, 2, 2, 8])
        let y = b.tensor("y", .float32, [1, 2, 2, 8])
        b.op(G.conv2D, inputs: [x, w, -1], outputs: [c], optionsType: G.conv2DOptions, options: G.convolutionOptions())
        b.op(G.relu, inputs: [r0], outputs: [r])
        b.op(G.add, inputs: [r, c], outputs: [y], optionsType: G.addOptions, options: [0: .int8(3)])
        (b.inputs, b.outputs) = ([x, r0], [y])
        let plan = try G.rewritten(b)
        XCTAssertEqual(G.names(plan), ["RELU", "CONV_2D+ADD"])
        guard case let .epilogue(epilogue, output) = plan.nodes[1].fusion else { return XCTFail("\(plan.nodes[1].fusion)") }
        XCTAssertEqual(epilogue.addend, Int(r))
        XCTAssertEqual(output, Int(y))
        XCTAssertEqual(epilogue.clamp, .relu6, "the ADD's own activation")
        let executionPlan = try ExecutionPlan(model: G.model(b))
        XCTAssertEqual(executionPlan.steps.map(\.operatorIndex), [1, 0])
        XCTAssertEqual(executionPlan.fusedOperators, [2])
    }

    /// x → 1×1 CONV_2D → c [1,2,2,8]; y = c + PAD(r [1,2,2,6], two zero channels appended); with `paddedIsOutput`
    /// the padded residual is also a graph output, which keeps the PAD.
    static func channelPaddedResidual(paddedIsOutput: Bool = false) -> TFLiteBuilder {
        var b = TFLiteBuilder()
        let x = b.tensor("x", .float32, [1, 2, 2, 4]), r = b.tensor("r", .float32, [1, 2, 2, 6])
        let w = b.constant("w", floats: G.values(32, seed: 8), shape: [8, 1, 1, 4])
        let paddings = b.constant("paddings", int32s: [0, 0, 0, 0, 0, 0, 0, 2], shape: [4, 2])
        let c = b.tensor("c", .float32, [1, 2, 2, 8]), padded = b.tensor("padded", .float32, [1, 2, 2, 8])
        let y = b.tensor("y", .float32, [1, 2, 2, 8])
        b.op(G.conv2D, inputs: [x, w, -1], outputs: [c], optionsType: G.conv2DOptions, options: G.convolutionOptions())
        b.op(G.pad, inputs: [r, paddings], outputs: [padded])
        b.op(G.add, inputs: [c, padded], outputs: [y], optionsType: G.addOptions, options: [0: .int8(1)])
        (b.inputs, b.outputs) = ([x, r], paddedIsOutput ? [y, padded] : [y])
        return b
    }

    /// BlazeFace's widening residual: the epilogue adds the PAD's input to the first channels and the PAD goes.
    func testAResidualWidenedByZeroChannelsIsAddedWithoutThePad() throws {
        let plan = try G.rewritten(Self.channelPaddedResidual())
        XCTAssertEqual(G.names(plan), ["CONV_2D+PAD+ADD"])
        guard case let .epilogue(epilogue, output) = plan.nodes[0].fusion else { return XCTFail("\(plan.nodes[0].fusion)") }
        XCTAssertEqual(epilogue.addend, 1, "r, not the padded tensor")
        XCTAssertEqual(epilogue.addendChannels, 6)
        XCTAssertEqual(epilogue.clamp, .relu)
        XCTAssertEqual(output, 6)
        // A padded residual that escapes stays; the ADD still fuses, reading it whole, and the PAD moves first.
        XCTAssertEqual(G.names(try G.rewritten(Self.channelPaddedResidual(paddedIsOutput: true))), ["PAD", "CONV_2D+ADD"])
        XCTAssertEqual(try G.outputBits(Self.channelPaddedResidual()), try G.outputBits(Self.channelPaddedResidual(paddedIsOutput: true)))
    }

    /// The pass matches operators before any kernel exists: an operator it takes in is still checked by its own
    /// kernel, so a crafted residual of another type is a typed error, as before the fusion.
    func testAnOperatorTakenIntoTheEpilogueIsStillChecked() throws {
        var b = Self.residualBlock()
        b.tensors[1][1] = .int8(1)  // r: float16
        var plan = try G.rewritten(b)
        XCTAssertEqual(G.names(plan), ["CONV_2D+ADD+RELU+PRELU"])
        XCTAssertThrowsError(try KernelBuilding.run(&plan)) { error in
            guard case let .unsupportedOperator(name, index, reason) = error as? EngineError else { return XCTFail("\(error)") }
            XCTAssertEqual([name, "\(index)"], ["ADD", "1"])
            XCTAssertTrue(reason.contains("float16 tensor 'r'"), reason)
        }
    }

    /// x [1,h,w,cin] → k×k SAME CONV_2D → c [1,h,w,cout] → TANH → y, or with `swish` → LOGISTIC → s, y = MUL(c, s)
    /// (`sigmoidFirst`: MUL(s, c)); with `convolutionIsOutput` c is a graph output too, which keeps the rest apart.
    static func convolutionThenFunction(size: Int, inputChannels: Int, outputChannels: Int, filter: Int, swish: Bool = false,
                                        sigmoidFirst: Bool = false, convolutionIsOutput: Bool = false) -> TFLiteBuilder {
        var b = TFLiteBuilder()
        let (n, i, o, f) = (Int32(size), Int32(inputChannels), Int32(outputChannels), Int32(filter))
        let x = b.tensor("x", .float32, [1, n, n, i])
        let w = b.constant("w", floats: G.values(outputChannels * filter * filter * inputChannels, seed: 5).map { $0 * 0.5 },
                           shape: [o, f, f, i])
        let bias = b.constant("bias", floats: G.values(outputChannels, seed: 6))
        let c = b.tensor("c", .float32, [1, n, n, o]), y = b.tensor("y", .float32, [1, n, n, o])
        b.op(G.conv2D, inputs: [x, w, bias], outputs: [c], optionsType: G.conv2DOptions, options: G.convolutionOptions(same: true))
        if swish {
            let s = b.tensor("s", .float32, [1, n, n, o])
            b.op(G.logistic, inputs: [c], outputs: [s])
            b.op(G.mul, inputs: sigmoidFirst ? [s, c] : [c, s], outputs: [y], optionsType: G.mulOptions, options: [:])
        } else {
            b.op(G.tanh, inputs: [c], outputs: [y])
        }
        (b.inputs, b.outputs) = ([x], convolutionIsOutput ? [y, c] : [y])
        return b
    }

    /// ESPCN's pattern (TANH) and YOLO's (SiLU). Every way the float convolution runs — im2col chunks (3 × 3), windows
    /// read in place (3 × 3 over rows of 70 pixels, a partial panel), the pointwise bands (1 × 1 over many pixels), threads over panels (1 × 1 over few pixels, many channels), the direct
    /// dot products (≤ 4 outputs over multiples of 8), the RGB stem, and a build without optimization (OpenBLAS and
    /// the C epilogue) — gives the separate operators' bits, at one and two threads.
    func testATanhAfterAConvolutionIsItsEpilogueWithTheSameBits() throws {
        try checkFunctionEpilogue(swish: false, names: ["CONV_2D+TANH"], apart: ["CONV_2D", "TANH"], function: .tanh)
    }

    func testASiLUAfterAConvolutionIsItsEpilogueWithTheSameBits() throws {
        try checkFunctionEpilogue(swish: true, names: ["CONV_2D+LOGISTIC+MUL"], apart: ["CONV_2D", "LOGISTIC", "MUL"], function: .swish)
        let plan = try G.rewritten(Self.convolutionThenFunction(size: 5, inputChannels: 4, outputChannels: 8, filter: 3, swish: true,
                                                                sigmoidFirst: true))
        XCTAssertEqual(G.names(plan), ["CONV_2D+LOGISTIC+MUL"], "MUL(sigmoid, x)")
        XCTAssertEqual(try G.outputBits(Self.convolutionThenFunction(size: 9, inputChannels: 8, outputChannels: 16, filter: 3, swish: true,
                                                                     sigmoidFirst: true)),
                       try G.outputBits(Self.convolutionThenFunction(size: 9, inputChannels: 8, outputChannels: 16, filter: 3, swish: true,
                                                                     convolutionIsOutput: true)))
        // A MUL that does not multiply the convolution by its own sigmoid is no SiLU: x · sigmoid(x) squared is not.
        var b = Self.convolutionThenFunction(size: 5, inputChannels: 4, outputChannels: 8, filter: 3, swish: true)
        b.operators[2][1] = .int32s([5, 5])  // MUL(s, s): tensors x, w, bias, c, y, s
        XCTAssertEqual(G.names(try G.rewritten(b)), ["CONV_2D", "LOGISTIC", "MUL"])
    }

    private func checkFunctionEpilogue(swish: Bool, names: [String], apart apartNames: [String], function: EpilogueFunction) throws {
        let plan = try G.rewritten(Self.convolutionThenFunction(size: 5, inputChannels: 4, outputChannels: 8, filter: 3, swish: swish))
        XCTAssertEqual(G.names(plan), names)
        guard case let .epilogue(epilogue, _) = plan.nodes[0].fusion else { return XCTFail("\(plan.nodes[0].fusion)") }
        XCTAssertEqual(epilogue.function, function)
        XCTAssertEqual(G.names(try G.rewritten(Self.convolutionThenFunction(size: 5, inputChannels: 4, outputChannels: 8, filter: 3,
                                                                           swish: swish, convolutionIsOutput: true))), apartNames)
        let shapes: [(size: Int, inputChannels: Int, outputChannels: Int, filter: Int)] = [
            (40, 16, 27, 3), (40, 24, 40, 1), (4, 32, 96, 1), (40, 16, 3, 3), (40, 3, 16, 3), (24, 16, 32, 3), (70, 8, 24, 3)]
        for shape in shapes {
            let fused = Self.convolutionThenFunction(size: shape.size, inputChannels: shape.inputChannels,
                                                     outputChannels: shape.outputChannels, filter: shape.filter, swish: swish)
            let apart = Self.convolutionThenFunction(size: shape.size, inputChannels: shape.inputChannels, outputChannels: shape.outputChannels,
                                                     filter: shape.filter, swish: swish, convolutionIsOutput: true)
            for kernels in [KernelConfig.compiled, .withoutOptimization(tier: KernelConfig.compiledTier)] {
                XCTAssertEqual(try ExecutionPlan(model: G.model(fused), kernels: kernels).fusedOperators, swish ? [1, 2] : [1], "\(shape)")
                for threads in [1, 2] {
                    let bits = try G.outputBits(fused, threads: threads, kernels: kernels)
                    XCTAssertEqual(bits.count, shape.size * shape.size * shape.outputChannels)
                    XCTAssertEqual(bits, try G.outputBits(apart, threads: threads, kernels: kernels), "\(shape), \(threads) threads, \(kernels)")
                }
            }
        }
    }

    func testTheEpilogueGivesTheBitsOfTheSeparateOperators() throws {
        let plan = try ExecutionPlan(model: G.model(Self.residualBlock()))
        XCTAssertEqual(plan.runtimeOperatorCount, 1)
        XCTAssertEqual(plan.fusedOperators, [1, 2, 3])
        XCTAssertEqual(try G.outputBits(Self.residualBlock()), try G.outputBits(Self.residualBlock(convolutionIsOutput: true)))
    }
}
