import Format
import Foundation

/// Time to open a bundle and read every member's graph (and metadata): what a task pays at load before any
/// weights are touched.
enum FormatBenchmark {
    static func run(arguments: [String]) throws {
        let path = arguments.first ?? "Models/pose_landmarker_full.task"
        let repeats = 50
        var samples: [Double] = []
        var operators = 0
        for iteration in 0..<(repeats + 5) {
            let start = DispatchTime.now().uptimeNanoseconds
            let bundle = try TaskBundle(path: path)
            operators = 0
            for member in bundle.members where member.isTFLiteModel {
                let model = try TFLiteModel(bytes: member.bytes)
                _ = try model.modelMetadata()
                operators += model.subgraphs.reduce(0) { $0 + $1.operators.count }
            }
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            if iteration >= 5 { samples.append(elapsed) }  // the first opens warm the page cache
        }
        samples.sort()
        let median = samples[samples.count / 2]
        print("format: open \(path) + parse all members (\(operators) operators), \(repeats) runs")
        print(String(format: "median_ms=%.3f min_ms=%.3f", median, samples[0]))
    }
}
