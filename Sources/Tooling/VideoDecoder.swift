import Foundation
import VisionTasksImaging

/// Frames of a video file, decoded by Debian's `ffmpeg` to RGB exactly as MediaPipe's reference script does
/// (`ffmpeg -v error -i CLIP -f rawvideo -pix_fmt rgb24 -`, no scaling), with frame i at round(i × 1000 / fps) ms,
/// fps from `ffprobe`'s `r_frame_rate`.
///
/// A phone's clip stores its frames as the sensor saw them and says how to turn them in its stream's display
/// matrix; ffmpeg turns them upright on its own (its default `-autorotate`), so a quarter turn comes out with width
/// and height swapped. ``width`` and ``height`` are that upright size — ffprobe's coded size, swapped when its
/// rotation side data is ±90 or ±270 — and frames, and so results, are in that frame.
///
/// The path always names a file: ffprobe and ffmpeg get it as `file:` + its absolute path with only the file
/// protocol allowed, so a name that starts with `-` is not an option and `concat:…`, `http:…` are not protocols
/// (they are file names, most likely missing ones). Only a regular file is read (a FIFO would block ffprobe).
/// ffmpeg runs with `-xerror`, so damaged data ends the decode; ``nextFrame()`` then returns every good frame and
/// throws ``VideoError/decodeFailed(path:frame:message:)`` (with the tail of ffmpeg's messages) instead of ending.
///
/// ffmpeg is a run-time dependency of video input only; its absence is ``VideoError/ffmpegMissing``.
public final class VideoDecoder {
    public enum VideoError: Error, Equatable, CustomStringConvertible {
        case ffmpegMissing
        /// ffprobe failed, found no video stream, or reported a size or frame rate this decoder refuses.
        case probeFailed(path: String, message: String)
        /// The path is missing or not a regular file.
        case fileUnreadable(path: String, reason: String)
        /// ffmpeg failed (non-zero exit, killed, or output that ends inside a frame) after `frame` good frames.
        case decodeFailed(path: String, frame: Int, message: String)

        public var description: String {
            switch self {
            case .ffmpegMissing: return "ffmpeg/ffprobe not found: install Debian's ffmpeg package to read video files"
            case let .probeFailed(path, message): return "cannot read video '\(path)': \(message)"
            case let .fileUnreadable(path, reason): return "cannot read video '\(path)': \(reason)"
            case let .decodeFailed(path, frame, message):
                return "video '\(path)' failed to decode after frame \(frame - 1) (\(frame) good frames): \(message)"
            }
        }
    }

    /// Frame rates accepted from ffprobe. Above 1000 fps consecutive frames would share a whole-millisecond
    /// timestamp (and the running modes refuse equal timestamps); below one frame per 100 s no camera or encoder
    /// writes (slideshows run at 1/5–1/10 fps), and such a rate is a damaged or hostile header.
    public static let framesPerSecondRange: ClosedRange<Double> = 0.01...1000

    /// ffmpeg's and ffprobe's messages kept for an error: the last 64 KiB (a damaged clip can print megabytes).
    static let messageTailByteCount = 64 << 10

    /// The size of the frames ffmpeg produces: upright, after the stream's rotation (see above).
    public let width: Int
    public let height: Int
    /// The stream's rotation as ffprobe reports it (its display matrix, degrees counter-clockwise), 0 without one.
    public let rotationDegrees: Int
    /// The orientation every frame's ``MPImage`` is given.
    public let orientation: ImageOrientation
    public let framesPerSecond: Double
    public let name: String
    /// The stream's frame count when its container records one (ffprobe's `nb_frames`).
    public let frameCount: Int?
    private let path: String
    private let frameByteCount: Int
    private let process: Process
    private let output: FileHandle
    private let messages: OutputDrain
    private var index = 0
    private var ended = false
    private var closed = false

