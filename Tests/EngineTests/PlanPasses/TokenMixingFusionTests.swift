@testable import VisionTasksEngine
import VisionTasksModelMutation
import XCTest

/// ``TokenMixingFusion``: TRANSPOSE → CONV_2D → CONV_2D → TRANSPOSE becomes one node, and one kernel where ours
/// are the fast GEMM.
final class TokenMixingFusionTests: XCTestCase {
    typealias G = PlanTestGraphs

    /// 6 tokens × 16 channels, mixed through 8 hidden: x [1,1,6,16] → [1,1,16,6] → [1,1,16,8] → [1,1,16,6] → y. More
    /// than 4 output channels each, so that neither convolution alone takes the direct path for few outputs, which
    /// sums in another order than the GEMM.
    static func tokenMixer(hiddenIsOutput: Bool = false) -> TFLiteBuilder {
        var b = TFLiteBuilder()
        let x = b.tensor("x", .float32, [1, 1, 6, 16]), perm = b.constant("perm", int32s: [0, 1, 3, 2])
        let t = b.tensor("t", .float32, [1, 1, 16, 6]), h = b.tensor("h", .float32, [1, 1, 16, 8])
        let u = b.tensor("u", .float32, [1, 1, 16, 6]), y = b.tensor("y", .float32, [1, 1, 6, 16])
        let w1 = b.constant("w1", floats: G.values(48, seed: 1), shape: [8, 1, 1, 6]), b1 = b.constant("b1", floats: G.values(8, seed: 2))
        let w2 = b.constant("w2", floats: G.values(48, seed: 5), shape: [6, 1, 1, 8]), b2 = b.constant("b2", floats: G.values(6, seed: 6))
        b.op(G.transpose, inputs: [x, perm], outputs: [t])
        b.op(G.conv2D, inputs: [t, w1, b1], outputs: [h], optionsType: G.conv2DOptions, options: G.convolutionOptions(activation: 1))
        b.op(G.conv2D, inputs: [h, w2, b2], outputs: [u], optionsType: G.conv2DOptions, options: G.convolutionOptions())
        b.op(G.transpose, inputs: [u, perm], outputs: [y])
        (b.inputs, b.outputs) = ([x], hiddenIsOutput ? [y, h] : [y])
        return b
    }

    func testTheFourOperatorsBecomeOneNode() throws {
        let plan = try G.rewritten(Self.tokenMixer())
        XCTAssertEqual(G.names(plan), ["TRANSPOSE+CONV_2D+CONV_2D+TRANSPOSE"])
        guard case .tokenMixing = plan.nodes[0].fusion else { return XCTFail("\(plan.nodes[0].fusion)") }
        XCTAssertEqual(plan.nodes[0].inputs, [0, 1])
        XCTAssertEqual(plan.nodes[0].outputs, [5])
    }

    func testAnIntermediateGraphOutputKeepsThemApart() throws {
        XCTAssertEqual(G.names(try G.rewritten(Self.tokenMixer(hiddenIsOutput: true))), ["TRANSPOSE", "CONV_2D", "CONV_2D", "TRANSPOSE"])
    }

    /// One kernel where our SIMD8 tiles are the fast GEMM, the four kernels otherwise; the same bits either way.
    func testKernelBuildingMakesOneStepWithTheSameBits() throws {
        var plan = try G.rewritten(Self.tokenMixer())
        let built = try KernelBuilding.run(&plan)
        if ownGEMMKernelsAreFast {
            XCTAssertEqual(built.steps.count, 1)
            XCTAssertTrue(built.steps[0].kernel is TokenMixingKernel)
            XCTAssertEqual(built.fused, [1, 2, 3])
        } else {
            XCTAssertEqual(built.steps.map(\.name), ["TRANSPOSE", "CONV_2D", "CONV_2D", "TRANSPOSE"])
            XCTAssertEqual(built.fused, [])
        }
        XCTAssertEqual(try G.outputBits(Self.tokenMixer()), try G.outputBits(Self.tokenMixer(hiddenIsOutput: true)))
    }
}
