import Foundation

/// LiteRT's interpreter in a Python process that stays up (`tools/litert_model_time.py --serve`), so that a
/// benchmark can take turns with it: a batch of our invokes, a batch of LiteRT's, and so on. On a shared host
/// whose speed drifts from one second to the next, turns put both engines under the same conditions, where
/// timing one engine and then the other compared two different moments.
final class LiteRTSession {
    private let process = Process()
    private let requests = Pipe()
    private let replies = Pipe()
    private var buffer = Data()

    /// Starts LiteRT on `spec` (`Models/…task#member`) with `threads` threads and the inputs in `inputFile`;
    /// nil when the reference is not installed or fails to load the model.
    init?(spec: String, threads: Int, inputFile: String) {
        let venv = ".cache/venv/bin/python"
        let script = ["tools/litert_model_time.py", spec, "\(threads)", "--serve", inputFile]
        if FileManager.default.isExecutableFile(atPath: venv) {
            process.executableURL = URL(fileURLWithPath: venv)
            process.arguments = script
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3"] + script
        }
        process.standardInput = requests
        process.standardOutput = replies
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        guard readLine() == "ready" else {
            close()
            return nil
        }
    }

    /// Milliseconds of `count` invokes, timed inside the Python process around `invoke()` alone.
    func time(_ count: Int) -> [Double]? {
        requests.fileHandleForWriting.write(Data("\(count)\n".utf8))
        guard let line = readLine() else { return nil }
        let samples = line.split(separator: " ").compactMap { Double($0) }
        return samples.count == count ? samples : nil
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
