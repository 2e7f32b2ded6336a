import ArgumentParser
import VisionTasksEngine
import VisionTasksModelFormat
import Foundation
import VisionTasksTooling

struct ModelRun: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a model on .npy inputs and write its outputs as output_<i>.npy.",
        discussion: "MODEL is a .tflite file or BUNDLE.task#member, e.g. Models/gesture_recognizer.task#hand_landmarker.task/hand_detector.tflite.")

    @Argument(help: "The model: FILE.tflite or BUNDLE.task#MEMBER.")
    var model: String

    @Option(name: .customLong("input"), help: "An input as .npy, in input order; repeat for each input. Without any, a deterministic pseudo-random input.")
    var inputs: [String] = []

    @Option(help: "Where to write output_<i>.npy.")
    var outputDir: String?

    @Option(name: .customLong("repeat"), help: "Invoke this many times after a warm-up and print median_ms/min_ms.")
    var repeatCount: Int = 1

    @Flag(help: "Print time per operator type (after the timed runs).") var profile = false
    @Option(help: "With --profile, how many of the slowest operators to list.") var top = 8

    @Option(help: "Threads per operator (default: all cores).") var threads: Int?

    func validate() throws {
        try OptionRange.check(repeatCount, in: OptionRange.repeats, option: "--repeat")
        try OptionRange.check(top, in: OptionRange.topOperators, option: "--top")
        if let threads { try OptionRange.check(threads, in: OptionRange.threads, option: "--threads") }
    }

    func run() throws {
        let parts = model.split(separator: "#", maxSplits: 1).map(String.init)
        let interpreter: Interpreter
        do {
            interpreter = try Interpreter(path: parts[0], member: parts.count > 1 ? parts[1] : nil, threads: threads)
        } catch {
            throw CLIError(description: "\(model): \(error)")
        }
        let descriptions = interpreter.inputs
        guard inputs.isEmpty || inputs.count == descriptions.count else {
            throw CLIError(description: "the model takes \(descriptions.count) inputs, \(inputs.count) given")
        }
        for (index, description) in descriptions.enumerated() {
            let bytes: [UInt8]
            if inputs.isEmpty {
                bytes = PseudoRandomInput.bytes(for: description, seed: UInt64(index + 1))
            } else {
                bytes = try load(inputs[index], for: description)
            }
            do { try interpreter.setInput(index, bytes: bytes) } catch { throw CLIError(description: "\(error)") }
        }
        var samples: [Double] = []
        for iteration in 0..<(repeatCount > 1 ? repeatCount + 3 : 1) {
            let start = DispatchTime.now().uptimeNanoseconds
            interpreter.invoke()
            if repeatCount == 1 || iteration >= 3 { samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6) }
        }
        if let outputDir {
            try FileManager.default.createDirectory(atPath: outputDir, withIntermediateDirectories: true)
            for (index, description) in interpreter.outputs.enumerated() {
                guard let type = NumPyArray.ElementType(tensorType: description.type) else {
                    throw CLIError(description: "output \(index) has type \(description.type.name), which .npy output does not support")
                }
                let array = NumPyArray(type: type, shape: description.shape, bytes: try interpreter.outputBytes(index))
                let path = (outputDir as NSString).appendingPathComponent("output_\(index).npy")
                try Data(array.npyData).write(to: URL(fileURLWithPath: path))
            }
        }
        print("arena_bytes=\(interpreter.plan.arenaBytes) naive_bytes=\(interpreter.plan.naiveBytes) folded_ops=\(interpreter.plan.foldedOperatorCount) runtime_ops=\(interpreter.plan.runtimeOperatorCount)")
        if profile {
            var totals: [String: (Double, Int)] = [:]
            for _ in 0..<10 {
                for (name, ms) in interpreter.invokeProfiled() { totals[name, default: (0, 0)].0 += ms / 10; totals[name, default: (0, 0)].1 += 1 }
            }
            for (name, (ms, count)) in totals.sorted(by: { $0.value.0 > $1.value.0 }) {
                print(String(format: "  %-22@ %7.3f ms  (%d ops)", name as NSString, ms, count / 10))
            }
            // Per operator, the median of 11 timed runs: single runs on a shared host are noisy.
            let runs = (0..<11).map { _ in interpreter.invokeProfiled() }
            let perOperator = runs[0].indices.map { position in runs.map { $0[position].milliseconds }.sorted()[5] }
            let operators = interpreter.runtimeOperators
            print("  slowest operators (median of 11 runs; GFLOP/s of convolutions):")
            for (position, milliseconds) in perOperator.enumerated().sorted(by: { $0.element > $1.element }).prefix(top) {
                let op = operators[position]
                let shapes = op.inputs.prefix(2).map { "\(interpreter.plan.shape(of: $0))" }.joined(separator: " ")
                let output = op.outputs.first.map { interpreter.plan.shape(of: $0) } ?? []
                var rate = ""
                // Fused steps are named after all their operators ("CONV_2D+ADD+PRELU"); the rate counts the convolution.
                if op.inputs.count > 1, op.name.hasPrefix("CONV_2D") || op.name.hasPrefix("DEPTHWISE_CONV_2D") {
                    let filter = interpreter.plan.shape(of: op.inputs[1])
                    let taps = op.name.hasPrefix("CONV_2D") ? filter.dropFirst().reduce(1, *) : filter.dropFirst().dropLast().reduce(1, *)
                    rate = String(format: "  %.1f GFLOP/s", 2 * Double(output.reduce(1, *) * taps) / milliseconds / 1e6)
                }
                print(String(format: "    op %3d %-18@ %6.3f ms  in %@ → %@%@", op.index, op.name as NSString, milliseconds,
                             shapes as NSString, "\(output)" as NSString, rate as NSString))
            }
        }
        samples.sort()
        print(String(format: "median_ms=%.3f min_ms=%.3f", samples[samples.count / 2], samples[0]))
    }

    private func load(_ path: String, for description: TensorDescription) throws -> [UInt8] {
        let array: NumPyArray
        do {
            array = try NumPyArray(npy: ByteSlice.mapping(path: path))
        } catch {
            throw CLIError(description: "\(path): \(error)")
        }
        guard array.elementCount == description.elementCount else {
            throw CLIError(description: "\(path) has shape \(array.shape); '\(description.name)' takes \(description.shape)")
        }
        guard NumPyArray.ElementType(tensorType: description.type) == array.type else {
            throw CLIError(description: "\(path) holds \(array.type.rawValue); '\(description.name)' takes \(description.type.name)")
        }
        return array.bytes
    }
}

/// The input `model run` makes when given none: the same for every run, so outputs can be compared across
/// engines. Floats uniform in [0, 1), integers uniform over their type.
enum PseudoRandomInput {
    static func bytes(for description: TensorDescription, seed: UInt64) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        switch description.type {
        case .float32:
            let values = (0..<description.elementCount).map { _ in Float(next() >> 40) / Float(1 << 24) }
            return values.withUnsafeBytes { Array($0) }
        default:
            let size = description.type.byteSize ?? 1
            return (0..<(description.elementCount * size)).map { _ in UInt8(truncatingIfNeeded: next()) }
        }
    }
}

extension NumPyArray.ElementType {
    init?(tensorType: TensorType) {
        switch tensorType {
        case .float32: self = .float32
        case .float16: self = .float16
        case .int8: self = .int8
        case .uint8: self = .uint8
        case .int16: self = .int16
        case .int32: self = .int32
        case .int64: self = .int64
        case .bool: self = .bool
        default: return nil
        }
    }
}
