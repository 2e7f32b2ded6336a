import VisionTasksEngine
import VisionTasksModelFormat
import Foundation
import VisionTasksTestSupport
import VisionTasksTooling
import XCTest

/// Every kernel on synthetic one-operator models, as XNNPACK tests its micro-kernels: shape sweeps (channel counts
/// that are not multiples of the vector width, odd sizes, every padding, stride, dilation and fused activation) in
/// float32, uint8 and int8 with per-channel weights, against LiteRT on the same model and inputs
/// (`.cache/kernel-sweeps/*.npz`, written by `tools/litert_kernel_sweeps.py`), and TFLite_Detection_PostProcess on
/// 62 option sets, ties and degenerate boxes (`.cache/goldens-postprocess`, `tools/litert_postprocess_goldens.py`).
final class KernelSweepTests: XCTestCase {
    struct Case {
        let label: String
        let model: [UInt8]
        let inputs: [NumPyArray]
        /// LiteRT with its default path (XNNPACK where it takes the operator) and with builtin kernels only.
        let outputs: [NumPyArray]
        let builtin: [NumPyArray]
    }

    static func cases(_ file: URL) throws -> [Case] {
        let archive = try TaskBundle(path: file.path)
        var arrays: [String: NumPyArray] = [:]
        for member in archive.members { arrays[String(member.path.dropLast(4))] = try NumPyArray(npy: member.bytes) }
        let labels = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try XCTUnwrap(arrays["cases.json"]).bytes)) as? [[String: Any]])
        return try labels.indices.map { i in
            func series(_ prefix: String) -> [NumPyArray] {
                var values: [NumPyArray] = []
                while let next = arrays["\(prefix)\(i)_\(values.count)"] { values.append(next) }
                return values
            }
            return Case(label: labels[i]["label"] as? String ?? "case \(i)", model: try XCTUnwrap(arrays["m\(i)"]).bytes,
                        inputs: series("a"), outputs: series("o"), builtin: series("b"))
        }
    }

    static func files(_ directory: String, generatedBy tool: String) -> [URL] {
        let url = Repository.goldens(directory)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path))?.filter { $0.hasSuffix(".npz") }.sorted() ?? []
        XCTAssertFalse(names.isEmpty, "no cases in \(url.path): run \(tool) (tools/run-tests does)")
        return names.map { url.appendingPathComponent($0) }
    }

    /// Runs a case's model on its inputs and returns our outputs' bytes.
    static func run(_ testCase: Case, threads: Int, kernels: KernelConfig = .compiled) throws -> [[UInt8]] {
        let interpreter = try Interpreter(model: try TFLiteModel(bytes: ByteStorage(copying: testCase.model).slice), threads: threads, kernels: kernels)
        for (index, input) in testCase.inputs.enumerated() { try interpreter.setInput(index, bytes: input.bytes) }
        interpreter.invoke()
        return try testCase.outputs.indices.map { try interpreter.outputBytes($0) }
    }

    /// Cases where LiteRT's builtin ADD / MUL fallback (scale ratios XNNPACK refuses) is itself wrong: once the value
    /// before the clamp leaves int16's range its vector loops saturate to the wrong end (an exact −58 672 comes out as
    /// 255). MediaPipe would inherit that; we clamp to the right end instead and do not reproduce the defect. Matched
    /// by label: such a case may differ from LiteRT (at most five do), every other case must not.
    static let liteRTDefects = ["beyond int16 before the clamp", "builtin-fallback ab/y=300 sparse broadcast"]

    /// The sweeps through what this process runs, and — where ``KernelConfig/compiled`` runs a higher tier's C loops
    /// (a plain build on an AVX2 or AVX-512 CPU) — through the build's own Swift kernels too: what such a build runs
    /// on a CPU without AVX2. Elsewhere the two are one configuration.
    func testEveryKernelOnShapeSweeps() throws {
        try sweep(kernels: .compiled)
        if KernelConfig.dispatchedTier != nil {
            try sweep(kernels: .compiledWithoutDispatch)
        } else {
            XCTAssertEqual(KernelConfig.compiled, KernelConfig.compiledWithoutDispatch)
        }
    }

    /// The same sweeps through the kernels of a build that compiled the engine without optimization (a dependent's
    /// debug build): OpenBLAS for the float products, the C loops for float depthwise, im2col, bias, activation,
    /// epilogues and resizing; the same tolerance against LiteRT.
    func testEveryKernelOnShapeSweepsWithoutOptimization() throws {
        try sweep(kernels: .withoutOptimization(tier: KernelConfig.compiledTier))
    }

    func sweep(kernels: KernelConfig) throws {
        var summary: [String] = []
        var skipped = 0
        for file in Self.files("kernel-sweeps", generatedBy: "tools/litert_kernel_sweeps.py") {
            var checked = 0, worstFloat: Float = 0
            for testCase in try Self.cases(file) {
                if Self.liteRTDefects.contains(where: testCase.label.contains) {
                    let ours = try Self.run(testCase, threads: 1, kernels: kernels)
                    if zip(ours, testCase.outputs).contains(where: { QuantizedGoldenTests.lsb($0, $1) > 0 }) { skipped += 1 }
                    continue
                }
                var oneThread: [[UInt8]] = []
                for threads in [1, 2] {
                    let ours = try Self.run(testCase, threads: threads, kernels: kernels)
                    // Bit for bit at any thread count (each thread's slice computed as one thread computes it).
                    if threads == 1 { oneThread = ours } else { XCTAssertEqual(ours, oneThread, "\(file.lastPathComponent) \(testCase.label): \(threads) threads") }
                    for (k, reference) in testCase.outputs.enumerated() {
                        let label = "\(file.lastPathComponent) \(testCase.label) output \(k), \(threads) threads"
                        if reference.type == .float32 {
                            let error = LiteRTGoldenTests.worstError(LiteRTGoldenTests.floats(ours[k]), reference.floats).relative
                            worstFloat = max(worstFloat, error)
                            XCTAssertLessThanOrEqual(error, LiteRTGoldenTests.tolerance, label)
                        } else {
                            XCTAssertEqual(QuantizedGoldenTests.lsb(ours[k], reference), 0, "\(label): LSB from LiteRT")
                            // Within 1 LSB of LiteRT's builtin kernel too, where LiteRT's two paths agree that far (one
                            // int8 MUL case has the builtin kernel saturate to the wrong end; XNNPACK and NumPy agree).
                            if k < testCase.builtin.count, QuantizedGoldenTests.lsb(reference.bytes, testCase.builtin[k]) <= 1 {
                                XCTAssertLessThanOrEqual(QuantizedGoldenTests.lsb(ours[k], testCase.builtin[k]), 1, "\(label): LSB from LiteRT's builtin kernel")
                            }
                        }
                    }
                }
                checked += 1
            }
            summary.append("\(file.deletingPathExtension().lastPathComponent) \(checked)" + (worstFloat > 0 ? String(format: " (float %.1g)", worstFloat) : ""))
        }
        XCTAssertLessThanOrEqual(skipped, 5, "more sweep cases differ from LiteRT's defective fallback than the five known")
        print("kernel sweeps (\(kernels.floatGEMM), \(kernels.floatDepthwise), \(kernels.quantizedGEMM)\(kernels.quantizedGEMMTileTier.map { " C tiles of \($0)" } ?? "")): \(summary.joined(separator: ", ")); \(skipped) cases differ where LiteRT's builtin fallback is wrong")
    }

    /// The quantized convolution sweeps (CONV_2D, TRANSPOSE_CONV, FULLY_CONNECTED) again through the other quantized
    /// GEMM than the build's own (``KernelConfig/QuantizedGEMMKernel``: the VNNI tier's byte quads on any other host,
    /// where they run as pairs; the int16 pairs on a VNNI host), in Swift, at one and two threads: LiteRT's bytes.
    func testQuantizedSweepsThroughTheOtherGEMM() throws {
        // The build's Swift tiles (no C tiles of a dispatched tier). A build without optimization sends the products
        // to OpenBLAS whatever the GEMM; its sweep above covers that.
        var other = KernelConfig.compiledWithoutDispatch
        other.quantizedGEMM = other.quantizedGEMM == .int16Pairs ? .int8Quads : .int16Pairs
        let families = ["conv2d.npz", "transpose_conv.npz", "fully_connected.npz"]
        let files = Self.files("kernel-sweeps", generatedBy: "tools/litert_kernel_sweeps.py").filter { families.contains($0.lastPathComponent) }
        XCTAssertEqual(files.count, families.count)
        var checked = 0
        for file in files {
            for testCase in try Self.cases(file) where !Self.liteRTDefects.contains(where: testCase.label.contains) {
                guard testCase.outputs.allSatisfy({ $0.type != .float32 }) else { continue }
                for threads in [1, 2] {
                    let ours = try Self.run(testCase, threads: threads, kernels: other)
                    for (k, reference) in testCase.outputs.enumerated() {
                        XCTAssertEqual(QuantizedGoldenTests.lsb(ours[k], reference), 0,
                                       "\(file.lastPathComponent) \(testCase.label) output \(k), \(other.quantizedGEMM) at \(threads) threads: LSB from LiteRT")
                    }
                }
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 40, "quantized cases")
        print("quantized sweeps through \(other.quantizedGEMM): \(checked) cases")
    }

    /// The depthwise sweeps again with the other width of channel loops than the build's (``KernelConfig/
    /// DepthwiseKernel``: sixteen channels per vector, the AVX-512 tiers', on an AVX2 host, where they run as pairs
    /// of AVX2 registers; eight on an AVX-512 host), at one and two threads: LiteRT's bytes (quantized), and bit for
    /// bit the build's own loops' floats, which the sweep above holds to LiteRT.
    func testDepthwiseSweepsThroughTheOtherChannelLoops() throws {
        // The build's own Swift loops of both widths: a plain build on an AVX2 CPU runs C loops in their place
        // (KernelConfig.dispatchedTier), whose fused bits the sweep above and DepthwiseMicroKernelTests hold.
        // A build without optimization runs C loops in the float rows' place (``KernelConfig/FloatDepthwiseKernel/
        // ononeLoops``: within rounding of the Swift loops, not their bits): there the two Swift widths face each other.
        var own = KernelConfig.compiledWithoutDispatch
        if own.floatDepthwise == .ononeLoops { own.floatDepthwise = .sixteenChannels }
        var other = own
        other.floatDepthwise = other.floatDepthwise == .eightChannels ? .sixteenChannels : .eightChannels
        other.quantizedDepthwise = other.quantizedDepthwise == .eightChannels ? .sixteenChannels : .eightChannels
        let file = try XCTUnwrap(Self.files("kernel-sweeps", generatedBy: "tools/litert_kernel_sweeps.py")
            .first { $0.lastPathComponent == "depthwise_conv2d.npz" })
        var checked = 0, wide = 0
        for testCase in try Self.cases(file) {
            let ownBits = try Self.run(testCase, threads: 1, kernels: own)
            for threads in [1, 2] {
                let ours = try Self.run(testCase, threads: threads, kernels: other)
                for (k, reference) in testCase.outputs.enumerated() {
                    let label = "\(testCase.label) output \(k), \(other.floatDepthwise) at \(threads) threads"
                    if reference.type == .float32 {
                        XCTAssertEqual(ours[k], ownBits[k], "\(label): not the bits of \(own.floatDepthwise)")
                    } else {
                        XCTAssertEqual(QuantizedGoldenTests.lsb(ours[k], reference), 0, "\(label): LSB from LiteRT")
                    }
                }
            }
            if testCase.label.contains("x24 ") || testCase.label.contains("x33 ") { wide += 1 }
            checked += 1
        }
        XCTAssertGreaterThan(wide, 5, "cases with 16 channels or more")
        print("depthwise sweeps through \(other.floatDepthwise): \(checked) cases")
    }

    func testDetectionPostProcessOnEveryOptionSet() throws {
        for file in Self.files("goldens-postprocess", generatedBy: "tools/litert_postprocess_goldens.py") {
            let cases = try Self.cases(file)
            for testCase in cases {
                let ours = try Self.run(testCase, threads: 1)
                for (k, reference) in testCase.outputs.enumerated() {
                    let mine = LiteRTGoldenTests.floats(ours[k]), theirs = reference.floats
                    XCTAssertEqual(mine.count, theirs.count, "\(testCase.label) output \(k) size")
                    // Unwritten slots are 0 in both (LiteRT's stored as 0 by the tool, ours zero-filled).
                    let difference = zip(mine, theirs).map { abs($0 - $1) }.max() ?? 0
                    XCTAssertLessThanOrEqual(difference, 1e-5, "\(testCase.label) output \(k)")
                }
            }
            print("detection post-processing: \(cases.count) option sets and inputs equal LiteRT's")
        }
    }
}
