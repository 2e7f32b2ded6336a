import Foundation

/// Frames of a video file, decoded by Debian's `ffmpeg` to RGB exactly as MediaPipe's reference script does
/// (`ffmpeg -v error -i CLIP -f rawvideo -pix_fmt rgb24 -`, no scaling, rotation metadata not applied), with
/// frame i at round(i × 1000 / fps) ms, fps from `ffprobe`'s `r_frame_rate`.
///
/// ffmpeg is a run-time dependency of video input only; its absence is ``VideoError/ffmpegMissing``.
public final class VideoDecoder {
    public enum VideoError: Error, Equatable, CustomStringConvertible {
        case ffmpegMissing
        case probeFailed(path: String, message: String)

        public var description: String {
            switch self {
            case .ffmpegMissing: return "ffmpeg/ffprobe not found: install Debian's ffmpeg package to read video files"
            case let .probeFailed(path, message): return "cannot read video '\(path)': \(message)"
            }
        }
    }

    public let width: Int
    public let height: Int
    public let framesPerSecond: Double
    public let name: String
    /// The stream's frame count when its container records one (ffprobe's `nb_frames`).
    public let frameCount: Int?
    private let process: Process
    private let output: FileHandle
    private var index = 0

    public init(path: String) throws {
        guard let ffprobe = Self.find("ffprobe"), let ffmpeg = Self.find("ffmpeg") else { throw VideoError.ffmpegMissing }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: ffprobe)
        probe.arguments = ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=width,height,r_frame_rate,nb_frames",
                           "-of", "default=noprint_wrappers=1", path]
        let pipe = Pipe(), errors = Pipe()
        probe.standardOutput = pipe
        probe.standardError = errors
        try probe.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        probe.waitUntilExit()
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let pair = line.split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { fields[pair[0]] = pair[1] }
        }
        let rate = (fields["r_frame_rate"] ?? "").split(separator: "/").compactMap { Double($0) }
        guard probe.terminationStatus == 0, let w = fields["width"].flatMap({ Int($0) }), let h = fields["height"].flatMap({ Int($0) }),
              MPImage.isSupported(width: w, height: h), rate.count == 2, rate[1] > 0, rate[0] > 0 else {
            throw VideoError.probeFailed(path: path, message: message.isEmpty ? "no video stream (\(text))" : message)
        }
        width = w
        height = h
        framesPerSecond = rate[0] / rate[1]
        frameCount = fields["nb_frames"].flatMap { Int($0) }
        name = (path as NSString).lastPathComponent
        process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        // -nostdin: ffmpeg otherwise reads its standard input for commands, taking a caller's piped input.
        process.arguments = ["-nostdin", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
        let frames = Pipe()
        process.standardOutput = frames
        process.standardError = FileHandle.nullDevice
        try process.run()
        output = frames.fileHandleForReading
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    private static func find(_ tool: String) -> String? {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return paths.map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The next frame and its timestamp in milliseconds, or nil at the end.
    public func nextFrame() throws -> (image: MPImage, timestampMs: Int, label: String)? {
        let size = width * height * 3
        var bytes = [UInt8]()
        bytes.reserveCapacity(size)
        while bytes.count < size {
            guard let chunk = try output.read(upToCount: size - bytes.count), !chunk.isEmpty else { return nil }
            bytes.append(contentsOf: chunk)
        }
        let timestamp = Int((Double(index) * 1000 / framesPerSecond).rounded(.toNearestOrEven))
        let label = "\(name)#\(index)"
        index += 1
        return (try MPImage(pixels: bytes, width: width, height: height, format: .rgb8), timestamp, label)
    }
}