    /// Probes the clip and starts ffmpeg. `orientation` is given to every frame's ``MPImage`` (its init checks it,
    /// so a refused orientation is the first ``nextFrame()``'s error).
    public init(path: String, orientation: ImageOrientation = .up) throws {
        guard let ffprobe = Self.find("ffprobe"), let ffmpeg = Self.find("ffmpeg") else { throw VideoError.ffmpegMissing }
        let input = try Self.fileURL(path)
        let probe = try Self.run(ffprobe, ["-v", "error", "-protocol_whitelist", "file", "-select_streams", "v:0",
                                           "-show_entries", "stream=width,height,r_frame_rate,nb_frames:stream_side_data=rotation",
                                           "-of", "default=noprint_wrappers=1", input])
        let text = probe.output
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let pair = line.split(separator: "=", maxSplits: 1).map(String.init)
            if pair.count == 2 { fields[pair[0]] = pair[1] }
        }
        guard probe.status == 0, let w = fields["width"].flatMap({ Int($0) }), let h = fields["height"].flatMap({ Int($0) }) else {
            let reason = probe.status == 0 ? "no video stream (\(text.prefix(200)))" : "ffprobe \(probe.ending)"
            throw VideoError.probeFailed(path: path, message: probe.messages.isEmpty ? reason : probe.messages)
        }
        let (pixels, pixelsOverflow) = w.multipliedReportingOverflow(by: h)
        let (bytes, bytesOverflow) = pixels.multipliedReportingOverflow(by: 3)
        guard MPImage.isSupported(width: w, height: h), !pixelsOverflow, !bytesOverflow else {
            throw VideoError.probeFailed(path: path, message: "frame size \(w)×\(h) is zero or above \(MPImage.maximumPixelCount) pixels")
        }
        let fps = try Self.framesPerSecond(parsing: fields["r_frame_rate"] ?? "", path: path)
        // The pixel budget above holds for the swapped size too (same product).
        rotationDegrees = fields["rotation"].flatMap { Int($0) } ?? 0
        let swapped = Self.turnsQuarter(rotationDegrees: rotationDegrees)
        width = swapped ? h : w
        height = swapped ? w : h
        self.orientation = orientation
        frameByteCount = bytes
        framesPerSecond = fps
        frameCount = fields["nb_frames"].flatMap { Int($0) }
        name = (path as NSString).lastPathComponent
        self.path = path
        process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        // -nostdin: ffmpeg otherwise reads its standard input for commands, taking a caller's piped input.
        // -xerror: stop at the first damaged packet (by default ffmpeg conceals it, prints a line and exits 0).
        process.arguments = ["-nostdin", "-v", "error", "-xerror", "-protocol_whitelist", "file", "-i", input,
                             "-map", "0:v:0", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
        let frames = Pipe(), errors = Pipe()
        process.standardOutput = frames
        process.standardError = errors
        try process.run()
        output = frames.fileHandleForReading
        messages = OutputDrain(errors.fileHandleForReading, keepingLast: Self.messageTailByteCount)
    }

    deinit {
        close()
    }

    /// ffmpeg's process id, for the tests that check it is gone.
    var processIdentifier: Int32 { process.processIdentifier }

    /// Stops ffmpeg and reaps it; called on deinit, so a caller done before the clip's end (`maxFrames`, `endMs`, a
    /// client gone) need not. It must not be left to the process: Foundation's `Process` keeps itself and its pipes
    /// alive while the child runs, so our end of ffmpeg's output stays open and ffmpeg blocks on a full pipe for
    /// ever — and SIGTERM only sets a flag in ffmpeg that a write blocked there never reaches. Each truncated clip
    /// left one blocked decoder (tens of MB, its input file held open: a deleted upload's disk space too) in a
    /// long-lived worker or service. Closing our end makes a blocked write fail; SIGKILL ends one that is decoding.
    public func close() {
        guard !closed else { return }
        closed = true
        ended = true
        try? output.close()
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        _ = messages.finish()
    }

    /// Whether ffmpeg's autorotation turns frames of a stream with this rotation by a quarter, swapping their sides.
    /// ffmpeg (fftools' `configure_input_video_filter`) takes θ = −round(rotation) modulo 360 and inserts a
    /// transpose when θ is within a degree of 90 or 270, flips for 180 and a same-size `rotate` filter for other
    /// angles. ffprobe prints the rotation as a whole number, so the quarter turns are ±90 and ±270 modulo 360.
    /// Two cases this cannot see, both giving frames of the right byte count and the wrong shape (never a read past a
    /// frame): a matrix between 89° and 90° (ffprobe truncates, ffmpeg rounds), and a display matrix carried by the
    /// first frame instead of the stream (an H.264 display-orientation SEI), which ffmpeg 5.1 also honours.
    static func turnsQuarter(rotationDegrees: Int) -> Bool {
        let turn = (rotationDegrees % 360 + 360) % 360
        return turn == 90 || turn == 270
    }

    private static func find(_ tool: String) -> String? {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return paths.map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// ffprobe's `r_frame_rate` ("30000/1001") as frames per second, refused unless both parts are positive numbers
    /// and the rate lies in ``framesPerSecondRange`` (0, NaN, infinities and 1/5000 included).
    static func framesPerSecond(parsing text: String, path: String) throws -> Double {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false).map { Double($0) }
        if parts.count == 2, let numerator = parts[0], let denominator = parts[1], numerator > 0, denominator > 0,
           framesPerSecondRange.contains(numerator / denominator) {
            return numerator / denominator
        }
        throw VideoError.probeFailed(path: path, message: "frame rate '\(text)' is not within \(framesPerSecondRange.lowerBound)…"
                                     + "\(framesPerSecondRange.upperBound) frames per second")
    }

