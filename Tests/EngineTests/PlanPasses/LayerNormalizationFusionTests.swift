@testable import VisionTasksEngine
import VisionTasksModelMutation
import XCTest

/// ``LayerNormalizationFusion``: the converter's ten operators become one LAYER_NORM node.
final class LayerNormalizationFusionTests: XCTestCase {
    typealias G = PlanTestGraphs

    static let gamma = G.values(16, seed: 9)

    /// y = x · g + (−m) · g with m = mean(x), g = γ / √(mean((x − m)²) + ε), over the last axis of x [1,3,16].
    static func layerNormalization(scalingIsOutput: Bool = false, epsilonShape: [Int32] = [1]) -> TFLiteBuilder {
        var b = TFLiteBuilder()
        let x = b.tensor("x", .float32, [1, 3, 16]), axes = b.constant("axes", int32s: [-1])
        func row(_ name: String) -> Int32 { b.tensor(name, .float32, [1, 3, 1]) }
        func full(_ name: String) -> Int32 { b.tensor(name, .float32, [1, 3, 16]) }
        let m = row("m"), n = row("n"), d = full("d"), v = row("v"), ve = row("ve"), r = row("r")
        let g = full("g"), a = full("a"), shift = full("shift"), y = full("y")
        let epsilon = b.constant("epsilon", floats: Array(repeating: 1e-5, count: Int(epsilonShape.reduce(1, *))), shape: epsilonShape)
        let gamma = b.constant("gamma", floats: Self.gamma)
        let keepDims: [Int: TFLiteBuilder.Field] = [0: .bool(true)]
        b.op(G.mean, inputs: [x, axes], outputs: [m], optionsType: G.reducerOptions, options: keepDims)
        b.op(G.neg, inputs: [m], outputs: [n])
        b.op(G.squaredDifference, inputs: [x, m], outputs: [d])
        b.op(G.mean, inputs: [d, axes], outputs: [v], optionsType: G.reducerOptions, options: keepDims)
        b.op(G.add, inputs: [v, epsilon], outputs: [ve], optionsType: G.addOptions, options: [:])
        b.op(G.rsqrt, inputs: [ve], outputs: [r])
        b.op(G.mul, inputs: [r, gamma], outputs: [g], optionsType: G.mulOptions, options: [:])
        b.op(G.mul, inputs: [x, g], outputs: [a], optionsType: G.mulOptions, options: [:])
        b.op(G.mul, inputs: [n, g], outputs: [shift], optionsType: G.mulOptions, options: [:])
        b.op(G.add, inputs: [a, shift], outputs: [y], optionsType: G.addOptions, options: [:])
        (b.inputs, b.outputs) = ([x], scalingIsOutput ? [y, g] : [y])
        return b
    }

    func testTheTenOperatorsBecomeOneNode() throws {
        let plan = try G.rewritten(Self.layerNormalization())
        XCTAssertEqual(G.names(plan), ["LAYER_NORM"])
        XCTAssertEqual(plan.nodes[0].operators.map(\.index), Array(0..<10))
        XCTAssertEqual(plan.nodes[0].inputs, [0])
        XCTAssertEqual(plan.nodes[0].outputs, [11])
        guard case let .layerNormalization(epsilon, scale) = plan.nodes[0].fusion else { return XCTFail("\(plan.nodes[0].fusion)") }
        XCTAssertEqual(epsilon, 1e-5)
        XCTAssertEqual(scale, Self.gamma)
    }

    /// γ / √… read outside the pattern (a graph output), or an ε that is not a scalar: the operators stay.
    func testItStaysApartWhenAnIntermediateEscapesOrεIsNotAScalar() throws {
        for builder in [Self.layerNormalization(scalingIsOutput: true), Self.layerNormalization(epsilonShape: [1, 3, 1])] {
            let plan = try G.rewritten(builder)
            XCTAssertEqual(plan.nodes.count, 10, "\(G.names(plan))")
            XCTAssertFalse(plan.nodes.contains(where: \.isFused))
        }
    }

    func testTheFusedKernelGivesTheBitsOfTheTenOperators() throws {
        let plan = try ExecutionPlan(model: G.model(Self.layerNormalization()))
        XCTAssertEqual(plan.steps.map(\.name), ["LAYER_NORM"])
        let kernel = try XCTUnwrap(plan.steps[0].kernel as? LayerNormalizationKernel)
        XCTAssertEqual([kernel.input, kernel.output, kernel.rows, kernel.channels], [0, 11, 3, 16])
        XCTAssertEqual(plan.fusedOperators, Set(1..<10))
        XCTAssertEqual(try G.outputBits(Self.layerNormalization()), try G.outputBits(Self.layerNormalization(scalingIsOutput: true)))
    }
}
