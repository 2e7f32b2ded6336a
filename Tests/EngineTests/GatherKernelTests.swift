import VisionTasksEngine
import VisionTasksModelFormat
import VisionTasksModelMutation
import VisionTasksTestSupport
import Foundation
import XCTest

/// MediaPipe's custom `Convolution2DTransposeBias` (LiteRT cannot run it; its LiteRT golden is selfie segmentation's
/// one layer rewritten to TRANSPOSE_CONV) against TFLite's definition computed here in Double — every input pixel
/// scatters filter × value into the output window at input × stride − padding — on geometries that reach every path
/// of our output-centric kernel: overlapping windows (3 × 3 stride 2, stride 1), tiling ones (2 × 2 stride 2),
/// windows past the output's edge (VALID with stride 3), output channels below, at and past a vector of eight, widths
/// with and without whole groups of eight columns. And LOGISTIC's polynomial against the sigmoid in Double.
final class GatherKernelTests: XCTestCase {
    struct Geometry {
        let input: (h: Int, w: Int, c: Int)
        let outputChannels: Int
        let filter: (h: Int, w: Int)
        let stride: (h: Int, w: Int)
        let same: Bool

        var output: (h: Int, w: Int) {
            // The output size a forward convolution with this filter and stride maps back to the input size.
            same ? (input.h * stride.h, input.w * stride.w)
                 : ((input.h - 1) * stride.h + filter.h, (input.w - 1) * stride.w + filter.w)
        }
    }

    static let geometries = [
        Geometry(input: (5, 7, 3), outputChannels: 2, filter: (3, 3), stride: (2, 2), same: true),
        Geometry(input: (4, 9, 16), outputChannels: 1, filter: (2, 2), stride: (2, 2), same: true),
        Geometry(input: (6, 21, 8), outputChannels: 2, filter: (2, 2), stride: (2, 2), same: true),
        Geometry(input: (9, 18, 4), outputChannels: 9, filter: (3, 3), stride: (2, 2), same: true),
        Geometry(input: (7, 17, 5), outputChannels: 3, filter: (4, 4), stride: (3, 3), same: false),
        Geometry(input: (3, 20, 17), outputChannels: 17, filter: (3, 3), stride: (1, 1), same: true),
        Geometry(input: (8, 8, 4), outputChannels: 8, filter: (3, 2), stride: (2, 1), same: false),
        Geometry(input: (2, 33, 32), outputChannels: 8, filter: (2, 2), stride: (2, 2), same: true),
    ]

