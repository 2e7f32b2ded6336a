import VisionTasksEngine
import VisionTasksModelFormat
import VisionTasksModelMutation
import VisionTasksTestSupport
import Foundation
import XCTest

/// Float models with damaged constant values, builtin options, shapes, types, operands and sparsity must each be
/// refused with an `EngineError` or planned and run to the end. A trap would kill the test process, so reaching the
/// end is the assertion; the counts check that the mutants were hostile enough to matter and mild enough to run.
///
/// The models are a zoo of one-operator graphs built in code (every float kernel, and the uint8/int8 kernels of the
/// operators that take those; small shapes, so a mutant costs well under a millisecond), whose constants — paddings,
/// begin/end/strides, sizes, shapes, permutations, axes, indices, sparse segments — are drawn from values near the
/// integer limits, plus a shipped float model. FLOAT_MUTANTS=<count> runs a longer search than CI's.
final class FloatMutationTests: XCTestCase {
    static let zooMutants = ProcessInfo.processInfo.environment["FLOAT_MUTANTS"].flatMap(Int.init) ?? 1500
    static let shippedMutants = 40

    /// Values that break arithmetic: zero, signs, the Int32 limits, large powers of two.
    static let oddValues: [Int32] = [0, -1, 1, 2, 3, -2, 7, 1 << 16, -(1 << 16), 1 << 30, .max, .max - 1, .min, .min + 1]

    static func pick(_ normal: Int32, _ rng: inout SplitMix64) -> Int32 {
        Int.random(in: 0..<10, using: &rng) < 7 ? normal : oddValues.randomElement(using: &rng)!
    }

    static func floats(_ count: Int, _ rng: inout SplitMix64) -> [Float] {
        (0..<count).map { _ in Float.random(in: -1...1, using: &rng) }
    }

