import ArgumentParser
import VisionTasksModelFormat
import Foundation

struct ModelInfo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "List a model's or bundle's members, tensors, operators and metadata.")

    @Argument(help: "A .tflite model or a .task bundle.")
    var path: String

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() throws {
        let summary: BundleSummary
        do {
            summary = try BundleSummary(bundle: try TaskBundle(path: path))
        } catch {
            throw CLIError(description: "\(path): \(error)")
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(summary), as: UTF8.self))
        } else {
            print(render(summary))
        }
    }

    private func render(_ summary: BundleSummary) -> String {
        var lines: [String] = []
        for member in summary.members {
            lines.append("\(member.path) (\(member.size) bytes)")
            for (label, tensors) in [("in", member.inputs), ("out", member.outputs)] {
                for tensor in tensors ?? [] {
                    var line = "  \(label): \(tensor.name) \(tensor.shape) \(tensor.type)"
                    if let q = tensor.quantization { line += " scale \(q.scale) zero point \(q.zeroPoint)" }
                    lines.append(line)
                }
            }
            if let operators = member.operators {
                let listed = operators.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }
                lines.append("  ops: " + listed.joined(separator: ", "))
            }
            if let metadata = member.metadata {
                lines.append("  metadata: \(metadata.name.isEmpty ? "(unnamed)" : metadata.name) \(metadata.version)")
                for (index, normalization) in metadata.inputNormalization.enumerated() {
                    if let normalization {
                        lines.append("    input \(index): mean \(normalization.mean) std \(normalization.std)")
                    }
                }
                if let count = metadata.labelCount, let file = metadata.labelFile {
                    lines.append("    labels: \(count) in \(file)")
                }
            }
        }
        return lines.joined(separator: "\n")
    }
}
