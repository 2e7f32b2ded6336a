import CVisionTasksBLAS
import Dispatch
import VisionTasksEngine
import VisionTasksModelFormat
import Foundation

/// `bench models`: each float and quantized model with our engine and with LiteRT (XNNPACK) in the same run, on the same input,
/// at 1 and 2 threads: after warm-up the two take turns, `rounds` batches of `batch` invokes each. The table gives
/// each one's median over all its samples, the graph's MFLOP, our GFLOP/s, the machine's single-core sgemm GFLOP/s
/// as the ceiling, and as the ratio the median over rounds of (our batch's median / LiteRT's next batch's median):
/// the host is a shared VM whose speed drifts by tens of percent from one second to the next, and a ratio of
/// neighbouring batches compares the two engines under the same conditions where a ratio of overall medians mixes
/// in when each happened to run slow.
///
/// Allocations per invoke are not measured here: counting them means replacing the process's malloc, which a shipped
/// executable must not do. EngineTests' AllocationTests counts them on every model member we ship (these included),
/// at 1 and 2 threads, and fails on any.
enum ModelsBenchmark {
    static let models = [
        "pose_landmarker_lite.task#pose_detector.tflite",
        "pose_landmarker_lite.task#pose_landmarks_detector.tflite",
        "pose_landmarker_full.task#pose_landmarks_detector.tflite",
        "face_landmarker.task#face_detector.tflite",
        "face_landmarker.task#face_landmarks_detector.tflite",
        "face_landmarker.task#face_blendshapes.tflite",
        "hand_landmarker.task#hand_detector.tflite",
        "hand_landmarker.task#hand_landmarks_detector.tflite",
        "ssd_mobilenet_v1.tflite",
        "bird_classifier.tflite",
        "efficientnet_lite0.tflite",
        "mobilenet_v1_0.25_128_quant.tflite",
    ]

