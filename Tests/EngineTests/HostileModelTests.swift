import VisionTasksEngine
import VisionTasksModelFormat
import VisionTasksModelMutation
import XCTest

/// Tiny models crafted in code, each hostile in one way the attacker of issue #30 found (or one of its class): each
/// must be refused at prepare with the typed error that names the problem — never a trap, an out-of-bounds read or
/// an allocation of what the file asks for.
final class HostileModelTests: XCTestCase {
    // Builtin operator codes and option union tags of TFLite's schema.fbs.
    static let add: Int32 = 0, concatenation: Int32 = 2, depthToSpace: Int32 = 5, resizeBilinear: Int32 = 23
    static let custom: Int32 = 32, pad: Int32 = 34, gather: Int32 = 36, transpose: Int32 = 39, mean: Int32 = 40
    static let stridedSlice: Int32 = 45, densify: Int32 = 124
    static let addOptions: UInt8 = 11, concatenationOptions: UInt8 = 10, resizeBilinearOptions: UInt8 = 15
    static let gatherOptions: UInt8 = 23, reducerOptions: UInt8 = 27, stridedSliceOptions: UInt8 = 32, depthToSpaceOptions: UInt8 = 94

    func model(_ builder: TFLiteBuilder) throws -> TFLiteModel {
        try TFLiteModel(bytes: ByteStorage(copying: builder.build()).slice)
    }

