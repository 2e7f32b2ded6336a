import Foundation
import VisionTasksModelFormat
import VisionTasksModelMutation

// Long-running mutation fuzzer for the Format layer (the test suite runs a fixed 10,000+ of the same mutants).
// Usage: swift run -c release format-fuzz [--iterations N] [--seed S] FILE...
// A crash prints nothing here; rerun with the last seed printed to reproduce it.
var iterations = 1_000_000
var seed: UInt64 = 1
var files: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--iterations": iterations = Int(arguments.popFirst() ?? "") ?? iterations
    case "--seed": seed = UInt64(arguments.popFirst() ?? "") ?? seed
    default: files.append(argument)
    }
}
if files.isEmpty {
    let models = URL(fileURLWithPath: "Models")
    files = ((try? FileManager.default.contentsOfDirectory(atPath: models.path)) ?? [])
        .filter { $0.hasSuffix(".task") || $0.hasSuffix(".tflite") }
        .sorted()
        .map { models.appendingPathComponent($0).path }
}
guard !files.isEmpty else {
    FileHandle.standardError.write(Data("format-fuzz: no model files (run tools/fetch-models)\n".utf8))
    exit(2)
}
let targets = try files.map { path in
    try MutableModelFile(name: (path as NSString).lastPathComponent, bytes: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
}
var parsed = 0
var rejected: [String: Int] = [:]
let start = Date()
for iteration in 0..<iterations {
    let mutantSeed = seed &* 1_000_003 &+ UInt64(iteration)
    let target = targets[iteration % targets.count]
    if iteration % 100_000 == 0 { print("iteration \(iteration) seed \(mutantSeed) (\(target.name))") }
    switch target.withMutant(seed: mutantSeed, { ModelExercise.run($0, name: target.name) }) {
    case .parsed: parsed += 1
    case let .rejected(error): rejected[String("\(error)".prefix(while: { $0 != ":" && $0 != "(" })), default: 0] += 1
    }
}
print("\(iterations) mutants in \(String(format: "%.1f", Date().timeIntervalSince(start))) s: \(parsed) parsed, \(iterations - parsed) rejected")
for (kind, count) in rejected.sorted(by: { $0.value > $1.value }).prefix(12) { print("  \(count)\t\(kind)") }
