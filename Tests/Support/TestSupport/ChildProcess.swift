import Foundation

/// Runs a program to its end, as the tests run our built executables.
public enum ChildProcess {
    public struct Outcome: Sendable {
        public let status: Int32
        public let stdout: Data
        public let stderr: String
        public var output: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// Where `swift build` put the executables: beside the running test bundle.
    public static var buildDirectory: URL { URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent() }

    /// Runs `executable` with `arguments`; standard error is read after standard output, so a child that writes more
    /// than a pipe's 64 KB to standard error before closing standard output would stall (none of ours does).
    /// - Parameter environment: variables set for the child on top of ours.
    public static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Outcome(status: process.terminationStatus, stdout: stdout, stderr: stderr)
    }
}
