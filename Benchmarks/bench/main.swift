import Foundation
import VisionTasks
import VisionTasksModelFormat

// `swift run -c release bench <job>`: `pose` (the main job), `face`, `hand`, `gesture`, `objects`, `classify` (each
// beside MediaPipe 1.2.3, or `--mediapipe 0.10.14`), every registered task by its name (`face-detector`, …, the same
// way), `models` (or `models --dir DIR`: every .tflite in DIR), `format`, `image`.
let arguments = Array(CommandLine.arguments.dropFirst())
let job = arguments.first ?? "pose"
// Which kernels these figures are of: a plain build on a CPU with a higher tier measures the wrong thing.
FileHandle.standardError.write(Data("bench: \(KernelTierStatus.current)\n".utf8))
do {
    switch job {
    case "format":
        try FormatBenchmark.run(arguments: Array(arguments.dropFirst()))
    case "image":
        try ImageBenchmark.run(arguments: Array(arguments.dropFirst()))
    case "models":
        try ModelsBenchmark.run(arguments: Array(arguments.dropFirst()))
    default:
        if let task = TaskRegistry.tasks.first(where: { $0.bench.job == job }) {
            try LandmarkerBenchmark.run(.registered(task), arguments: Array(arguments.dropFirst()))
            break
        }
        let registered = TaskRegistry.tasks.map(\.bench.job).joined(separator: ", ")
        FileHandle.standardError.write(Data("bench: unknown job '\(job)'; jobs: \(registered), models, format, image\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("bench: \(error)\n".utf8))
    exit(1)
}