    /// The error preparing `builder`'s model throws; fails the test when it prepares.
    func planError(_ builder: TFLiteBuilder, memoryBudget: Int = ExecutionPlan.defaultMemoryBudget,
                   file: StaticString = #filePath, line: UInt = #line) throws -> EngineError? {
        let model = try model(builder)
        do {
            _ = try ExecutionPlan(model: model, memoryBudget: memoryBudget)
            XCTFail("the hostile model was planned", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    func assertInvalidGraph(_ error: EngineError?, mentions text: String, file: StaticString = #filePath, line: UInt = #line) {
        guard case let .invalidGraph(_, reason) = error else {
            return XCTFail("expected invalidGraph mentioning '\(text)', got \(String(describing: error))", file: file, line: line)
        }
        XCTAssertTrue(reason.contains(text), "'\(reason)' does not mention '\(text)'", file: file, line: line)
    }

    func assertResourceLimit(_ error: EngineError?, mentions text: String, file: StaticString = #filePath, line: UInt = #line) {
        guard case let .resourceLimit(what, bytes, limit) = error else {
            return XCTFail("expected resourceLimit mentioning '\(text)', got \(String(describing: error))", file: file, line: line)
        }
        XCTAssertGreaterThan(bytes, limit, file: file, line: line)
        XCTAssertTrue(what.contains(text), "'\(what)' does not mention '\(text)'", file: file, line: line)
        XCTAssertTrue(error!.description.hasPrefix("resource limit: "), file: file, line: line)
    }

    // MARK: sparsity

    /// A constant with sparsity parameters and a buffer of one float, read by ADD as if it held four: the plan used to
    /// skip the size check and ADD read heap bytes past the buffer.
    func testSparseConstantReadByAnOperatorOtherThanDensifyIsRefused() throws {
        var b = TFLiteBuilder()
        let x = b.tensor("x", .float32, [4])
        let sparse = b.tensor("sparse", .float32, [4], data: [0, 0, 128, 63], sparsity: .init(
            traversalOrder: [0], dimensions: [.compressed(segments: [0, 1], indices: [2])]))
        let y = b.tensor("y", .float32, [4])
        b.op(Self.add, inputs: [x, sparse], outputs: [y], optionsType: Self.addOptions, options: [:])
        (b.inputs, b.outputs) = ([x], [y])
        assertInvalidGraph(try planError(b), mentions: "'sparse' is sparse; only DENSIFY reads sparse tensors")
    }

    /// The same sparse constant through DENSIFY plans and densifies; a dense constant whose buffer is short is refused.
    func testSparseConstantThroughDensifyRunsAndShortDenseConstantsAreRefused() throws {
        var b = TFLiteBuilder()
        let x = b.tensor("x", .float32, [4])
        let sparse = b.tensor("sparse", .float32, [4], data: [0, 0, 128, 63], sparsity: .init(
            traversalOrder: [0], dimensions: [.compressed(segments: [0, 1], indices: [2])]))
        let dense = b.tensor("dense", .float32, [4])
        let y = b.tensor("y", .float32, [4])
        b.op(Self.densify, inputs: [sparse], outputs: [dense])
        b.op(Self.add, inputs: [x, dense], outputs: [y], optionsType: Self.addOptions, options: [:])
        (b.inputs, b.outputs) = ([x], [y])
        let interpreter = try Interpreter(model: try model(b), threads: 1)
        try interpreter.setInput(0, floats: [1, 2, 3, 4])
        interpreter.invoke()
        XCTAssertEqual(try interpreter.outputFloats(0), [1, 2, 4, 4])

        var short = TFLiteBuilder()
        let a = short.tensor("a", .float32, [4])
        let c = short.tensor("c", .float32, [4], data: [0, 0, 128, 63])
        let out = short.tensor("out", .float32, [4])
        short.op(Self.add, inputs: [a, c], outputs: [out], optionsType: Self.addOptions, options: [:])
        (short.inputs, short.outputs) = ([a], [out])
        assertInvalidGraph(try planError(short), mentions: "constant 'c' holds 4 bytes, its shape needs 16")
    }

    // MARK: zero-sized dimensions

    func resizeModel(_ type: TFLiteBuilder.ElementType, input: [Int32], size: [Int32], output: [Int32]) -> TFLiteBuilder {
        var b = TFLiteBuilder()
        let q = type == .float32 ? nil : TFLiteBuilder.Quantization(scale: [0.5], zeroPoint: [3])
        let x = b.tensor("x", type, input, quantization: q)
        let s = b.constant("size", int32s: size)
        let y = b.tensor("y", type, output, quantization: q)
        b.op(Self.resizeBilinear, inputs: [x, s], outputs: [y], optionsType: Self.resizeBilinearOptions, options: [3: .bool(true)])
        (b.inputs, b.outputs) = ([x], [y])
        return b
    }

    /// A zero-sized input dimension into RESIZE_BILINEAR made the float and quantized kernels read row −1.
    func testZeroSizedInputIntoResizeBilinearIsRefused() throws {
        for type in [TFLiteBuilder.ElementType.float32, .uint8, .int8] {
            let b = resizeModel(type, input: [1, 0, 2, 1], size: [4, 4], output: [1, 4, 4, 1])
            assertInvalidGraph(try planError(b), mentions: "tensor 'x' has shape [1, 0, 2, 1], with no elements")
        }
    }

    /// RESIZE_BILINEAR to 2^31 − 1 × 2^31 − 1 allocated its taps (gigabytes) before it compared the output shape.
    func testResizeBilinearToHugeSizeIsRefusedBeforeAllocating() throws {
        for type in [TFLiteBuilder.ElementType.float32, .uint8] {
            let b = resizeModel(type, input: [1, 2, 2, 1], size: [.max, .max], output: [1, 4, 4, 1])
            assertResourceLimit(try planError(b), mentions: "RESIZE_BILINEAR (operator 0): output 'y' of shape [1, 2147483647, 2147483647, 1]")
        }
        // A sane size still runs, with the float kernel's values.
        let interpreter = try Interpreter(model: try model(resizeModel(.float32, input: [1, 1, 2, 1], size: [1, 4], output: [1, 1, 4, 1])))
        try interpreter.setInput(0, floats: [0, 4])
        interpreter.invoke()
        XCTAssertEqual(try interpreter.outputFloats(0), [0, 1, 3, 4])
    }

    // MARK: PAD and STRIDED_SLICE near the integer limits

    func padModel(paddings: TFLiteBuilder.Field, output: [Int32]) -> TFLiteBuilder {
        var b = TFLiteBuilder()
        let x = b.tensor("x", .float32, [1, 2, 2, 1])
        let p: Int32
        switch paddings {
        case let .int32s(values): p = b.constant("paddings", int32s: values, shape: [4, 2])
        case let .int64s(values): p = b.constant("paddings", int64s: values, shape: [4, 2])
        default: fatalError()
        }
        let y = b.tensor("y", .float32, output)
        b.op(Self.pad, inputs: [x, p], outputs: [y])
        (b.inputs, b.outputs) = ([x], [y])
        return b
    }

    func testPadWithExtremePaddingsIsRefused() throws {
        // Int64 paddings whose sum overflows.
        let overflow = padModel(paddings: .int64s([0, 0, .max, .max, 0, 0, 0, 0]), output: [1, 2, 2, 1])
        assertInvalidGraph(try planError(overflow), mentions: "PAD: padded dimension 1 overflows")
        // Int32.max paddings: the output shape the kernel computes exceeds the per-tensor cap.
        let huge = padModel(paddings: .int32s([0, 0, .max, .max, 0, 0, 0, 0]), output: [1, 2, 2, 1])
        assertResourceLimit(try planError(huge), mentions: "output 'y' of shape [1, 4294967296, 2, 1]")
        // Negative ones stay refused, and an in-range PAD runs.
        let negative = padModel(paddings: .int32s([0, 0, .min, 0, 0, 0, 0, 0]), output: [1, 2, 2, 1])
        guard case .unsupportedOperator = try planError(negative) else { return XCTFail("negative padding planned") }
        let interpreter = try Interpreter(model: try model(padModel(paddings: .int32s([0, 0, 1, 0, 0, 0, 0, 0]), output: [1, 3, 2, 1])))
        try interpreter.setInput(0, floats: [1, 2, 3, 4])
        interpreter.invoke()
        XCTAssertEqual(try interpreter.outputFloats(0), [0, 0, 1, 2, 3, 4])
    }

    func sliceModel(begin: [Int64], end: [Int64], strides: [Int64], offset: Bool = false, shrink: Int32 = 0, output: [Int32]) -> TFLiteBuilder {
        var b = TFLiteBuilder()
        let x = b.tensor("x", .float32, [4, 3])
        let bt = b.constant("begin", int64s: begin), et = b.constant("end", int64s: end), st = b.constant("strides", int64s: strides)
        let y = b.tensor("y", .float32, output)
        b.op(Self.stridedSlice, inputs: [x, bt, et, st], outputs: [y], optionsType: Self.stridedSliceOptions,
             options: [4: .int32(shrink), 5: .bool(offset)])
        (b.inputs, b.outputs) = ([x], [y])
        return b
    }

    func testStridedSliceWithExtremeValuesIsRefusedOrClamped() throws {
        let minStride = sliceModel(begin: [0, 0], end: [4, 3], strides: [.min, 1], output: [1, 3])
        assertInvalidGraph(try planError(minStride), mentions: "stride -9223372036854775808 on axis 0")
        let int32MinStride = sliceModel(begin: [0, 0], end: [4, 3], strides: [Int64(Int32.min), 1], output: [1, 3])
        assertInvalidGraph(try planError(int32MinStride), mentions: "stride -2147483648 on axis 0")
        let offset = sliceModel(begin: [.max, 0], end: [.max, 3], strides: [1, 1], offset: true, output: [1, 3])
        assertInvalidGraph(try planError(offset), mentions: "end + begin on axis 0 overflows")
        let shrunk = sliceModel(begin: [Int64(Int32.max), 0], end: [0, 3], strides: [1, 1], shrink: 1, output: [3])
        assertInvalidGraph(try planError(shrunk), mentions: "shrunk axis 0 begins at 2147483647")
        // Begin and end at the limits clamp to the axis, as TFLite's strided_slice_logic does; a stride of
        // Int32.max takes the first row only.
        let clamped = sliceModel(begin: [.min, Int64(Int32.min)], end: [.max, Int64(Int32.max)], strides: [Int64(Int32.max), 1], output: [1, 3])
        let interpreter = try Interpreter(model: try model(clamped), threads: 1)
        try interpreter.setInput(0, floats: (0..<12).map(Float.init))
        interpreter.invoke()
        XCTAssertEqual(try interpreter.outputFloats(0), [0, 1, 2])
    }

    // MARK: DETECTION_POSTPROCESS

    /// FlexBuffer options (made with `flatbuffers.flexbuffers.Dumps` in Python) with max_detections 2^31 − 1 and
    /// max_classes_per_detection 2, num_classes 1, thresholds 0.5, scales 10/10/5/5: 2^32 − 2 detections.
    static let hugeDetectionOptions: [UInt8] = [
        109, 97, 120, 95, 100, 101, 116, 101, 99, 116, 105, 111, 110, 115, 0, 109, 97, 120, 95, 99, 108, 97, 115, 115, 101, 115,
        95, 112, 101, 114, 95, 100, 101, 116, 101, 99, 116, 105, 111, 110, 0, 100, 101, 116, 101, 99, 116, 105, 111, 110, 115, 95,
        112, 101, 114, 95, 99, 108, 97, 115, 115, 0, 117, 115, 101, 95, 114, 101, 103, 117, 108, 97, 114, 95, 110, 109, 115, 0,
        110, 109, 115, 95, 115, 99, 111, 114, 101, 95, 116, 104, 114, 101, 115, 104, 111, 108, 100, 0, 110, 109, 115, 95, 105, 111,
        117, 95, 116, 104, 114, 101, 115, 104, 111, 108, 100, 0, 110, 117, 109, 95, 99, 108, 97, 115, 115, 101, 115, 0, 121, 95,
        115, 99, 97, 108, 101, 0, 120, 95, 115, 99, 97, 108, 101, 0, 104, 95, 115, 99, 97, 108, 101, 0, 119, 95, 115, 99, 97, 108,
        101, 0, 11, 120, 18, 148, 164, 67, 88, 51, 106, 17, 34, 43, 11, 0, 0, 0, 1, 0, 0, 0, 11, 0, 0, 0, 1, 0, 0, 0, 0, 0, 160, 64,
        2, 0, 0, 0, 255, 255, 255, 127, 0, 0, 0, 63, 0, 0, 0, 63, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 160, 64, 0, 0, 32, 65, 0, 0, 32, 65,
        6, 14, 6, 6, 14, 14, 6, 6, 14, 14, 14, 55, 38, 1,
    ]

    func testDetectionPostProcessWithHugeDetectionCountIsRefused() throws {
        var b = TFLiteBuilder()
        let boxes = b.tensor("boxes", .float32, [1, 2, 4]), scores = b.tensor("scores", .float32, [1, 2, 2])
        let anchors = b.constant("anchors", floats: [0.5, 0.5, 1, 1, 0.2, 0.2, 1, 1], shape: [2, 4])
        let outputs = (0..<4).map { b.tensor("out\($0)", .float32, []) }
        b.op(Self.custom, custom: "TFLite_Detection_PostProcess", inputs: [boxes, scores, anchors], outputs: outputs,
             customOptions: Self.hugeDetectionOptions)
        (b.inputs, b.outputs) = ([boxes, scores], outputs)
        assertResourceLimit(try planError(b), mentions: "detection boxes of shape [1, 4294967294, 4]")
    }

    // MARK: memory budget

    /// A model of a few hundred bytes whose eight inputs declare 2 GiB each (16 GiB): refused by the plan's budget,
    /// so no interpreter allocates (and zero-fills) the arena.
    func testInputsBeyondTheMemoryBudgetAreRefusedBeforeAllocating() throws {
        var b = TFLiteBuilder()
        let inputs = (0..<8).map { b.tensor("in\($0)", .float32, [1 << 29]) }
        (b.inputs, b.outputs) = (inputs, [inputs[0]])
        XCTAssertLessThan(b.build().count, 1024)
        assertResourceLimit(try planError(b), mentions: "the arena of 8 activations")
        // A tensor one element over the per-tensor cap is refused by itself.
        var single = TFLiteBuilder()
        let big = single.tensor("big", .float32, [1 << 29 + 1])
        (single.inputs, single.outputs) = ([big], [big])
        assertResourceLimit(try planError(single), mentions: "tensor 'big' of shape [536870913]")
    }

    /// The budget is the caller's: a small one refuses a model that the default plans.
    func testMemoryBudgetIsConfigurable() throws {
        let b = resizeModel(.float32, input: [1, 8, 8, 4], size: [64, 64], output: [1, 64, 64, 4])
        XCTAssertNoThrow(try Interpreter(model: try model(b)))
        XCTAssertThrowsError(try Interpreter(model: try model(b), memoryBudget: 32 << 10)) { error in
            self.assertResourceLimit(error as? EngineError, mentions: "the arena of 2 activations")
        }
        // An operator on constants runs at load: its output counts against the budget before it is allocated.
        var folded = TFLiteBuilder()
        let source = folded.constant("source", floats: [1, 2, 3, 4], shape: [1, 2, 2, 1])
        let big = folded.tensor("big", .float32, [1, 512, 512, 1])
        folded.op(Self.resizeBilinear, inputs: [source, folded.constant("size", int32s: [512, 512])], outputs: [big],
                  optionsType: Self.resizeBilinearOptions, options: [:])
        (folded.inputs, folded.outputs) = ([], [big])
        XCTAssertNoThrow(try ExecutionPlan(model: try model(folded)))
        assertResourceLimit(try planError(folded, memoryBudget: 1 << 19), mentions: "folded constant 'big' of operator 0 (RESIZE_BILINEAR)")
    }

    /// Found by the float mutation test: SOFTMAX wrote as many values as its input has into a smaller output.
    func testSoftmaxIntoASmallerOutputIsRefused() throws {
        var b = TFLiteBuilder()
        let x = b.tensor("x", .float32, [8, 4]), y = b.tensor("y", .float32, [1, 4])
        b.op(25, inputs: [x], outputs: [y], optionsType: 9, options: [0: .float(1)])
        (b.inputs, b.outputs) = ([x], [y])
        assertInvalidGraph(try planError(b), mentions: "SOFTMAX: output shape [1, 4] but the inputs give [8, 4]")
    }

    /// A parsed model edited afterwards (as tools and fuzzers do) may name buffers and tensors that do not exist.
    func testIndicesOfAnEditedModelAreCheckedByThePlan() throws {
        var base = try model(resizeModel(.float32, input: [1, 1, 2, 1], size: [1, 4], output: [1, 1, 4, 1]))
        var edited = base
        edited.subgraphs[0].tensors[1].bufferIndex = 99
        XCTAssertThrowsError(try ExecutionPlan(model: edited)) { error in
            self.assertInvalidGraph(error as? EngineError, mentions: "tensor 1 ('size') names buffer 99 of 2")
        }
        base.subgraphs[0].operators[0].inputs[0] = 7
        XCTAssertThrowsError(try ExecutionPlan(model: base)) { error in
            self.assertInvalidGraph(error as? EngineError, mentions: "tensor index 7 of 3 tensors")
        }
    }

    /// Found by the float mutation test: TRANSPOSE and UNPACK copied float32 elements into float16 outputs, past
    /// their end.
    func testElementMovingOperatorsRefuseAnOutputOfAnotherType() throws {
        var transpose = TFLiteBuilder()
        let x = transpose.tensor("x", .float32, [2, 3]), y = transpose.tensor("y", .float16, [3, 2])
        transpose.op(Self.transpose, inputs: [x, transpose.constant("perm", int32s: [1, 0])], outputs: [y])
        (transpose.inputs, transpose.outputs) = ([x], [y])
        assertInvalidGraph(try planError(transpose), mentions: "TRANSPOSE: 'y' is float16, 'x' is float32")
        var unpack = TFLiteBuilder()
        let u = unpack.tensor("u", .float32, [2, 3]), a = unpack.tensor("a", .float32, [3]), b = unpack.tensor("b", .int8, [3])
        unpack.op(88, inputs: [u], outputs: [a, b], optionsType: 64, options: [0: .int32(2), 1: .int32(0)])
        (unpack.inputs, unpack.outputs) = ([u], [a, b])
        assertInvalidGraph(try planError(unpack), mentions: "UNPACK: 'b' is int8, 'u' is float32")
    }

    /// SPLIT / SPLIT_V sizes and axes and TRANSPOSE_CONV's strides and output shape come from the file: each wrong
    /// one is refused with a typed error, never summed or multiplied past Int, never a trap.
    func testSplitSizesAndTransposeConvolutionOptionsAreTypedErrors() throws {
        let split: Int32 = 49, splitV: Int32 = 102, transposeConv: Int32 = 67
        let splitOptions: UInt8 = 35, splitVOptions: UInt8 = 79, transposeConvOptions: UInt8 = 49
        func splitting(variable: Bool, axis: Int32, sizes: [Int32] = [], count: Int32 = 2, outputs: [[Int32]]) -> TFLiteBuilder {
            var b = TFLiteBuilder()
            let x = b.tensor("x", .float32, [2, 6])
            let axisTensor = b.constant("axis", int32s: [axis])
            let ys = outputs.enumerated().map { b.tensor("y\($0.offset)", .float32, $0.element) }
            let inputs = variable ? [x, b.constant("sizes", int32s: sizes), axisTensor] : [axisTensor, x]
            b.op(variable ? splitV : split, inputs: inputs, outputs: ys, optionsType: variable ? splitVOptions : splitOptions,
                 options: [0: .int32(count)])
            (b.inputs, b.outputs) = ([x], ys)
            return b
        }
        assertInvalidGraph(try planError(splitting(variable: false, axis: .min, outputs: [[2, 3], [2, 3]])), mentions: "along axis -2147483648")
        assertInvalidGraph(try planError(splitting(variable: false, axis: 1, count: 4, outputs: [[2, 3], [2, 3]])), mentions: "4 pieces")
        assertInvalidGraph(try planError(splitting(variable: false, axis: 1, count: 3, outputs: [[2, 2], [2, 2], [2, 3]])),
                           mentions: "SPLIT: output shape [2, 3] but the inputs give [2, 2]")
        assertInvalidGraph(try planError(splitting(variable: true, axis: 1, sizes: [.max, .max], outputs: [[2, 3], [2, 3]])),
                           mentions: "of an axis of 6")
        assertInvalidGraph(try planError(splitting(variable: true, axis: 1, sizes: [-1, -1], outputs: [[2, 3], [2, 3]])),
                           mentions: "size_splits [-1, -1] for 2 outputs")
        assertInvalidGraph(try planError(splitting(variable: true, axis: 1, sizes: [4, 4], outputs: [[2, 3], [2, 3]])),
                           mentions: "do not add up")
        func transposing(stride: Int32, shape: [Int32]) -> TFLiteBuilder {
            var b = TFLiteBuilder()
            let x = b.tensor("x", .float32, [1, 2, 2, 3])
            let y = b.tensor("y", .float32, [1, 4, 4, 2])
            let filter = b.constant("filter", floats: Array(repeating: 0.5, count: 2 * 2 * 2 * 3), shape: [2, 2, 2, 3])
            b.op(transposeConv, inputs: [b.constant("shape", int32s: shape), filter, x], outputs: [y],
                 optionsType: transposeConvOptions, options: [0: .int8(0), 1: .int32(stride), 2: .int32(stride)])
            (b.inputs, b.outputs) = ([x], [y])
            return b
        }
        assertInvalidGraph(try planError(transposing(stride: 0, shape: [1, 4, 4, 2])), mentions: "strides 0×0")
        guard case let .unsupportedOperator(name, _, reason) = try planError(transposing(stride: 2, shape: [1, 8, 8, 2])) else {
            return XCTFail("a TRANSPOSE_CONV whose output shape input differs from its output was planned")
        }
        XCTAssertEqual(name, "TRANSPOSE_CONV")
        XCTAssertTrue(reason.contains("output shape must be a constant equal to the output's [1, 4, 4, 2]"), reason)
        // The same model with the shapes agreeing plans: the errors above are the options', not the builder's.
        XCTAssertNoThrow(try ExecutionPlan(model: try model(transposing(stride: 2, shape: [1, 4, 4, 2]))))
    }

    // MARK: axes, permutations, indices and options out of range

    func testOutOfRangeAxesPermutationsAndOptionsAreTypedErrors() throws {
        func unary(_ code: Int32, input: [Int32], output: [Int32], constant: [Int32]? = nil, optionsType: UInt8 = 0,
                   options: [Int: TFLiteBuilder.Field]? = nil) -> TFLiteBuilder {
            var b = TFLiteBuilder()
            let x = b.tensor("x", .float32, input)
            var inputs = [x]
            if let constant { inputs.append(b.constant("c", int32s: constant)) }
            let y = b.tensor("y", .float32, output)
            b.op(code, inputs: inputs, outputs: [y], optionsType: optionsType, options: options)
            (b.inputs, b.outputs) = ([x], [y])
            return b
        }
        assertInvalidGraph(try planError(unary(Self.transpose, input: [2, 3], output: [3, 2], constant: [1, 1])), mentions: "permutation [1, 1]")
        assertInvalidGraph(try planError(unary(Self.transpose, input: [2, 3], output: [3, 2], constant: [.max, .min])),
                           mentions: "permutation [2147483647, -2147483648]")
        assertInvalidGraph(try planError(unary(Self.mean, input: [2, 3], output: [2], constant: [Int32.min],
                                               optionsType: Self.reducerOptions, options: [:])), mentions: "axis -2147483648 for rank 2")
        assertInvalidGraph(try planError(unary(Self.concatenation, input: [2, 3], output: [2, 3], optionsType: Self.concatenationOptions,
                                               options: [0: .int32(.min)])), mentions: "axis -2147483648 for rank 2")
        assertInvalidGraph(try planError(unary(Self.gather, input: [2, 3], output: [1, 3], constant: [0], optionsType: Self.gatherOptions,
                                               options: [0: .int32(.max)])), mentions: "axis 2147483647 for rank 2")
        // block_size² overflowed Int32 in DEPTH_TO_SPACE.
        assertInvalidGraph(try planError(unary(Self.depthToSpace, input: [1, 1, 1, 4], output: [1, 2, 2, 1],
                                               optionsType: Self.depthToSpaceOptions, options: [0: .int32(1 << 16)])),
                           mentions: "block 65536")
    }

    /// MEAN over axis 0 of a scalar read the size of the scalar's dimension 0, which it has not: an index out of range
    /// that trapped the plan (found by the model-plan fuzz harness). A scalar's mean over its one value is that value;
    /// axis −1 (−1 + rank 0) stays a typed error.
    func testAReductionOfAScalarDoesNotTrap() throws {
        func scalarMean(axis: Int32) -> TFLiteBuilder {
            var b = TFLiteBuilder()
            let x = b.tensor("x", .float32, []), y = b.tensor("y", .float32, [])
            b.op(Self.mean, inputs: [x, b.constant("axes", int32s: [axis])], outputs: [y], optionsType: Self.reducerOptions, options: [:])
            (b.inputs, b.outputs) = ([x], [y])
            return b
        }
        let interpreter = try Interpreter(model: try model(scalarMean(axis: 0)), threads: 1)
        try interpreter.setInput(0, floats: [2.5])
        interpreter.invoke()
        XCTAssertEqual(try interpreter.outputFloats(0), [2.5])
        assertInvalidGraph(try planError(scalarMean(axis: -1)), mentions: "axis -1 for rank 0")
    }
}
