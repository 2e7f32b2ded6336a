import VisionTasksEngine
import VisionTasksModelFormat
import VisionTasksModelMutation
import Foundation
import VisionTasksTestSupport
import XCTest

/// Quantized models with damaged parameters — scales (zero, negative, NaN, infinite, subnormal, huge), zero points
/// outside their type, per-channel axes and counts that do not fit, shapes, the post-processing's custom options —
/// must each be refused with an `EngineError` or planned and run to the end; a trap would kill the test process,
/// so reaching the end is the assertion, and the counts check that the mutants were hostile enough to matter.
final class QuantizedMutationTests: XCTestCase {
    static let mutantsPerModel = 150

    func testMutatedQuantizedModelsNeverTrap() throws {
        let files = [Repository.modelPath("mobilenet_v1_0.25_128_quant.tflite"), Repository.modelPath("ssd_mobilenet_v1.tflite"),
                     Repository.fixtures.appendingPathComponent("int8_mobilenet.tflite").path,
                     Repository.fixtures.appendingPathComponent("int8_float_io.tflite").path]
        var total = 0, refused: [String: Int] = [:], ran = 0
        for (fileIndex, file) in files.enumerated() {
            let original = try TFLiteModel(path: file)
            XCTAssertNoThrow(try ExecutionPlan(model: original), file)
            var rng = SplitMix64(seed: UInt64(fileIndex) << 32 | 0x51)
            for _ in 0..<Self.mutantsPerModel {
                var model = original
                var graph = model.subgraphs[0]
                let mutations = Int.random(in: 1...3, using: &rng)
                for _ in 0..<mutations { Self.mutate(&graph, &rng) }
                model.subgraphs[0] = graph
                total += 1
                do {
                    let interpreter = Interpreter(plan: try ExecutionPlan(model: model), threads: Int.random(in: 1...2, using: &rng))
                    for (index, input) in interpreter.inputs.enumerated() {
                        let bytes = (0..<input.elementCount * (input.type.byteSize ?? 1)).map { _ in UInt8.random(in: 0...255, using: &rng) }
                        try interpreter.setInput(index, bytes: bytes)
                    }
                    interpreter.invoke()
                    ran += 1
                } catch {
                    refused[Mirror(reflecting: error).children.first?.label ?? "\(error)", default: 0] += 1
                }
            }
        }
        let refusedCount = refused.values.reduce(0, +)
        XCTAssertEqual(refusedCount + ran, total)
        XCTAssertGreaterThan(refusedCount, total / 4, "mutations too mild to test anything: \(refused)")
        XCTAssertGreaterThan(ran, total / 10, "every mutant refused: the test would not see a kernel run on odd parameters")
        print("quantized mutation test: \(total) mutants, \(ran) planned and run, refused: \(refused.sorted { $0.value > $1.value })")
    }

    static let oddScales: [Float] = [0, -1, .nan, .infinity, -.infinity, .leastNonzeroMagnitude, 1e-30, 1e30, .greatestFiniteMagnitude, 0.5]
    static let oddZeroPoints: [Int64] = [-1000, -129, -128, -1, 0, 127, 128, 255, 256, 1 << 40]

    static func mutate(_ graph: inout Subgraph, _ rng: inout SplitMix64) {
        let quantized = graph.tensors.indices.filter { graph.tensors[$0].quantization.map { !$0.isEmpty } ?? false }
        let tensor = quantized.randomElement(using: &rng) ?? 0
        switch Int.random(in: 0..<7, using: &rng) {
        case 0:
            guard var q = graph.tensors[tensor].quantization, !q.scale.isEmpty else { return }
            q.scale[Int.random(in: 0..<q.scale.count, using: &rng)] = oddScales.randomElement(using: &rng)!
            graph.tensors[tensor].quantization = q
        case 1:
            guard var q = graph.tensors[tensor].quantization, !q.zeroPoint.isEmpty else { return }
            q.zeroPoint[Int.random(in: 0..<q.zeroPoint.count, using: &rng)] = oddZeroPoints.randomElement(using: &rng)!
            graph.tensors[tensor].quantization = q
        case 2:
            guard var q = graph.tensors[tensor].quantization else { return }
            q.quantizedDimension = Int32.random(in: -2...5, using: &rng)
            graph.tensors[tensor].quantization = q
        case 3:
            // Scale and zero-point counts that disagree with each other or with the axis.
            guard var q = graph.tensors[tensor].quantization else { return }
            if Bool.random(using: &rng) { q.scale.append(0.1) } else if !q.zeroPoint.isEmpty { q.zeroPoint.removeLast() }
            graph.tensors[tensor].quantization = q
        case 4:
            let any = Int.random(in: 0..<graph.tensors.count, using: &rng)
            guard !graph.tensors[any].shape.isEmpty else { return }
            let d = Int.random(in: 0..<graph.tensors[any].shape.count, using: &rng)
            graph.tensors[any].shape[d] = [0, -1, 1, 2, 3, 7, 1 << 20, .max].randomElement(using: &rng)!
        case 5:
            // Another element type under the same parameters.
            let any = Int.random(in: 0..<graph.tensors.count, using: &rng)
            graph.tensors[any].type = [.uint8, .int8, .int16, .int32, .float32, .float16].randomElement(using: &rng)!
        default:
            // The post-processing's (or any custom operator's) FlexBuffer options, damaged byte by byte.
            guard let index = graph.operators.firstIndex(where: { $0.customOptions != nil }),
                  var bytes = graph.operators[index].customOptions?.bytes, !bytes.isEmpty else { return }
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                bytes[Int.random(in: 0..<bytes.count, using: &rng)] = .random(in: 0...255, using: &rng)
            }
            graph.operators[index].customOptions = ByteStorage(copying: bytes).slice
        }
    }
}
