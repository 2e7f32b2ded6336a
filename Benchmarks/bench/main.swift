import Foundation
import VisionTasks
import VisionTasksResultJSON
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
        // Every registered task has a job beside MediaPipe's own, but ML Kit's detector, which has no MediaPipe
        // counterpart (and ML Kit no runtime here to time): its models' time against LiteRT is `models`' figure.
        let benched = TaskRegistry.tasks.filter { $0.mediapipeClass != nil }
        if let task = benched.first(where: { $0.bench.job == job }) {
            try LandmarkerBenchmark.run(.registered(task), arguments: Array(arguments.dropFirst()))
            break
        }
        if let task = TaskRegistry.task(named: job) {
            FileHandle.standardError.write(Data("bench: \(task.name) has no job: no MediaPipe task does its work to time it beside (its models against LiteRT: `bench models --dir DIR`)\n".utf8))
            exit(2)
        }
        let registered = benched.map(\.bench.job).joined(separator: ", ")
        FileHandle.standardError.write(Data("bench: unknown job '\(job)'; jobs: \(registered), models, format, image\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("bench: \(error)\n".utf8))
    exit(1)
}