    /// `file:` + the absolute path, after checking that it names a regular file (`stat` does not block on a FIFO;
    /// opening one would, in ffprobe).
    static func fileURL(_ path: String) throws -> String {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw VideoError.fileUnreadable(path: path, reason: String(cString: strerror(errno)))
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw VideoError.fileUnreadable(path: path, reason: "not a regular file")
        }
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return "file:" + absolute
    }

    /// A finished child process: its standard output, the tail of its standard error, and how it ended.
    struct Finished {
        let output: String
        let messages: String
        let status: Int32
        let reason: Process.TerminationReason

        /// "exited with status N" or "killed by signal N".
        var ending: String { reason == .uncaughtSignal ? "killed by signal \(status)" : "exited with status \(status)" }
    }

    /// Runs `executable` to the end, draining its standard error on another thread while standard output is read
    /// (read one after the other, a child that fills the 64 KiB stderr pipe blocks while we wait on stdout).
    static func run(_ executable: String, _ arguments: [String], keepingLast limit: Int = messageTailByteCount) throws -> Finished {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let drain = OutputDrain(errors.fileHandleForReading, keepingLast: limit)
        let outputDrain = OutputDrain(output.fileHandleForReading, keepingLast: limit)
        let text = outputDrain.finish()
        let messages = drain.finish()
        process.waitUntilExit()
        return Finished(output: text, messages: messages, status: process.terminationStatus, reason: process.terminationReason)
    }

    /// The next frame and its timestamp in milliseconds, or nil at the end. When ffmpeg fails, the frames before the
    /// failure come out first, then this throws ``VideoError/decodeFailed(path:frame:message:)`` once (and returns
    /// nil after that).
    public func nextFrame() throws -> (image: MPImage, timestampMs: Int, label: String)? {
        guard !ended else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(frameByteCount)
        while bytes.count < frameByteCount {
            guard let chunk = try output.read(upToCount: frameByteCount - bytes.count), !chunk.isEmpty else {
                try end(partialFrameBytes: bytes.count)
                return nil
            }
            bytes.append(contentsOf: chunk)
        }
        // framesPerSecond ≥ 0.01 keeps this below 10^5 ms a frame, far inside Int for any frame index a file reaches;
        // checked anyway, as a conversion out of range would trap.
        let milliseconds = (Double(index) * 1000 / framesPerSecond).rounded(.toNearestOrEven)
        guard let timestamp = Int(exactly: milliseconds) else {
            ended = true
            throw VideoError.decodeFailed(path: path, frame: index, message: "timestamp \(milliseconds) ms is out of range")
        }
        let label = "\(name)#\(index)"
        index += 1
        return (try MPImage(pixels: bytes, width: width, height: height, format: .rgb8, orientation: orientation), timestamp, label)
    }

    /// At the end of ffmpeg's output: nothing when ffmpeg exited 0 on a frame boundary, else the typed error.
    private func end(partialFrameBytes: Int) throws {
        ended = true
        process.waitUntilExit()
        let tail = messages.finish()
        let status = process.terminationStatus, reason = process.terminationReason
        let failed = reason == .uncaughtSignal || status != 0
        guard failed || partialFrameBytes > 0 else { return }
        var message = reason == .uncaughtSignal ? "ffmpeg killed by signal \(status)" : "ffmpeg exited with status \(status)"
        if partialFrameBytes > 0 { message += ", output ended \(partialFrameBytes) bytes into a \(frameByteCount)-byte frame" }
        if !tail.isEmpty { message += ": " + tail.trimmingCharacters(in: .whitespacesAndNewlines) }
        throw VideoError.decodeFailed(path: path, frame: index, message: message)
    }
}

/// Reads a pipe to its end on its own thread, keeping only the last `limit` bytes: a child's stderr must be read
/// while the parent waits on its stdout (a full pipe blocks the child), and a flood must not grow without bound.
final class OutputDrain: @unchecked Sendable {
    private let lock = NSLock()
    private var tail: [UInt8] = []
    private var total = 0
    private let limit: Int
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle, keepingLast limit: Int) {
        self.limit = limit
        let thread = Thread { [self] in
            while let chunk = try? handle.read(upToCount: 64 << 10), !chunk.isEmpty {
                lock.lock()
                tail.append(contentsOf: chunk)
                total += chunk.count
                // Trimmed in batches (at twice the limit) so a flood costs amortized O(1) a byte.
                if tail.count > 2 * limit { tail.removeFirst(tail.count - limit) }
                lock.unlock()
            }
            done.signal()
        }
        thread.start()
    }

    /// Bytes read so far, including those no longer kept.
    var byteCount: Int { lock.withLock { total } }

    /// Waits until the writer has closed the pipe, then returns the last `limit` bytes as text (a multi-byte
    /// character cut at the start comes out as U+FFFD).
    func finish() -> String {
        done.wait()
        done.signal()  // later calls return at once
        return lock.withLock { String(decoding: tail.suffix(limit), as: UTF8.self) }
    }
}