    /// One zoo model with its constants drawn from `rng`.
    static func zooModel(_ kind: Int, _ rng: inout SplitMix64) -> TFLiteBuilder {
        var b = TFLiteBuilder()
        // Operators that also take uint8 and int8 tensors run on those a third of the time (the quantized kernels
        // and the type-agnostic ones), with one quantization on input and output as TFLite requires of most.
        let quantizable: Set<Int> = [2, 3, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16]
        let type: TFLiteBuilder.ElementType = quantizable.contains(kind) && Int.random(in: 0..<3, using: &rng) == 0
            ? [.uint8, .int8].randomElement(using: &rng)! : .float32
        let quantization = type == .float32 ? nil : TFLiteBuilder.Quantization(scale: [0.05], zeroPoint: [type == .uint8 ? 3 : -2])
        let x = b.tensor("x", type, [1, 4, 4, 2], quantization: quantization)
        var outputs: [Int32] = []
        func out(_ shape: [Int32]) -> Int32 {
            let t = b.tensor("y\(outputs.count)", type, shape, quantization: quantization)
            outputs.append(t)
            return t
        }
        func p(_ v: Int32) -> Int32 { pick(v, &rng) }
        switch kind {
        case 0:
            let w = b.constant("w", floats: floats(3 * 3 * 3 * 2, &rng), shape: [3, 3, 3, 2])
            let bias = b.constant("b", floats: floats(3, &rng))
            b.op(3, inputs: [x, w, bias], outputs: [out([1, 4, 4, 3])], optionsType: 1, options: [0: .int8(0), 1: .int32(1), 2: .int32(1)])
        case 1:
            let w = b.constant("w", floats: floats(3 * 3 * 2, &rng), shape: [1, 3, 3, 2])
            let bias = b.constant("b", floats: floats(2, &rng))
            b.op(4, inputs: [x, w, bias], outputs: [out([1, 4, 4, 2])], optionsType: 2,
                 options: [0: .int8(0), 1: .int32(1), 2: .int32(1), 3: .int32(1)])
        case 2, 3:
            b.op(kind == 2 ? 17 : 1, inputs: [x], outputs: [out([1, 2, 2, 2])], optionsType: 5,
                 options: [0: .int8(1), 1: .int32(p(2)), 2: .int32(p(2)), 3: .int32(p(2)), 4: .int32(p(2))])
        case 4:
            let w = b.constant("w", floats: floats(5 * 32, &rng), shape: [5, 32])
            b.op(9, inputs: [x, w], outputs: [out([1, 5])], optionsType: 8, options: [:])
        case 5:
            let c = b.constant("c", floats: floats(2, &rng))
            b.op([0, 18, 41, 42].randomElement(using: &rng)!, inputs: [x, c], outputs: [out([1, 4, 4, 2])])
        case 6:
            let pad = b.constant("paddings", int32s: [0, 0, p(1), p(1), p(1), p(0), 0, p(0)], shape: [4, 2])
            b.op(34, inputs: [x, pad], outputs: [out([1, 6, 5, 2])])
        case 7:
            let begin = b.constant("begin", int32s: [0, p(1), p(0), 0]), end = b.constant("end", int32s: [1, p(3), p(4), p(2)])
            let strides = b.constant("strides", int32s: [1, p(1), p(2), p(1)])
            b.op(45, inputs: [x, begin, end, strides], outputs: [out([1, 2, 2, 2])], optionsType: 32,
                 options: [0: .int32(p(0)), 1: .int32(p(0)), 4: .int32(p(0)), 5: .bool(Bool.random(using: &rng))])
        case 8:
            let size = b.constant("size", int32s: [p(8), p(8)])
            b.op(23, inputs: [x, size], outputs: [out([1, 8, 8, 2])], optionsType: 15,
                 options: [2: .bool(Bool.random(using: &rng)), 3: .bool(Bool.random(using: &rng))])
        case 9:
            let shape = b.constant("shape", int32s: [p(1), p(16), p(-1)])
            b.op(22, inputs: [x, shape], outputs: [out([1, 16, 2])], optionsType: 17, options: [0: .int32s([p(1), p(16), p(2)])])
        case 10:
            let perm = b.constant("perm", int32s: [p(0), p(2), p(1), p(3)])
            b.op(39, inputs: [x, perm], outputs: [out([1, 4, 4, 2])])
        case 11:
            let axes = b.constant("axes", int32s: [p(1), p(2)])
            b.op(type == .float32 ? [40, 74, 82, 89].randomElement(using: &rng)! : 40, inputs: [x, axes], outputs: [out([1, 2])], optionsType: 27, options: [0: .bool(false)])
        case 12:
            b.op(2, inputs: [x, x], outputs: [out([1, 4, 4, 4])], optionsType: 10, options: [0: .int32(p(3))])
        case 13:
            let indices = b.constant("indices", int32s: [p(1), p(3)])
            b.op(36, inputs: [x, indices], outputs: [out([1, 2, 4, 2])], optionsType: 23, options: [0: .int32(p(1))])
        case 14:
            b.op(25, inputs: [x], outputs: [out([1, 4, 4, 2])], optionsType: 9,
                 options: [0: .float([1, 0, -1, .nan, .infinity, 1e30].randomElement(using: &rng)!)])
        case 15:
            b.op(5, inputs: [x], outputs: [out([1, 8, 8, 1])], optionsType: 94, options: [0: .int32(p(2))])
        case 16:
            b.op(88, inputs: [x], outputs: [out([1, 4, 4]), out([1, 4, 4])], optionsType: 64, options: [0: .int32(p(2)), 1: .int32(p(3))])
        case 17:
            // DENSIFY of a CSR-encoded [4, 4] constant, then an ADD that broadcasts it over x.
            let sparse = b.tensor("sparse", .float32, [4, 2], data: floats(3, &rng).flatMap { withUnsafeBytes(of: $0.bitPattern, Array.init) },
                                  sparsity: .init(traversalOrder: [p(0), p(1)], dimensions: [
                                      .dense(p(4)), .compressed(segments: [0, p(1), p(2), p(2), p(3)], indices: [p(0), p(1), p(1)])]))
            let dense = b.tensor("dense", .float32, [4, 2])
            b.op(124, inputs: [sparse], outputs: [dense])
            b.op(0, inputs: [x, dense], outputs: [out([1, 4, 4, 2])])
        default:
            let w = b.constant("w", floats: floats(2 * 3 * 3 * 2, &rng), shape: [2, 3, 3, 2])
            b.op(32, custom: "Convolution2DTransposeBias", inputs: [x, w, b.constant("b", floats: floats(2, &rng))],
                 outputs: [out([1, 8, 8, 2])], customOptions: [1, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0].map { _ in UInt8.random(in: 0...2, using: &rng) })
        }
        (b.inputs, b.outputs) = ([x], outputs)
        return b
    }

