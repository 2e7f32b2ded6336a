import VisionTasksModelFormat
import Foundation

/// Time to open a bundle and read every member's graph and metadata: what a task pays at load before any
/// weights are touched. Beside it, when LiteRT's Python package is installed, LiteRT opening the same bundle
/// (zip read + `Interpreter` construction per model, no tensor allocation).
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
        print("format: open \(path) + parse all members (\(operators) operators), median of \(repeats)")
        print(String(format: "ours:   median_ms=%.3f min_ms=%.3f", median, samples[0]))
        if let litert = LiteRTReference.run(script: "tools/litert_load_time.py", arguments: [path, "\(repeats)"]),
           let theirs = LiteRTReference.value("median_ms", in: litert) {
            print("litert: \(litert)")
            print(String(format: "ratio ours/litert = %.2f", median / theirs))
        } else {
            print("litert: not measured (pip install ai-edge-litert to compare)")
        }
    }
}

/// Runs a `tools/` script that times LiteRT, when Python and LiteRT are there (the project's venv from
/// `tools/setup` first, else whatever `python3` is on PATH).
enum LiteRTReference {
    static func run(script: String, arguments: [String]) -> String? {
        let process = Process()
        let venv = ".cache/venv/bin/python"
        if FileManager.default.isExecutableFile(atPath: venv) {
            process.executableURL = URL(fileURLWithPath: venv)
            process.arguments = [script] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", script] + arguments
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").last.map(String.init)
    }

    /// The number after `key=` in a `key=value key=value` line.
    static func value(_ key: String, in line: String) -> Double? {
        line.split(separator: " ").first { $0.hasPrefix(key + "=") }.flatMap { Double($0.dropFirst(key.count + 1)) }
    }
}
