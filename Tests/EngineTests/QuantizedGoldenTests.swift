import VisionTasksEngine
import VisionTasksModelFormat
import Foundation
import VisionTasksTestSupport
import VisionTasksTooling
import XCTest

/// The quantized models (the four uint8 models we ship and the int8 fixtures), operator by operator and end to end,
/// against LiteRT (`.cache/goldens-quantized/*.npz`, written by `tools/litert_quantized_goldens.py`).
///
/// LiteRT runs a quantized model with XNNPACK for the operators XNNPACK takes and its builtin kernels for the rest;
/// MediaPipe's detections and labels follow that (shared/models/MODELS.md). So each operator, fed LiteRT's builtin
/// run's inputs, must equal what LiteRT computes for it alone on the path it takes (XNNPACK when it takes the
/// operator, builtin otherwise) and lie within 1 LSB of the builtin kernel; whole models must equal LiteRT with
/// XNNPACK on real images.
final class QuantizedGoldenTests: XCTestCase {
    struct Golden {
        let path: String
        let operators: [(name: String, inputs: [Int], outputs: [Int])]
        let inputs: [Int]
        let outputs: [Int]
        let delegated: [Bool]
        let configurations: [String]
        /// Builtin run: every produced tensor.
        let tensors: [Int: NumPyArray]
        /// XNNPACK (or, for operators it does not take, builtin) on each operator alone: [operator][output k].
        let alone: [Int: [Int: NumPyArray]]
        /// End to end: images, and outputs [configuration][image][k].
        let images: [Int: NumPyArray]
        let endToEnd: [Int: [Int: [Int: NumPyArray]]]
    }

    static func goldens() throws -> [Golden] {
        let directory = Repository.goldens("goldens-quantized")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.filter { $0.hasSuffix(".npz") }.sorted() ?? []
        XCTAssertFalse(files.isEmpty, "no goldens in \(directory.path): run tools/litert_quantized_goldens.py (tools/run-tests does)")
        return try files.map { file in
            let archive = try TaskBundle(path: directory.appendingPathComponent(file).path)
            var tensors: [Int: NumPyArray] = [:], alone: [Int: [Int: NumPyArray]] = [:]
            var images: [Int: NumPyArray] = [:], endToEnd: [Int: [Int: [Int: NumPyArray]]] = [:]
            var json: [String: Any] = [:]
            for member in archive.members {
                let array = try NumPyArray(npy: member.bytes)
                let name = String(member.path.dropLast(4))
                let numbers = name.dropFirst().split(separator: "_").compactMap { Int($0) }
                if name.hasSuffix(".json") {
                    json[name] = try JSONSerialization.jsonObject(with: Data(array.bytes))
                } else if name.hasPrefix("t"), numbers.count == 1 {
                    tensors[numbers[0]] = array
                } else if name.hasPrefix("x"), numbers.count == 2 {
                    alone[numbers[0], default: [:]][numbers[1]] = array
                } else if name.hasPrefix("in"), let i = Int(name.dropFirst(2)) {
                    images[i] = array
                } else if name.hasPrefix("e"), numbers.count == 3 {
                    endToEnd[numbers[0], default: [:]][numbers[1], default: [:]][numbers[2]] = array
                }
            }
            let model = json["model.json"] as! [String: String]
            return Golden(
                path: Repository.root.appendingPathComponent(model["bundle"]!).path,
                operators: (json["ops.json"] as! [[Any]]).map { ($0[0] as! String, $0[1] as! [Int], $0[2] as! [Int]) },
                inputs: json["inputs.json"] as! [Int], outputs: json["outputs.json"] as! [Int],
                delegated: json["delegated.json"] as! [Bool], configurations: json["configs.json"] as! [String],
                tensors: tensors, alone: alone, images: images, endToEnd: endToEnd)
        }
    }

    /// Largest difference between two integer tensors, in steps of their quantization (LSB).
    static func lsb(_ a: [UInt8], _ b: NumPyArray) -> Int {
        guard a.count == b.bytes.count else { return .max }
        var worst = 0
        for i in a.indices {
            let x = b.type == .int8 ? Int(Int8(bitPattern: a[i])) : Int(a[i])
            let y = b.type == .int8 ? Int(Int8(bitPattern: b.bytes[i])) : Int(b.bytes[i])
            worst = max(worst, abs(x - y))
        }
        return worst
    }

