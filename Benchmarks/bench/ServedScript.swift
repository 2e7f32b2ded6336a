import Foundation

/// A Python reference (LiteRT, MediaPipe) kept up in its own process and driven a line at a time, so a benchmark can
/// take turns with it: a batch of ours, a batch of theirs, and so on. On a shared host whose speed drifts from one
/// second to the next, turns put both sides under the same conditions, where timing one side and then the other
/// compared two different moments.
final class ServedScript {
    private let process = Process()
    private let requests = Pipe()
    private let replies = Pipe()
    private var buffer = Data()

    /// What the script said after `ready` on its first line (MediaPipe's timing script: the version it imported).
    private(set) var readyDetails = ""

    /// Starts `python script arguments…` with the first of `pythons` that exists (else `python3` on PATH); nil when
    /// it cannot start or does not print `ready` (the reference is not installed, or refuses the model), alone or
    /// followed by a space and details.
    init?(pythons: [String], script: String, arguments: [String]) {
        if let python = pythons.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) {
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = [script] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", script] + arguments
        }
        process.standardInput = requests
        process.standardOutput = replies
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        guard let line = readLine(), line == "ready" || line.hasPrefix("ready ") else {
            close()
            return nil
        }
        readyDetails = String(line.dropFirst("ready".count)).trimmingCharacters(in: .whitespaces)
    }

    /// Sends one request line and returns the reply line.
    func request(_ line: String) -> String? {
        requests.fileHandleForWriting.write(Data("\(line)\n".utf8))
        return readLine()
    }

    func close() {
        try? requests.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    private func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = replies.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }
}

/// The median of `samples` (the mean of the middle two for an even count); NaN when there are none.
func median(_ samples: [Double]) -> Double {
    let sorted = samples.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
