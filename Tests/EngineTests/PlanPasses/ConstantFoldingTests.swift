@testable import VisionTasksEngine
import VisionTasksModelMutation
import XCTest

/// ``ConstantFolding``: operators on constants — the file's or folded ones — run at load and leave the plan.
final class ConstantFoldingTests: XCTestCase {
    typealias G = PlanTestGraphs

    /// c = a + b and c2 = c + c from constants, then y = x + c2 at run time.
    static func foldableChain() -> TFLiteBuilder {
        var b = TFLiteBuilder()
        let a = b.constant("a", floats: [1, 2, 3, 4]), bb = b.constant("b", floats: [10, 20, 30, 40])
        let c = b.tensor("c", .float32, [4]), c2 = b.tensor("c2", .float32, [4])
        let x = b.tensor("x", .float32, [4]), y = b.tensor("y", .float32, [4])
        b.op(G.add, inputs: [a, bb], outputs: [c], optionsType: G.addOptions, options: [:])
        b.op(G.add, inputs: [c, c], outputs: [c2], optionsType: G.addOptions, options: [:])
        b.op(G.add, inputs: [x, c2], outputs: [y], optionsType: G.addOptions, options: [:])
        (b.inputs, b.outputs) = ([x], [y])
        return b
    }

    func testOperatorsOnConstantsAreFoldedInOrder() throws {
        var plan = try G.lowered(Self.foldableChain())
        var budget = MemoryBudget(limit: 1 << 20)
        try ConstantFolding.run(&plan, budget: &budget)
        XCTAssertEqual(plan.foldedCount, 2)
        XCTAssertEqual(plan.nodes.map(\.operatorIndex), [2], "only y = x + c2 runs")
        XCTAssertEqual(plan.constants.floats(2), [11, 22, 33, 44])
        XCTAssertEqual(plan.constants.floats(3), [22, 44, 66, 88], "c2 folds from the folded c")
        XCTAssertFalse(plan.constants.contains(4), "x stays an activation")
        XCTAssertEqual(budget.charged, 32, "two folded outputs of four floats")
    }

    func testAFoldPastTheBudgetIsATypedError() throws {
        var plan = try G.lowered(Self.foldableChain())
        var budget = MemoryBudget(limit: 20)
        XCTAssertThrowsError(try ConstantFolding.run(&plan, budget: &budget)) { error in
            guard case let .resourceLimit(what, bytes, limit) = error as? EngineError else { return XCTFail("\(error)") }
            XCTAssertTrue(what.contains("folded constant 'c2' of operator 1 (ADD)"), what)
            XCTAssertEqual(bytes, 32)
            XCTAssertEqual(limit, 20)
        }
    }

    /// A folded custom operator whose outputs the file leaves without a shape: they are allocated at the shapes its
    /// kernel computes (the plan used to allocate one element each, and the fold wrote past it).
    func testAFoldedOperatorsOutputsTakeTheShapesItsKernelComputes() throws {
        var options = HostileModelTests.hugeDetectionOptions
        let maxDetections = try XCTUnwrap(options.firstRange(of: [255, 255, 255, 127]))
        options.replaceSubrange(maxDetections, with: [2, 0, 0, 0])
        var b = TFLiteBuilder()
        let boxes = b.constant("boxes", floats: [0, 0, 0, 0, 1, 1, 0, 0], shape: [1, 2, 4])
        let scores = b.constant("scores", floats: [0, 0.9, 0, 0.8], shape: [1, 2, 2])
        let anchors = b.constant("anchors", floats: [0.5, 0.5, 1, 1, 0.2, 0.2, 1, 1], shape: [2, 4])
        let outputs = (0..<4).map { b.tensor("out\($0)", .float32, []) }
        b.op(HostileModelTests.custom, custom: "TFLite_Detection_PostProcess", inputs: [boxes, scores, anchors],
             outputs: outputs, customOptions: options)
        (b.inputs, b.outputs) = ([], outputs)
        let plan = try ExecutionPlan(model: G.model(b))
        XCTAssertEqual(plan.foldedOperatorCount, 1)
        let shapes = outputs.map { plan.shape(of: Int($0)) }
        XCTAssertEqual(shapes, [[1, 4, 4], [1, 4], [1, 4], [1]])
        for (output, shape) in zip(outputs, shapes) {
            XCTAssertEqual(plan.constants.entries[Int(output)]?.byteCount, 4 * shape.reduce(1, *))
        }
    }

    func testFoldedValuesReachTheRun() throws {
        let plan = try ExecutionPlan(model: G.model(Self.foldableChain()))
        XCTAssertEqual(plan.foldedOperatorCount, 2)
        XCTAssertEqual(plan.runtimeOperatorCount, 1)
        let interpreter = Interpreter(plan: plan, threads: 1)
        try interpreter.setInput(0, floats: [1, 1, 1, 1])
        interpreter.invoke()
        XCTAssertEqual(try interpreter.outputFloats(0), [23, 45, 67, 89])
    }
}
