import AllocationCounter
import CBLAS
import Dispatch
import Engine
import Format
import Foundation

/// `bench models`: each float model with our engine and with LiteRT (XNNPACK) in the same run, at 1 and 2
/// threads, median of 30 after warm-up, as ratios; with the graph's MFLOP, our GFLOP/s, and the machine's
/// single-core sgemm GFLOP/s as the ceiling.
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
    ]

    static func run(arguments: [String]) throws {
        let repeats = 30
        print(String(format: "single-core sgemm ceiling: %.1f GFLOP/s (OpenBLAS, 1024³)", sgemmCeiling()))
        print("model                                                     MFLOP  thr   ours ms  LiteRT ms  ratio  ours GFLOP/s  allocs/invoke")
        for spec in arguments.isEmpty ? models : arguments {
            let parts = spec.split(separator: "#").map(String.init)
            let bundle = try TaskBundle(path: "Models/" + parts[0])
            let model = try bundle.model(parts[1])
            let mflop = Double(macs(model)) * 2 / 1e6
            for threads in [1, 2] {
                let interpreter = try Interpreter(model: model, threads: threads)
                for (index, input) in interpreter.inputs.enumerated() {
                    try interpreter.setInput(index, bytes: [UInt8](repeating: 0, count: input.elementCount * (input.type.byteSize ?? 1)))
                }
                for _ in 0..<5 { interpreter.invoke() }
                // Every thread's mallocs during 10 invokes after warm-up, counted by our interposer.
                allocation_counter_start()
                for _ in 0..<10 { interpreter.invoke() }
                let allocations = Double(allocation_counter_stop()) / 10
                var samples: [Double] = []
                for _ in 0..<repeats {
                    let start = DispatchTime.now().uptimeNanoseconds
                    interpreter.invoke()
                    samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                }
                samples.sort()
                let ours = samples[repeats / 2]
                let line = LiteRTReference.run(script: "tools/litert_model_time.py", arguments: ["Models/\(spec)", "\(threads)", "\(repeats)"])
                let theirs = line.flatMap { LiteRTReference.value("median_ms", in: $0) }
                print(String(format: "%-56@ %6.0f  %3d  %8.2f  %9@  %5@  %8.1f  %9@", spec as NSString, mflop, threads, ours,
                             theirs.map { String(format: "%.2f", $0) } as NSString? ?? "—",
                             theirs.map { String(format: "%.2f", ours / $0) } as NSString? ?? "—", mflop / ours,
                             allocation_counter_is_available() != 0 ? String(format: "%.1f", allocations) as NSString : "—"))
            }
        }
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
