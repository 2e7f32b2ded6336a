import Foundation
@testable import VisionTasksEngine
import VisionTasksModelFormat
import VisionTasksModelMutation
import XCTest

/// The depthwise channel loops of both widths (``KernelConfig/DepthwiseKernel``: eight channels per vector, the AVX2
/// tier's, and sixteen, the AVX-512 tiers') on one-operator models against a scalar reference: float sums in Double,
/// within float32's rounding, and the two widths (and two threads) bit for bit; uint8 with a per-tensor filter and
/// int8 with a per-channel one, the exact sums requantized as XNNPACK does (``Requantization``), byte for byte.
/// LiteRT's own outputs are KernelSweepTests' and the goldens' business; these shapes reach every loop and tail:
/// 3 × 3 and 5 × 5 at strides 1, 2 and 3, SAME and VALID padding, dilation 2, other filter sizes (border loop only),
/// a channel multiplier of 2, maps large enough for the unpadded row loop and small enough for the padded copy (in
/// blocks of channels), and channel counts of 3, 8, 16, 19, 20, 24, 33, 37, 40 and 312 (whole vectors of 16, then 8
/// more, 1–7 more, or fewer than 16 in all).
final class DepthwiseMicroKernelTests: XCTestCase {
    struct Shape: CustomStringConvertible {
        let height: Int, width: Int, channels: Int, multiplier: Int, filter: Int, stride: Int
        let same: Bool, dilation: Int
        /// FusedActivation's raw value: 0 none, 1 ReLU, 3 ReLU6, 4 tanh (float only).
        let activation: UInt8

        init(_ height: Int, _ width: Int, _ channels: Int, filter: Int, stride: Int, same: Bool = true, multiplier: Int = 1,
             dilation: Int = 1, activation: UInt8 = 0) {
            (self.height, self.width, self.channels, self.multiplier) = (height, width, channels, multiplier)
            (self.filter, self.stride, self.same, self.dilation, self.activation) = (filter, stride, same, dilation, activation)
        }

        var outputChannels: Int { channels * multiplier }
        var span: Int { (filter - 1) * dilation + 1 }
        var outputHeight: Int { same ? (height + stride - 1) / stride : (height - span) / stride + 1 }
        var outputWidth: Int { same ? (width + stride - 1) / stride : (width - span) / stride + 1 }
        var padTop: Int { same ? max((outputHeight - 1) * stride + span - height, 0) / 2 : 0 }
        var padLeft: Int { same ? max((outputWidth - 1) * stride + span - width, 0) / 2 : 0 }
        var description: String {
            "\(height)×\(width)×\(channels) \(filter)×\(filter) s\(stride) \(same ? "SAME" : "VALID") m\(multiplier) d\(dilation) act \(activation)"
        }

        /// Calls `tap(input index, filter index)` for each tap of output (oy, ox, o)'s window inside the input.
        func window(_ oy: Int, _ ox: Int, _ o: Int, _ tap: (Int, Int) -> Void) {
            for ky in 0..<filter {
                let iy = oy * stride - padTop + ky * dilation
                guard iy >= 0, iy < height else { continue }
                for kx in 0..<filter {
                    let ix = ox * stride - padLeft + kx * dilation
                    guard ix >= 0, ix < width else { continue }
                    tap((iy * width + ix) * channels + o / multiplier, (ky * filter + kx) * outputChannels + o)
                }
            }
        }

        func model(_ type: TFLiteBuilder.ElementType, filter weights: [UInt8], bias: [UInt8],
                   quantization: (input: TFLiteBuilder.Quantization, filter: TFLiteBuilder.Quantization, output: TFLiteBuilder.Quantization)? = nil) throws -> TFLiteModel {
            var b = TFLiteBuilder()
            let x = b.tensor("x", type, [1, Int32(height), Int32(width), Int32(channels)], quantization: quantization?.input)
            let w = b.tensor("w", type, [1, Int32(filter), Int32(filter), Int32(outputChannels)], data: weights, quantization: quantization?.filter)
            let c = b.tensor("b", type == .float32 ? .float32 : .int32, [Int32(outputChannels)], data: bias)
            let y = b.tensor("y", type, [1, Int32(outputHeight), Int32(outputWidth), Int32(outputChannels)], quantization: quantization?.output)
            // DEPTHWISE_CONV_2D (4), DepthwiseConv2DOptions (2): padding, stride w, stride h, multiplier, activation,
            // dilation w, dilation h.
            b.op(4, inputs: [x, w, c], outputs: [y], optionsType: 2,
                 options: [0: .int8(same ? 0 : 1), 1: .int32(Int32(stride)), 2: .int32(Int32(stride)), 3: .int32(Int32(multiplier)),
                           4: .uint8(activation), 5: .int32(Int32(dilation)), 6: .int32(Int32(dilation))])
            (b.inputs, b.outputs) = ([x], [y])
            return try TFLiteModel(bytes: ByteStorage(copying: b.build()).slice)
        }
    }

