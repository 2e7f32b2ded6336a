@testable import VisionTasksEngine
import VisionTasksModelFormat
import VisionTasksModelMutation
import XCTest

/// The passes look at operators before any kernel has checked them. Every graph of the pass tests, edited one field
/// at a time (an input dropped or pointed elsewhere, a tensor's type or shape changed), must be refused with an
/// ``EngineError`` or plan something that runs — never trap.
final class PlanPassHostileTests: XCTestCase {
    typealias G = PlanTestGraphs

    static var graphs: [TFLiteBuilder] {
        [PadFusionTests.padThenConvolution(), ConstantFoldingTests.foldableChain(), EpilogueFusionTests.residualBlock(),
         EpilogueFusionTests.channelPaddedResidual(), TokenMixingFusionTests.tokenMixer(), LayerNormalizationFusionTests.layerNormalization()]
    }

    static func edits(of model: TFLiteModel) -> [TFLiteModel] {
        var result: [TFLiteModel] = []
        let subgraph = model.subgraphs[0]
        for (o, op) in subgraph.operators.enumerated() {
            for i in op.inputs.indices {
                for tensor in [-1, (Int(op.inputs[i]) + 1) % subgraph.tensors.count] {
                    var edited = model
                    edited.subgraphs[0].operators[o].inputs[i] = Int32(tensor)
                    result.append(edited)
                }
            }
            var reversed = model
            reversed.subgraphs[0].operators[o].inputs.reverse()
            result.append(reversed)
        }
        for t in subgraph.tensors.indices {
            for type in [TensorType.float16, .int32, .uint8] {
                var edited = model
                edited.subgraphs[0].tensors[t].type = type
                result.append(edited)
            }
            for shape: [Int32] in [[], [1], [3, 2], [1, 2, 2, 1]] {
                var edited = model
                (edited.subgraphs[0].tensors[t].shape, edited.subgraphs[0].tensors[t].shapeSignature) = (shape, shape)
                result.append(edited)
            }
        }
        return result
    }

    func testEditedPassGraphsAreRefusedOrRun() throws {
        var refused = 0, planned = 0
        for builder in Self.graphs {
            for model in Self.edits(of: try G.model(builder)) {
                do {
                    let interpreter = Interpreter(plan: try ExecutionPlan(model: model), threads: 2)
                    interpreter.invoke()
                    planned += 1
                } catch {
                    refused += 1
                }
            }
        }
        // Both outcomes occur: the edits reach the passes' refusals and their fallbacks alike.
        XCTAssertGreaterThan(refused, 100)
        XCTAssertGreaterThan(planned, 10)
    }
}
