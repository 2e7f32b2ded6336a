import Foundation
import VisionTasks
import VisionTasksResultJSON

/// Where a task command's results go: JSON lines written as each frame is answered (`--jsonl FILE`, `-` for standard
/// output), and one JSON document written at the end (`--json FILE`, the only output that keeps results in memory).
/// Both destinations are opened or checked before any work, so a bad path fails before the first frame and leaves
/// nothing half-written. Thread-safe: live-stream results arrive on the task's delivery queue.
final class ResultOutput: @unchecked Sendable {
    // @unchecked: every mutable field is touched under `lock` only.
    private let lock = NSLock()
    private let lines: FileHandle?
    private let linesToStandardOutput: Bool
    private let document: String?
    private var entries: [[String: Any]] = []

    /// Whether standard output carries the JSON lines or the document (and so nothing else may go there).
    var ownsStandardOutput: Bool { linesToStandardOutput || document == "-" }

    init(json: String?, jsonl: String?) throws {
        // `--json -`: the document goes to standard output at the end, as `--jsonl -` sends its lines there.
        if let json, json != "-" {
            try Self.checkWritable(json, option: "--json")
        }
        guard json != "-" || jsonl != "-" else {
            throw CLIError(description: "--json - and --jsonl - both want standard output: send one of them to a file")
        }
        document = json
        switch jsonl {
        case nil:
            lines = nil
            linesToStandardOutput = false
        case "-":
            lines = FileHandle.standardOutput
            linesToStandardOutput = true
        case let path?:
            try Self.checkWritable(path, option: "--jsonl")
            // open(2), not FileManager.createFile: Foundation's createFile writes a temporary file and renames it
            // over the path, which replaced /dev/null itself with a regular file when run as root.
            let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw CLIError(description: "--jsonl: cannot write \(path)") }
            lines = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            linesToStandardOutput = false
        }
    }

    /// One answered frame in the reference schema's per-result form.
    func write(image label: String, width: Int, height: Int, timestamp: Int?, result: [String: Any]) throws {
        try append(ReferenceJSON.entry(image: label, width: width, height: height, timestamp: timestamp, result: result), keep: true)
    }

    /// One answered frame whose fields sit beside the image's (the `odt` command's schema).
    func write(entry: [String: Any]) throws {
        try append(entry, keep: true)
    }

    /// A live-stream frame the task dropped because it was busy.
    func writeDropped(timestamp: Int) throws {
        try append(["timestampMs": timestamp, "dropped": true], keep: false)
    }

    /// A frame the task answered with an error.
    func writeError(timestamp: Int?, message: String) throws {
        try append(["timestampMs": timestamp.map { $0 as Any } ?? NSNull(), "error": message], keep: false)
    }

    /// Writes the `--json` document, if asked for: the reference schema with every kept entry.
    func finish(header: [String: Any]) throws {
        lock.lock(); defer { lock.unlock() }
        // A regular file is flushed to disk; standard output, a pipe, a terminal or a device cannot be.
        if !linesToStandardOutput, let lines, Self.isRegularFile(lines.fileDescriptor) { try lines.synchronize() }
        guard let document else { return }
        var whole = header
        whole["results"] = entries
        let data = try ReferenceJSON.encoded(whole)
        if document == "-" {
            try FileHandle.standardOutput.write(contentsOf: data + Data("\n".utf8))
            return
        }
        // stat, not attributesOfItem: a symbolic link to a regular file is written atomically, not in place.
        var status = stat()
        if stat(document, &status) == 0, status.st_mode & S_IFMT != S_IFREG, let existing = FileHandle(forWritingAtPath: document) {
            // A device or a pipe (/dev/stdout, /dev/null): written in place — an atomic write renames a temporary
            // file over the path and would replace the device itself.
            try existing.write(contentsOf: data)
            try existing.close()
        } else {
            try data.write(to: URL(fileURLWithPath: document), options: .atomic)
        }
    }

    private static func isRegularFile(_ descriptor: Int32) -> Bool {
        var status = stat()
        return fstat(descriptor, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }

    private func append(_ entry: [String: Any], keep: Bool) throws {
        lock.lock(); defer { lock.unlock() }
        if let lines {
            try lines.write(contentsOf: ReferenceJSON.line(entry))
        }
        if keep, document != nil { entries.append(entry) }
    }

    private static func checkWritable(_ path: String, option: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard !isDirectory.boolValue, FileManager.default.isWritableFile(atPath: path) else {
                throw CLIError(description: "\(option): cannot write \(path)")
            }
            return
        }
        // The directory by hand: Foundation's deletingLastPathComponent traps on a one-character path ("-", "x") on
        // Linux (swift-corelibs-foundation, Swift 6.3.1).
        let directory = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        guard FileManager.default.isWritableFile(atPath: directory) else {
            throw CLIError(description: "\(option): cannot write \(path) (no writable directory \(directory))")
        }
    }
}

/// One updating line on a terminal for long runs: frames done (of the total, when known), frames per second and
/// time left. Off when standard error is not a terminal or with `--quiet`.
final class ProgressLine: @unchecked Sendable {
    // @unchecked: mutable fields under `lock` only.
    private let lock = NSLock()
    private let total: Int?
    private let start = Date()
    private var lastDraw = Date.distantPast
    private var done = 0
    let isShown: Bool

    init(total: Int?, quiet: Bool) {
        self.total = total
        isShown = !quiet && isatty(STDERR_FILENO) == 1
    }

    func advance() {
        lock.lock(); defer { lock.unlock() }
        done += 1
        guard isShown, Date().timeIntervalSince(lastDraw) >= 0.2 else { return }
        lastDraw = Date()
        draw()
    }

    func finish() {
        lock.lock(); defer { lock.unlock() }
        guard isShown else { return }
        draw()
        FileHandle.standardError.write(Data("\n".utf8))
    }

    private func draw() {
        let elapsed = max(Date().timeIntervalSince(start), 1e-3)
        let rate = Double(done) / elapsed
        var text = "\r\u{1B}[K" + (total.map { "frame \(done) of \($0)" } ?? "frame \(done)") + String(format: ", %.1f frames/s", rate)
        // Bounded: a container may claim any frame count (`nb_frames`), and Int(_:) traps beyond Int's range.
        if let total, rate > 0, total > done, Double(total - done) / rate < 1e9 {
            let left = Int((Double(total - done) / rate).rounded())
            text += String(format: ", %d:%02d left", left / 60, left % 60)
        }
        FileHandle.standardError.write(Data(text.utf8))
    }
}