    func testTransposedConvolutionMatchesItsDefinition() throws {
        var rng = SplitMix64(seed: 0x7C0)
        for g in Self.geometries {
            // The second time with a PReLU after it, which the plan fuses into the transposed convolution.
            for prelu in [false, true] {
                let (oh, ow) = g.output
                let weights = (0..<g.outputChannels * g.filter.h * g.filter.w * g.input.c).map { _ in Float.random(in: -1...1, using: &rng) }
                let bias = (0..<g.outputChannels).map { _ in Float.random(in: -1...1, using: &rng) }
                let input = (0..<g.input.h * g.input.w * g.input.c).map { _ in Float.random(in: -1...1, using: &rng) }
                var b = TFLiteBuilder()
                let x = b.tensor("x", .float32, [1, Int32(g.input.h), Int32(g.input.w), Int32(g.input.c)])
                let w = b.constant("w", floats: weights, shape: [Int32(g.outputChannels), Int32(g.filter.h), Int32(g.filter.w), Int32(g.input.c)])
                let y = b.tensor("y", .float32, [1, Int32(oh), Int32(ow), Int32(g.outputChannels)])
                // TfLiteTransposeConvParams: padding (1 same, 2 valid), stride_width, stride_height.
                let options = [Int32(g.same ? 1 : 2), Int32(g.stride.w), Int32(g.stride.h)].flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) }
                b.op(32, custom: "Convolution2DTransposeBias", inputs: [x, w, b.constant("b", floats: bias)], outputs: [y], customOptions: options)
                let slopes = (0..<g.outputChannels).map { _ in Float.random(in: -1...1, using: &rng) }
                if prelu {
                    let z = b.tensor("z", .float32, [1, Int32(oh), Int32(ow), Int32(g.outputChannels)])
                    b.op(54, inputs: [y, b.constant("alpha", floats: slopes, shape: [1, 1, Int32(g.outputChannels)])], outputs: [z])
                    (b.inputs, b.outputs) = ([x], [z])
                } else {
                    (b.inputs, b.outputs) = ([x], [y])
                }

                // The definition, in Double. Padding: that of a forward convolution from the output back to the input.
                let padTop = g.same ? max((g.input.h - 1) * g.stride.h + g.filter.h - oh, 0) / 2 : 0
                let padLeft = g.same ? max((g.input.w - 1) * g.stride.w + g.filter.w - ow, 0) / 2 : 0
                var expected = [Double](repeating: 0, count: oh * ow * g.outputChannels)
                for iy in 0..<g.input.h {
                    for ix in 0..<g.input.w {
                        for ky in 0..<g.filter.h {
                            for kx in 0..<g.filter.w {
                                let oy = iy * g.stride.h - padTop + ky, ox = ix * g.stride.w - padLeft + kx
                                guard oy >= 0, oy < oh, ox >= 0, ox < ow else { continue }
                                for oc in 0..<g.outputChannels {
                                    var sum = 0.0
                                    for c in 0..<g.input.c {
                                        sum += Double(input[(iy * g.input.w + ix) * g.input.c + c])
                                            * Double(weights[((oc * g.filter.h + ky) * g.filter.w + kx) * g.input.c + c])
                                    }
                                    expected[(oy * ow + ox) * g.outputChannels + oc] += sum
                                }
                            }
                        }
                    }
                }
                for i in expected.indices { expected[i] += Double(bias[i % g.outputChannels]) }
                if prelu {
                    for i in expected.indices where expected[i] < 0 { expected[i] *= Double(slopes[i % g.outputChannels]) }
                }

                var results: [[Float]] = []
                // 1, 2 and 3 threads, then the loops of a build without optimization (scalar, the same sums in the same order).
                for (threads, kernels) in [(1, KernelConfig.compiled), (2, .compiled), (3, .compiled), (2, .withoutOptimization(tier: KernelConfig.compiledTier))] {
                    let interpreter = try Interpreter(model: try TFLiteModel(bytes: ByteStorage(copying: b.build()).slice), threads: threads,
                                                      kernels: kernels)
                    try interpreter.setInput(0, bytes: input.withUnsafeBytes { Array($0) })
                    interpreter.invoke()
                    let bytes = try interpreter.outputBytes(0)
                    results.append(bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) })
                }
                let label = "\(g.input) → \(g.outputChannels) channels, filter \(g.filter), stride \(g.stride), \(g.same ? "SAME" : "VALID")\(prelu ? ", PReLU" : "")"
                XCTAssertEqual(results[0].count, expected.count, label)
                let worst = zip(results[0], expected).map { abs(Double($0) - $1) / max(1, abs($1)) }.max() ?? 0
                // Sums of at most 9 × 17 products of values within ±1: a float sum is within some 1e-6 of the exact one.
                XCTAssertLessThanOrEqual(worst, 1e-5, label)
                XCTAssertEqual(results[0].map(\.bitPattern), results[1].map(\.bitPattern), "\(label): 1 and 2 threads")
                XCTAssertEqual(results[0].map(\.bitPattern), results[2].map(\.bitPattern), "\(label): 1 and 3 threads")
                XCTAssertEqual(results[0].map(\.bitPattern), results[3].map(\.bitPattern), "\(label): the loops without optimization")
            }
        }
    }

    /// LOGISTIC's vectorized sigmoid within 2 ulp of the sigmoid in Double over the float range where it is neither
    /// 0 nor 1 and past it, plus the ends: ±0, ±inf, NaN, the largest floats.
    func testLogisticIsWithinTwoULPOfTheSigmoid() throws {
        var values: [Float] = [0, -0, .infinity, -.infinity, .nan, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 87.3, -87.3,
                               87.34, -87.34, 88, -88, 103, -103, 1e-30, -1e-30, .leastNonzeroMagnitude]
        var x: Float = -110
        while x <= 20 {
            values.append(x)
            x += 0.000_37
        }
        let results = try Self.unary(14, values)
        var worst: Float = 0, worstAt: Float = 0
        for (value, result) in zip(values, results) {
            if value.isNaN {
                XCTAssertTrue(result.isNaN)
                continue
            }
            let exact = 1 / (1 + Foundation.exp(-Double(value)))
            let reference = Float(exact)
            // Near or below the smallest normal float (x below about −86.6) ours may be 0, as XNNPACK's is (and a
            // subnormal result is flushed to 0 while kernels run).
            if exact < 2 * Double(Float.leastNormalMagnitude) {
                XCTAssertTrue(result == 0 || abs(result - reference) <= 2 * reference.ulp, "x = \(value): \(result) for \(reference)")
                continue
            }
            let ulps = abs(result - reference) / reference.ulp
            if ulps > worst { (worst, worstAt) = (ulps, value) }
        }
        print("logistic: worst \(worst) ulp at x = \(worstAt) over \(values.count) values")
        XCTAssertLessThanOrEqual(worst, 2, "at x = \(worstAt)")
    }

    /// TANH's vectorized tangent within 2 ulp of tanh in Double from −12 to 12 (past about ±9.01 it is ±1), plus the
    /// ends: ±0 (its sign kept), tiny values, ±inf, NaN, and around its clamp at 13 ln 2.
    func testTanhIsWithinTwoULPOfTheHyperbolicTangent() throws {
        var values: [Float] = [0, -0, .infinity, -.infinity, .nan, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                               1e-30, -1e-30, 1e-7, -1e-7, 0.4, -0.4, Float(0.4).nextDown, Float(-0.4).nextUp, 88, -88,
                               9.010_913, Float(9.010_913).nextDown, Float(9.010_913).nextUp, -9.010_913]
        var x: Float = -12
        while x <= 12 {
            values.append(x)
            x += 0.000_29
        }
        let results = try Self.unary(28, values)
        var worst: Float = 0, worstAt: Float = 0
        for (value, result) in zip(values, results) {
            if value.isNaN {
                XCTAssertTrue(result.isNaN)
                continue
            }
            let reference = Float(Foundation.tanh(Double(value)))
            if reference == 0 {
                XCTAssertEqual(result.bitPattern, value.bitPattern, "x = \(value): tanh(±0) is ±0")
                continue
            }
            // Below the smallest normal float, results are flushed to 0 while kernels run.
            if abs(value) < Float.leastNormalMagnitude { continue }
            let ulps = abs(result - reference) / reference.ulp
            if ulps > worst { (worst, worstAt) = (ulps, value) }
        }
        print("tanh: worst \(worst) ulp at x = \(worstAt) over \(values.count) values")
        XCTAssertLessThanOrEqual(worst, 2, "at x = \(worstAt)")
    }

    /// A one-operator float model of builtin operator `opcode` (LOGISTIC 14, TANH 28) over `values`, at one thread.
    static func unary(_ opcode: Int32, _ values: [Float]) throws -> [Float] {
        var b = TFLiteBuilder()
        let input = b.tensor("x", .float32, [Int32(values.count)])
        let output = b.tensor("y", .float32, [Int32(values.count)])
        b.op(opcode, inputs: [input], outputs: [output])
        (b.inputs, b.outputs) = ([input], [output])
        let interpreter = try Interpreter(model: try TFLiteModel(bytes: ByteStorage(copying: b.build()).slice), threads: 1)
        try interpreter.setInput(0, bytes: values.withUnsafeBytes { Array($0) })
        interpreter.invoke()
        return try interpreter.outputBytes(0).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }
}