    static let shapes: [Shape] = [
        Shape(40, 40, 40, filter: 3, stride: 1, activation: 3),   // row loop (borders under a tenth), 32 + 8
        Shape(40, 40, 20, filter: 3, stride: 1),                  // 16 + the 16 ending at 20
        Shape(40, 40, 3, filter: 3, stride: 1, activation: 1),    // scalar channels only
        Shape(21, 21, 24, filter: 3, stride: 2, activation: 4),   // stride 2: no padded copy (float), 16 + 8, tanh
        Shape(21, 21, 37, filter: 5, stride: 2, same: false),     // 32 + the 16 ending at 37
        Shape(7, 7, 312, filter: 5, stride: 1, activation: 1),    // 5 × 5 over the padded copy in blocks of 128, 128, 56
        Shape(12, 12, 40, filter: 3, stride: 1, activation: 4),   // padded copy, one block
        Shape(9, 9, 16, filter: 3, stride: 3),                    // 3 × 3 at stride 3 (the general loop)
        Shape(9, 9, 40, filter: 5, stride: 3, same: false),       // 5 × 5 at stride 3
        Shape(11, 11, 24, filter: 3, stride: 1, dilation: 2),     // dilation: the border loop everywhere
        Shape(10, 10, 12, filter: 3, stride: 1, multiplier: 2),   // channel multiplier
        Shape(9, 9, 8, filter: 3, stride: 2),                     // 8 channels
        Shape(9, 9, 33, filter: 7, stride: 1),                    // 7 × 7: border loop, 32 + 1
        Shape(8, 8, 19, filter: 2, stride: 2, same: false),       // 2 × 2: border loop, 16 + 3
    ]

    /// The AVX2 tier's loops, then the sixteen-channel ones in the same configuration otherwise.
    static var widths: [KernelConfig] {
        var sixteen = KernelConfig(tier: .avx2)
        sixteen.floatDepthwise = .sixteenChannels
        sixteen.quantizedDepthwise = .sixteenChannels
        return [KernelConfig(tier: .avx2), sixteen]
    }

    /// Every width and thread count (eight channels at one thread, sixteen at one and two) on one model.
    static func runs(_ model: TFLiteModel, _ input: (Interpreter) throws -> Void) throws -> [(String, [UInt8])] {
        try [(widths[0], 1), (widths[1], 1), (widths[1], 2)].map { kernels, threads in
            let interpreter = try Interpreter(model: model, threads: threads, kernels: kernels)
            try input(interpreter)
            interpreter.invoke()
            return ("\(kernels.floatDepthwise) at \(threads) threads", try interpreter.outputBytes(0))
        }
    }

