@testable import VisionTasksEngine
import VisionTasksModelMutation
import XCTest

/// ``PadFusion``: a zero PAD of height and width read only by convolutions goes, and they read its input.
final class PadFusionTests: XCTestCase {
    typealias G = PlanTestGraphs

    /// x [1,4,4,2] → PAD (1 row and column each side) → p [1,6,6,2] → 3×3 VALID CONV_2D → y [1,4,4,3]; with
    /// `channelPadding`, the PAD also appends a channel (and the convolution's filter is one channel deeper).
    static func padThenConvolution(paddedIsOutput: Bool = false, channelPadding: Int32 = 0) -> TFLiteBuilder {
        var b = TFLiteBuilder()
        let depth = 2 + channelPadding
        let x = b.tensor("x", .float32, [1, 4, 4, 2])
        let paddings = b.constant("paddings", int32s: [0, 0, 1, 1, 1, 1, 0, channelPadding], shape: [4, 2])
        let p = b.tensor("p", .float32, [1, 6, 6, depth])
        b.op(G.pad, inputs: [x, paddings], outputs: [p])
        let w = b.constant("w", floats: G.values(3 * 9 * Int(depth), seed: 7), shape: [3, 3, 3, depth])
        let bias = b.constant("bias", floats: [0.5, -0.25, 0.125])
        let y = b.tensor("y", .float32, [1, 4, 4, 3])
        b.op(G.conv2D, inputs: [p, w, bias], outputs: [y], optionsType: G.conv2DOptions, options: G.convolutionOptions())
        (b.inputs, b.outputs) = ([x], paddedIsOutput ? [y, p] : [y])
        return b
    }

    func testZeroSpatialPadIsReadThroughByTheConvolution() throws {
        var plan = try G.lowered(Self.padThenConvolution())
        PadFusion.run(&plan)
        XCTAssertEqual(G.names(plan), ["CONV_2D"])
        XCTAssertEqual(plan.fused, [0])
        let convolution = try XCTUnwrap(plan.nodes.first?.single)
        XCTAssertEqual(convolution.index, 1)
        XCTAssertEqual(convolution.inputs[0], 0, "the convolution reads x, not the padded tensor")
        XCTAssertEqual(plan.nodes[0].inputs, [0, 3, 4])
        let padding = try XCTUnwrap(convolution.inputPadding)
        XCTAssertEqual([padding.top, padding.left, padding.bottom, padding.right], [1, 1, 1, 1])
    }

    func testPadStaysWhenItsOutputIsAGraphOutputOrItPadsChannels() throws {
        for builder in [Self.padThenConvolution(paddedIsOutput: true), Self.padThenConvolution(channelPadding: 1)] {
            var plan = try G.lowered(builder)
            PadFusion.run(&plan)
            XCTAssertEqual(G.names(plan), ["PAD", "CONV_2D"])
            XCTAssertEqual(plan.fused, [])
            XCTAssertNil(plan.nodes[1].single?.inputPadding)
        }
    }

    /// The fused convolution treats the padding as zeros: the same bits as convolving the padded tensor.
    func testFusedPadGivesTheBitsOfThePaddedConvolution() throws {
        let fused = try ExecutionPlan(model: G.model(Self.padThenConvolution()))
        XCTAssertEqual(fused.runtimeOperatorCount, 1)
        XCTAssertEqual(try G.outputBits(Self.padThenConvolution()), try G.outputBits(Self.padThenConvolution(paddedIsOutput: true)))
    }
}