    static func floatDifference(_ a: [UInt8], _ b: NumPyArray) -> Float {
        let x = a.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }, y = b.floats
        guard x.count == y.count else { return .infinity }
        return zip(x, y).map { abs($0 - $1) }.max() ?? 0
    }

    /// Both quantized GEMMs and both depthwise widths whatever the build's tier: the int16 pairs and eight-channel
    /// depthwise loops of the AVX2 tier, the VNNI tier's byte quads (through `vpdpbusd` in a VNNI build, its exact
    /// emulation elsewhere) and sixteen-channel depthwise loops (one zmm register there, two AVX2 registers here), so
    /// that each stays byte-identical to LiteRT on every host. Then what a build without optimization runs (a
    /// dependent's debug build): OpenBLAS's exact dgemm and the C loops (``KernelConfig/ononeLoops``).
    static let configurations: [KernelConfig] = [
        KernelConfig(tier: .avx2), KernelConfig(tier: .avx512VNNI), .withoutOptimization(tier: .avx2),
    ]

    static func label(_ kernels: KernelConfig) -> String {
        if kernels.ononeLoops { return "C loops and dgemm of a build without optimization" }
        let tiles = kernels.quantizedGEMMTileTier.map { ", C tiles of \($0)" } ?? ""
        let loops = kernels.quantizedDepthwiseLoopTier.map { ", C loop of \($0)" } ?? ""
        return "\(kernels.quantizedGEMM)\(tiles), \(kernels.quantizedDepthwise)\(loops)"
    }

    /// The quantized GEMMs' C tiles of each tier this CPU runs (CVisionTasksMicroKernels, what a plain build
    /// dispatches to at run time: int16 pairs through AVX2's `vpmaddwd`, byte quads through VNNI's `vpdpbusd`) and
    /// its quantized depthwise loop (paired taps through `vpmaddwd`), with the rest of the kernels the build's own: every operator byte-identical to LiteRT, and every model end to end
    /// at one, two and three threads byte-identical to LiteRT with XNNPACK (so to each other).
    func testEveryQuantizedModelThroughTheDispatchedTiles() throws {
        let tiers = KernelConfig.dispatchableTiers
        guard !tiers.isEmpty else {
            // No C tiles for this CPU (arm64, or an x86-64 CPU without AVX2): then nothing is dispatched.
            XCTAssertNil(KernelConfig.dispatchedTier)
            return
        }
        // The AVX-512 tier's quantized tiles and depthwise loop are the AVX2 tier's (the same table entries): one run
        // of them is enough.
        var seen: Set<String> = []
        for tier in tiers {
            var kernels = KernelConfig(tier: KernelConfig.compiledTier)
            XCTAssertTrue(kernels.dispatchQuantizedGEMM(to: tier))
            XCTAssertTrue(kernels.dispatchQuantizedDepthwise(to: tier))
            XCTAssertEqual(kernels.quantizedDepthwiseLoopTier, tier)
            XCTAssertTrue(kernels.dispatchByteLookup(to: tier))
            guard seen.insert("\(kernels.quantizedGEMM)").inserted else { continue }
            try everyQuantizedOperatorMatchesLiteRT(kernels)
            try everyQuantizedModelEndToEnd(kernels, threadCounts: [1, 2, 3], allImages: true)
        }
        XCTAssertEqual(seen.count, tiers.contains(.avx512VNNI) ? 2 : 1)
    }

    /// The build's own tier's choices (`sdot` quads on an arm64 dot-product build, `vpdpbusd` on a VNNI one): arm64's
    /// CI set under qemu runs this one alone, where each configuration takes minutes.
    func testEveryQuantizedOperatorMatchesLiteRT() throws {
        try everyQuantizedOperatorMatchesLiteRT(KernelConfig(tier: KernelConfig.compiledTier))
    }

    /// Every other configuration of ``configurations``.
    func testEveryQuantizedOperatorMatchesLiteRTInTheOtherKernels() throws {
        let own = KernelConfig(tier: KernelConfig.compiledTier)
        for kernels in Self.configurations
        where (kernels.quantizedGEMM, kernels.quantizedDepthwise, kernels.ononeLoops) != (own.quantizedGEMM, own.quantizedDepthwise, own.ononeLoops) {
            try everyQuantizedOperatorMatchesLiteRT(kernels)
        }
    }

    func everyQuantizedOperatorMatchesLiteRT(_ kernels: KernelConfig) throws {
        for golden in try Self.goldens() {
            let name = URL(fileURLWithPath: golden.path).lastPathComponent + " (\(Self.label(kernels)))"
            let interpreter = try Interpreter(path: golden.path, threads: 1, kernels: kernels)
            var report: [String] = []
            for (index, op) in golden.operators.enumerated() {
                // A PAD read through by the convolution after it never writes its output; the convolution, fed the
                // PAD's input, is checked against the golden of its own output instead.
                if interpreter.isFused(index) { continue }
                var feeds: [Int: [UInt8]] = [:]
                let inputs = interpreter.runtimeOperators.first { $0.index == index }?.inputs ?? op.inputs
                for tensor in inputs where tensor >= 0 && !interpreter.isConstant(tensor) {
                    feeds[tensor] = try XCTUnwrap(golden.tensors[tensor], "\(name) op \(index): no golden for input \(tensor)").bytes
                }
                guard let results = try interpreter.runOperator(index, inputs: feeds) else {
                    XCTFail("\(name) op \(index) \(op.name) did not run")
                    continue
                }
                let path = golden.delegated[index] ? "XNNPACK" : "builtin"
                for (k, tensor) in op.outputs.enumerated() {
                    let builtin = try XCTUnwrap(golden.tensors[tensor])
                    let own = try XCTUnwrap(golden.alone[index]?[k], "\(name) op \(index): no one-operator golden")
                    let ours = try XCTUnwrap(results[tensor])
                    if builtin.type == .float32 {
                        let difference = Self.floatDifference(ours, own)
                        XCTAssertLessThanOrEqual(difference, 1e-5, "\(name) op \(index) \(op.name) output \(k) vs \(path)")
                        if difference > 0 { report.append("op \(index) \(op.name): \(difference) from \(path)") }
                    } else {
                        let fromPath = Self.lsb(ours, own), fromBuiltin = Self.lsb(ours, builtin)
                        XCTAssertEqual(fromPath, 0, "\(name) op \(index) \(op.name) output \(k): \(fromPath) LSB from LiteRT's \(path) kernel")
                        XCTAssertLessThanOrEqual(fromBuiltin, 1, "\(name) op \(index) \(op.name) output \(k): \(fromBuiltin) LSB from LiteRT's builtin kernel")
                        if fromPath > 0 { report.append("op \(index) \(op.name): \(fromPath) LSB from \(path)") }
                    }
                }
            }
            print("\(name): \(golden.operators.count) operators; \(report.isEmpty ? "all equal LiteRT's" : report.joined(separator: ", "))")
        }
    }

    func testEveryQuantizedModelEndToEnd() throws {
        for kernels in Self.configurations {
            try everyQuantizedModelEndToEnd(kernels)
        }
    }

    func everyQuantizedModelEndToEnd(_ kernels: KernelConfig, threadCounts: [Int] = [1, 2], allImages: Bool = false) throws {
        for golden in try Self.goldens() {
            let name = URL(fileURLWithPath: golden.path).lastPathComponent + " (\(Self.label(kernels)))"
            let xnnpack = try XCTUnwrap(golden.configurations.firstIndex(of: "xnnpack1"))
            for threads in threadCounts {
                let interpreter = try Interpreter(path: golden.path, threads: threads, kernels: kernels)
                // The other tier's GEMM, emulated on this CPU and slower, on the first image only (its every operator
                // is checked against LiteRT above): enough for its thread-count identity end to end.
                let images = golden.images.sorted(by: { $0.key < $1.key }).prefix(kernels == .compiled || allImages ? Int.max : 1)
                for (image, input) in images {
                    try interpreter.setInput(0, bytes: input.bytes)
                    interpreter.invoke()
                    for k in golden.outputs.indices {
                        let reference = try XCTUnwrap(golden.endToEnd[xnnpack]?[image]?[k])
                        let ours = try interpreter.outputBytes(k)
                        if reference.type == .float32 {
                            XCTAssertLessThanOrEqual(Self.floatDifference(ours, reference), 1e-5, "\(name) image \(image) output \(k), \(threads) threads")
                        } else {
                            XCTAssertEqual(Self.lsb(ours, reference), 0, "\(name) image \(image) output \(k), \(threads) threads: LSB from LiteRT with XNNPACK")
                        }
                    }
                }
            }
        }
    }
}