    func testFloatLoopsOfBothWidthsEqualEachOtherAndTheReference() throws {
        XCTAssertEqual(KernelConfig(tier: .avx512).floatDepthwise, .sixteenChannels)
        XCTAssertEqual(KernelConfig(tier: .avx512VNNI).floatDepthwise, .sixteenChannels)
        XCTAssertEqual(KernelConfig(tier: .avx2).floatDepthwise, .eightChannels)
        var g = QuantizedMicroKernelTests.Generator(seed: 16)
        for shape in Self.shapes {
            let input = (0..<shape.height * shape.width * shape.channels).map { _ in Float.random(in: -1...1, using: &g) }
            let weights = (0..<shape.filter * shape.filter * shape.outputChannels).map { _ in Float.random(in: -1...1, using: &g) }
            let bias = (0..<shape.outputChannels).map { _ in Float.random(in: -1...1, using: &g) }
            func bytes(_ values: [Float]) -> [UInt8] { values.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) } }
            let runs = try Self.runs(try shape.model(.float32, filter: bytes(weights), bias: bytes(bias))) { try $0.setInput(0, floats: input) }
            for (label, output) in runs.dropFirst() {
                XCTAssertEqual(output, runs[0].1, "\(shape): \(label) differs from \(runs[0].0)")
            }
            let ours = LiteRTGoldenTests.floats(runs[1].1)
            var worst = 0.0
            for oy in 0..<shape.outputHeight {
                for ox in 0..<shape.outputWidth {
                    for o in 0..<shape.outputChannels {
                        var sum = Double(bias[o])
                        shape.window(oy, ox, o) { sum += Double(input[$0]) * Double(weights[$1]) }
                        switch shape.activation {
                        case 1: sum = max(sum, 0)
                        case 3: sum = min(max(sum, 0), 6)
                        case 4: sum = Foundation.tanh(sum)
                        default: break
                        }
                        worst = max(worst, abs(sum - Double(ours[(oy * shape.outputWidth + ox) * shape.outputChannels + o])))
                    }
                }
            }
            // Float32 sums of at most 49 products of magnitude ≤ 1.
            XCTAssertLessThan(worst, 1e-4, "\(shape) against the reference")
        }
    }

    /// The C loops a plain build runs on a CPU with AVX2 or AVX-512 (``KernelConfig/dispatchFloatDepthwise(to:)``:
    /// the interiors of 3 × 3 and 5 × 5 filters, multiplier 1), on every shape: within float32's rounding of the
    /// Double reference, bit-identical whichever tier's table and at 1, 2 and 3 threads, and bit for bit the
    /// eight-channel Swift loops where those fuse their multiply-adds (a build tuned for AVX2 or above; in a portable
    /// build the border pixels and the other filters stay its unfused Swift, so only the bound holds there).
    func testDispatchedFloatLoopsEqualTheSwiftLoopsAndTheReference() throws {
        let tiers = KernelConfig.dispatchableTiers
        guard !tiers.isEmpty else {
            // No C loops for this CPU (arm64, or an x86-64 CPU without AVX2): then nothing is dispatched.
            XCTAssertNil(KernelConfig.dispatchedTier)
            return
        }
        var g = QuantizedMicroKernelTests.Generator(seed: 61)
        for shape in Self.shapes {
            let input = (0..<shape.height * shape.width * shape.channels).map { _ in Float.random(in: -1...1, using: &g) }
            let weights = (0..<shape.filter * shape.filter * shape.outputChannels).map { _ in Float.random(in: -1...1, using: &g) }
            let bias = (0..<shape.outputChannels).map { _ in Float.random(in: -1...1, using: &g) }
            func bytes(_ values: [Float]) -> [UInt8] { values.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) } }
            let model = try shape.model(.float32, filter: bytes(weights), bias: bytes(bias))
            var runs: [(String, KernelConfig, Int)] = []
            for tier in tiers {
                var kernels = KernelConfig(tier: KernelConfig.compiledTier)
                XCTAssertTrue(kernels.dispatchFloatDepthwise(to: tier))
                XCTAssertEqual(kernels.floatDepthwiseLoopTier, tier)
                for threads in [1, 2, 3] { runs.append(("C loops of \(tier) at \(threads) threads", kernels, threads)) }
            }
            if KernelConfig.compiledTier != .portable { runs.append(("the Swift eight-channel loops", KernelConfig(tier: .avx2), 1)) }
            let outputs = try runs.map { _, kernels, threads in
                let interpreter = try Interpreter(model: model, threads: threads, kernels: kernels)
                try interpreter.setInput(0, floats: input)
                interpreter.invoke()
                return try interpreter.outputBytes(0)
            }
            for (run, output) in zip(runs, outputs).dropFirst() {
                XCTAssertEqual(output, outputs[0], "\(shape): \(run.0) differs from \(runs[0].0)")
            }
            let ours = LiteRTGoldenTests.floats(outputs[0])
            var worst = 0.0
            for oy in 0..<shape.outputHeight {
                for ox in 0..<shape.outputWidth {
                    for o in 0..<shape.outputChannels {
                        var sum = Double(bias[o])
                        shape.window(oy, ox, o) { sum += Double(input[$0]) * Double(weights[$1]) }
                        switch shape.activation {
                        case 1: sum = max(sum, 0)
                        case 3: sum = min(max(sum, 0), 6)
                        case 4: sum = Foundation.tanh(sum)
                        default: break
                        }
                        worst = max(worst, abs(sum - Double(ours[(oy * shape.outputWidth + ox) * shape.outputChannels + o])))
                    }
                }
            }
            XCTAssertLessThan(worst, 1e-4, "\(shape) against the reference")
        }
    }

    func testQuantizedLoopsOfBothWidthsEqualTheReference() throws {
        XCTAssertEqual(KernelConfig(tier: .avx512).quantizedDepthwise, .sixteenChannels)
        XCTAssertEqual(KernelConfig(tier: .avx2).quantizedDepthwise, .eightChannels)
        var g = QuantizedMicroKernelTests.Generator(seed: 17)
        var checked = 0
        for shape in Self.shapes where shape.activation != 4 {
            for signed in [false, true] {
                let range: ClosedRange<Int32> = signed ? -128...127 : 0...255
                let oc = shape.outputChannels
                let input = (0..<shape.height * shape.width * shape.channels).map { _ in Int32.random(in: range, using: &g) }
                let weights = (0..<shape.filter * shape.filter * oc).map { _ in Int32.random(in: range, using: &g) }
                let bias = (0..<oc).map { _ in Int32.random(in: -3000...3000, using: &g) }
                // uint8: one scale and zero point for the filter; int8: a scale per channel, zero points 0 (TFLite's
                // int8 filters are symmetric).
                let filterScales = signed ? (0..<oc).map { _ in Float.random(in: 0.005...0.03, using: &g) } : [0.02]
                let filterZeros: [Int32] = signed ? Array(repeating: 0, count: oc) : [Int32.random(in: 90...170, using: &g)]
                let inputScale: Float = 0.02, outputScale = Float(0.05 * Double(shape.filter))
                let inputZero = Int32.random(in: range, using: &g), outputZero = Int32.random(in: range.lowerBound / 2...range.upperBound / 2, using: &g)
                let model = try shape.model(
                    signed ? .int8 : .uint8, filter: weights.map { UInt8(truncatingIfNeeded: $0) },
                    bias: bias.flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) },
                    quantization: (TFLiteBuilder.Quantization(scale: [inputScale], zeroPoint: [Int64(inputZero)]),
                                   TFLiteBuilder.Quantization(scale: filterScales, zeroPoint: filterZeros.map(Int64.init), quantizedDimension: 3),
                                   TFLiteBuilder.Quantization(scale: [outputScale], zeroPoint: [Int64(outputZero)])))
                let runs = try Self.runs(model) { try $0.setInput(0, bytes: input.map { UInt8(truncatingIfNeeded: $0) }) }
                let output = Quantization(scale: outputScale, zeroPoint: outputZero, range: range)
                let activation: FusedActivation = shape.activation == 1 ? .relu : shape.activation == 3 ? .relu6 : .none
                let requantization = Requantization(output: output, bounds: try XCTUnwrap(output.bounds(activation)))
                var expected = [UInt8]()
                for oy in 0..<shape.outputHeight {
                    for ox in 0..<shape.outputWidth {
                        for o in 0..<oc {
                            let z = filterZeros[signed ? o : 0]
                            var sum = Int64(bias[o])
                            shape.window(oy, ox, o) { sum += Int64(input[$0] - inputZero) * Int64(weights[$1] - z) }
                            let scale = inputScale * filterScales[signed ? o : 0] / outputScale
                            expected.append(UInt8(truncatingIfNeeded: requantization(Int32(sum), scale: scale)))
                        }
                    }
                }
                for (label, bytes) in runs {
                    XCTAssertEqual(bytes, expected, "\(shape) \(signed ? "int8 per channel" : "uint8 per tensor"): \(label)")
                }
                checked += 1
            }
        }
        XCTAssertEqual(checked, 24)
    }
}