    /// `bench models [SPEC …]`: the shipped models (or these, `BUNDLE.task#member` under Models/);
    /// `bench models --dir DIR` (or `--all DIR`): every .tflite in DIR, a corpus of the user's own
    /// (tools/make_model_corpus.py writes one to .cache/model-corpus). A model our engine refuses gets a row saying
    /// which operator, and the run goes on.
    static func run(arguments: [String]) throws {
        let rounds = 15, batch = 4
        let specs: [(label: String, path: String)]
        if let flag = arguments.firstIndex(where: { $0 == "--dir" || $0 == "--all" }) {
            guard flag + 1 < arguments.count, arguments.count == 2 else { throw BenchError("\(arguments[flag]) takes one folder and nothing else") }
            let folder = arguments[flag + 1]
            let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".tflite") }.sorted()
            guard !names.isEmpty else { throw BenchError("no .tflite in \(folder)") }
            specs = names.map { ($0, (folder as NSString).appendingPathComponent($0)) }
        } else {
            specs = (arguments.isEmpty ? models : arguments).map { ($0, "Models/" + $0) }
        }
        print(String(format: "single-core sgemm ceiling: %.1f GFLOP/s (OpenBLAS, 1024³)", sgemmCeiling()))
        print("model                                                     MFLOP  thr   ours ms  LiteRT ms  ratio  ours GFLOP/s")
        let inputFile = FileManager.default.temporaryDirectory.appendingPathComponent("bench-models-input-\(getpid()).bin").path
        defer { try? FileManager.default.removeItem(atPath: inputFile) }
        for (label, spec) in specs {
            let parts = spec.split(separator: "#", maxSplits: 1).map(String.init)
            let bundle = try TaskBundle(path: parts[0])
            let model = try bundle.model(parts.count > 1 ? parts[1] : bundle.members[0].path)
            let mflop = Double(macs(model)) * 2 / 1e6
            for threads in [1, 2] {
                let interpreter: Interpreter
                do {
                    interpreter = try Interpreter(model: model, threads: threads)
                } catch {
                    print(String(format: "%-56@ %6.0f    —  refused: %@", label as NSString, mflop, "\(error)" as NSString))
                    break
                }
                var inputBytes = Data()
                for (index, input) in interpreter.inputs.enumerated() {
                    let bytes = sampleInput(count: input.elementCount, type: input.type)
                    try interpreter.setInput(index, bytes: bytes)
                    inputBytes.append(contentsOf: bytes)
                }
                try inputBytes.write(to: URL(fileURLWithPath: inputFile))
                let litert = LiteRTSession(spec: spec, threads: threads, inputFile: inputFile)
                defer { litert?.close() }
                for _ in 0..<5 { interpreter.invoke() }
                var ourSamples: [Double] = [], theirSamples: [Double] = [], ratios: [Double] = []
                for _ in 0..<rounds {
                    var batchSamples: [Double] = []
                    for _ in 0..<batch {
                        let start = DispatchTime.now().uptimeNanoseconds
                        interpreter.invoke()
                        batchSamples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                    }
                    ourSamples += batchSamples
                    if let theirBatch = litert?.time(batch) {
                        theirSamples += theirBatch
                        ratios.append(median(batchSamples) / median(theirBatch))
                    }
                }
                let ours = median(ourSamples)
                let theirs = theirSamples.count == rounds * batch ? median(theirSamples) : nil
                let ratio = theirs != nil ? median(ratios) : nil
                print(String(format: "%-56@ %6.0f  %3d  %8.2f  %9@  %5@  %8.1f", label as NSString, mflop, threads, ours,
                             theirs.map { String(format: "%.2f", $0) } as NSString? ?? "—",
                             ratio.map { String(format: "%.2f", $0) } as NSString? ?? "—", mflop / ours))
            }
        }
    }

    /// The same fixed pseudo-random input for both engines: floats uniform in [0, 1) (an image tensor's range
    /// after the usual normalisation), pseudo-random bytes for uint8/int8 (a quantized image), zero bytes for other types.
    static func sampleInput(count: Int, type: TensorType) -> [UInt8] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        if type == .uint8 || type == .int8 {
            return (0..<count).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 56)
            }
        }
        guard type == .float32 else { return [UInt8](repeating: 0, count: count * (type.byteSize ?? 1)) }
        var values = [Float](repeating: 0, count: count)
        for index in values.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            values[index] = Float(state >> 40) / Float(1 << 24)
        }
        return values.withUnsafeBytes { [UInt8]($0) }
    }

    /// Multiply-accumulates of the convolutions and fully connected layers of the main subgraph.
    static func macs(_ model: TFLiteModel) -> Int {
        guard let graph = model.subgraphs.first else { return 0 }
        var total = 0
        for op in graph.operators {
            let name = model.code(of: op).name
            guard ["CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"].contains(name), op.inputs.count >= 2, op.inputs[1] >= 0,
                  let output = op.outputs.first else { continue }
            let filter = graph.tensors[Int(op.inputs[1])].shape.map(Int.init)
            let outputCount = graph.tensors[Int(output)].shape.reduce(1) { $0 * Int($1) }
            switch name {
            case "CONV_2D": total += outputCount * filter.dropFirst().reduce(1, *)
            case "DEPTHWISE_CONV_2D": total += outputCount * (filter.count == 4 ? filter[1] * filter[2] : 1)
            default: total += outputCount * (filter.last ?? 1)
            }
        }
        return total
    }

    static func sgemmCeiling() -> Double {
        let n = 1024
        let a = [Float](repeating: 1, count: n * n), b = [Float](repeating: 0.5, count: n * n)
        var c = [Float](repeating: 0, count: n * n)
        openblas_set_num_threads(1)
        var best = Double.infinity
        for _ in 0..<3 {
            let start = DispatchTime.now().uptimeNanoseconds
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(n), Int32(n), Int32(n), 1, a, Int32(n), b, Int32(n), 0, &c, Int32(n))
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return 2 * Double(n * n * n) / best / 1e9
    }
}
