@testable import VisionTasksEngine
import VisionTasksModelFormat
import XCTest

/// ``Liveness`` and ``MemoryPlanner``: activations' lifetimes over the steps, and arena offsets that never let two
/// tensors alive at once overlap.
final class LivenessAndMemoryTests: XCTestCase {
    typealias Access = Liveness.Access

    /// Tensors 0 (graph input), 1, 2, 3 (graph output) of 1000 floats; 4 a constant.
    let graph = GraphDescription(shapes: Array(repeating: [1000], count: 5), types: Array(repeating: .float32, count: 5),
                                 names: ["in", "a", "b", "out", "k"], quantization: Array(repeating: nil, count: 5),
                                 sparsity: Array(repeating: nil, count: 5))

    func lifetimes(_ steps: [Access]) throws -> [Int: ClosedRange<Int>] {
        let requests = try Liveness.requests(steps, graphInputs: [0], graphOutputs: [3], graph: graph, isConstant: { $0 == 4 })
        XCTAssertTrue(requests.allSatisfy { $0.bytes == 4000 })
        return Dictionary(uniqueKeysWithValues: requests.map { ($0.tensor, $0.first...$0.last) })
    }

    func testLifetimesRunFromTheFirstWriteToTheLastRead() throws {
        let steps = [Access(operatorIndex: 0, inputs: [0, 4], outputs: [1]), Access(operatorIndex: 1, inputs: [1], outputs: [2]),
                     Access(operatorIndex: 2, inputs: [2, 0], outputs: [3])]
        // The graph input lives to the end (a caller may invoke again without setting it), the output too; the
        // constant has no lifetime in the arena.
        XCTAssertEqual(try lifetimes(steps), [0: 0...3, 1: 0...1, 2: 1...2, 3: 2...3])
    }

    func testReadingBeforeAnyWriteOrWritingAConstantIsRefused() {
        XCTAssertThrowsError(try lifetimes([Access(operatorIndex: 7, inputs: [2], outputs: [3])])) { error in
            guard case let .invalidGraph(index, reason) = error as? EngineError else { return XCTFail("\(error)") }
            XCTAssertEqual(index, 7)
            XCTAssertTrue(reason.contains("reads 'b' before anything writes it"), reason)
        }
        XCTAssertThrowsError(try lifetimes([Access(operatorIndex: 0, inputs: [0], outputs: [4])])) { error in
            guard case let .invalidGraph(_, reason) = error as? EngineError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("writes the constant 'k'"), reason)
        }
        XCTAssertThrowsError(try lifetimes([Access(operatorIndex: 0, inputs: [0], outputs: [1])])) { error in
            guard case let .invalidGraph(_, reason) = error as? EngineError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("output 'out' is never written"), reason)
        }
    }

    /// Every pair of tensors alive at the same step gets disjoint bytes; tensors that never meet share them.
    func testOffsetsOfTensorsAliveAtOnceDoNotOverlap() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let requests = (0..<20).map { tensor in
                let first = Int.random(in: 0..<10, using: &generator)
                return MemoryPlanner.Request(tensor: tensor, bytes: Int.random(in: 1...5000, using: &generator), first: first,
                                             last: first + Int.random(in: 0..<4, using: &generator))
            }
            let (offsets, arena) = MemoryPlanner.plan(requests)
            XCTAssertEqual(offsets.count, requests.count)
            for a in requests {
                let start = offsets[a.tensor]!
                XCTAssertEqual(start % MemoryPlanner.alignment, 0)
                XCTAssertLessThanOrEqual(start + a.bytes, arena)
                for b in requests where b.tensor < a.tensor && a.first <= b.last && b.first <= a.last {
                    let other = offsets[b.tensor]!
                    XCTAssertTrue(start + a.bytes <= other || other + b.bytes <= start,
                                  "tensors \(a.tensor) and \(b.tensor) are alive together and overlap")
                }
            }
            XCTAssertLessThanOrEqual(arena, requests.reduce(0) { $0 + MemoryPlanner.align($1.bytes) })
        }
        let (offsets, arena) = MemoryPlanner.plan([.init(tensor: 0, bytes: 1000, first: 0, last: 1),
                                                   .init(tensor: 1, bytes: 1000, first: 2, last: 3)])
        XCTAssertEqual(offsets, [0: 0, 1: 0])
        XCTAssertEqual(arena, 1024)
    }

    /// The whole plan of a small chain: each step's inputs and outputs, alive together, sit apart in the arena.
    func testThePlansArenaKeepsEachStepsTensorsApart() throws {
        let plan = try ExecutionPlan(model: PlanTestGraphs.model(LayerNormalizationFusionTests.layerNormalization(scalingIsOutput: true)))
        XCTAssertEqual(plan.runtimeOperatorCount, 10)
        XCTAssertLessThan(plan.arenaBytes, plan.naiveBytes, "tensors that never meet share bytes")
        for step in plan.steps {
            let tensors = Set(step.inputs + step.outputs).filter { plan.offsets[$0] != nil }
            for a in tensors {
                for b in tensors where b < a {
                    let (x, y) = (plan.offsets[a]!, plan.offsets[b]!)
                    XCTAssertTrue(x + plan.graph.byteCount(a) <= y || y + plan.graph.byteCount(b) <= x,
                                  "\(step.name): '\(plan.graph.names[a])' and '\(plan.graph.names[b])' overlap")
                }
            }
        }
    }
}