    static let zooKinds = 19

    func testMutatedFloatModelsNeverTrap() throws {
        var rng = SplitMix64(seed: 0xF1_0A7)
        // A sparsity to graft onto other tensors: ModelFormat has no public initializer for one.
        var donor = SplitMix64(seed: 1)
        let donorModel = Self.zooModel(17, &donor)
        let sparsity = try TFLiteModel(bytes: ByteStorage(copying: donorModel.build()).slice).subgraphs[0].tensors.compactMap(\.sparsity).first
        XCTAssertNotNil(sparsity)
        var total = 0, refused: [String: Int] = [:], ran = 0
        func attempt(_ model: TFLiteModel, memoryBudget: Int = 32 << 20) {
            total += 1
            do {
                // A small budget keeps mutants cheap: a mutated dimension of 2^20 is refused instead of run.
                let interpreter = Interpreter(plan: try ExecutionPlan(model: model, memoryBudget: memoryBudget),
                                              threads: Int.random(in: 1...2, using: &rng))
                for (index, input) in interpreter.inputs.enumerated() {
                    let count = input.elementCount * (input.type.byteSize ?? 1)
                    try interpreter.setInput(index, bytes: (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) })
                }
                interpreter.invoke()
                ran += 1
            } catch {
                // Every throw here is typed: an EngineError, whose case is counted.
                refused[Mirror(reflecting: error).children.first?.label ?? "\(error)", default: 0] += 1
            }
        }
        // Each mutant from a seed of its own, so that one can be replayed alone (FLOAT_MUTANT=<index>).
        let only = ProcessInfo.processInfo.environment["FLOAT_MUTANT"].flatMap(Int.init)
        let trace = ProcessInfo.processInfo.environment["FLOAT_MUTANT_TRACE"] != nil
        let first = ProcessInfo.processInfo.environment["FLOAT_MUTANT_FROM"].flatMap(Int.init) ?? 0
        for index in first..<max(first, Self.zooMutants) where only.map({ $0 == index }) ?? true {
            rng = SplitMix64(seed: 0xF1_0A7 &+ UInt64(index) &* 0x9E37_79B9)
            let kind = Int.random(in: 0..<Self.zooKinds, using: &rng)
            if only != nil || trace { print("mutant \(index): zoo model \(kind)") }
            let bytes = Self.zooModel(kind, &rng).build()
            let parsed: TFLiteModel
            do { parsed = try TFLiteModel(bytes: ByteStorage(copying: bytes).slice) } catch {
                XCTFail("zoo model \(kind) does not parse: \(error)")
                continue
            }
            var model = parsed
            var graph = model.subgraphs[0]
            for _ in 0..<Int.random(in: 0...2, using: &rng) { Self.mutate(&graph, sparsity: sparsity, bufferCount: model.buffers.count, &rng) }
            model.subgraphs[0] = graph
            if only != nil { print(graph.operators.map { ($0.inputs, $0.outputs, $0.builtinOptions) }, graph.tensors.map { ($0.name, $0.shape, $0.type, $0.bufferIndex, $0.sparsity != nil) }) }
            attempt(model)
        }
        let zooRan = ran
        guard only == nil else { return }
        let original = try TFLiteModel(path: Repository.modelPath("selfie_segmentation.tflite"))
        XCTAssertNoThrow(try ExecutionPlan(model: original))
        for _ in 0..<Self.shippedMutants {
            var model = original
            var graph = model.subgraphs[0]
            for _ in 0..<Int.random(in: 1...3, using: &rng) { Self.mutate(&graph, sparsity: sparsity, bufferCount: model.buffers.count, &rng) }
            model.subgraphs[0] = graph
            attempt(model, memoryBudget: 256 << 20)
        }
        let refusedCount = refused.values.reduce(0, +)
        XCTAssertEqual(refusedCount + ran, total)
        XCTAssertGreaterThan(refusedCount, total / 4, "mutations too mild to test anything: \(refused)")
        XCTAssertGreaterThan(zooRan, (Self.zooMutants - first) / 5, "few mutants ran: kernels would not see odd but valid values")
        print("float mutation test: \(total) mutants, \(ran) planned and run, refused: \(refused.sorted { $0.value > $1.value })")
    }

    /// One structural mutation: a shape, a type, an operand, the builtin options or sparsity parameters.
    static func mutate(_ graph: inout Subgraph, sparsity: SparsityParameters?, bufferCount: Int, _ rng: inout SplitMix64) {
        let tensor = Int.random(in: 0..<graph.tensors.count, using: &rng)
        let op = Int.random(in: 0..<max(graph.operators.count, 1), using: &rng)
        func odd() -> Int32 { oddValues.randomElement(using: &rng)! }
        switch Int.random(in: 0..<7, using: &rng) {
        case 0:
            guard !graph.tensors[tensor].shape.isEmpty else { return }
            let d = Int.random(in: 0..<graph.tensors[tensor].shape.count, using: &rng)
            graph.tensors[tensor].shape[d] = [0, -1, 1, 2, 3, 5, 1 << 20, .max].randomElement(using: &rng)!
        case 1:
            graph.tensors[tensor].type = [.int32, .int64, .float32, .float16, .uint8, .int8].randomElement(using: &rng)!
        case 2:
            // A constant's values from another buffer (mostly of another size), or from none.
            graph.tensors[tensor].bufferIndex = Int.random(in: -1...bufferCount, using: &rng)
        case 3:
            guard !graph.operators.isEmpty, !graph.operators[op].inputs.isEmpty else { return }
            let i = Int.random(in: 0..<graph.operators[op].inputs.count, using: &rng)
            // Any tensor, an absent optional one, or an index the parser would have refused.
            graph.operators[op].inputs[i] = Int32.random(in: -2...Int32(graph.tensors.count), using: &rng)
        case 4:
            graph.tensors[tensor].sparsity = sparsity
        default:
            guard !graph.operators.isEmpty else { return }
            switch graph.operators[op].builtinOptions {
            case var .conv2D(o):
                if Bool.random(using: &rng) { o.strideHeight = odd() } else { o.dilationWidth = odd() }
                graph.operators[op].builtinOptions = .conv2D(o)
            case var .depthwiseConv2D(o):
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: o.strideWidth = odd()
                case 1: o.dilationHeight = odd()
                default: o.depthMultiplier = odd()
                }
                graph.operators[op].builtinOptions = .depthwiseConv2D(o)
            case var .pool2D(o):
                if Bool.random(using: &rng) { o.filterWidth = odd() } else { o.strideHeight = odd() }
                graph.operators[op].builtinOptions = .pool2D(o)
            case var .fullyConnected(o):
                o.keepNumDims.toggle()
                graph.operators[op].builtinOptions = .fullyConnected(o)
            case let .concatenation(_, activation): graph.operators[op].builtinOptions = .concatenation(axis: odd(), activation: activation)
            case .gather: graph.operators[op].builtinOptions = .gather(axis: odd(), batchDims: odd() & 1)
            case .depthToSpace: graph.operators[op].builtinOptions = .depthToSpace(blockSize: odd())
            case .unpack: graph.operators[op].builtinOptions = .unpack(count: odd(), axis: odd())
            case .softmax: graph.operators[op].builtinOptions = .softmax(beta: [.nan, -.infinity, 1e38].randomElement(using: &rng)!)
            case var .stridedSlice(o):
                o.beginMask = odd(); o.endMask = odd(); o.shrinkAxisMask = odd()
                graph.operators[op].builtinOptions = .stridedSlice(o)
            case .resizeBilinear: graph.operators[op].builtinOptions = .resizeBilinear(alignCorners: true, halfPixelCenters: true)
            default:
                // Options of another operator.
                graph.operators[op].builtinOptions = [.none, .softmax(beta: 1), .reducer(keepDims: true), .gather(axis: odd(), batchDims: 0)]
                    .randomElement(using: &rng)!
            }
        }
    }
}
