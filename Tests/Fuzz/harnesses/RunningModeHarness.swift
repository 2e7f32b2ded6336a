@testable import VisionTasks

/// The running-mode core as a user drives it: a byte stream of calls (image, video, live-stream, wait, close) with
/// timestamps that go up, down, repeat and jump to the integer limits, through a pipeline that smooths landmarks the
/// way pose and face do and fails on request. Checked on every input: each accepted live-stream frame is answered
/// exactly once, answers come in timestamp order, `waitUntilIdle` returns with every frame sent before it answered,
/// and nothing hangs (libFuzzer's `-timeout`).
enum RunningModeHarness {
    final class SmoothingPipeline: FramePipeline {
        typealias Result = Int
        var smoother = LandmarksSmoother(
            .init(minCutoff: 0.05, beta: 80, derivativeCutoff: 1, valueScale: .landmarkExtent), visibilityAlpha: 0.1)
        var failNext = false
        var landmarks: [NormalizedLandmark] = []

        func process(_ image: MPImage, timestampMilliseconds: Int?) throws(VisionTaskError) -> Int {
            if failNext {
                failNext = false
                throw .processingFailed("requested by the fuzzer")
            }
            guard let timestamp = timestampMilliseconds else { return 0 }
            let smoothed = smoother.smooth(landmarks, region: nil, imageWidth: image.width, imageHeight: image.height,
                                           timestampMilliseconds: timestamp)
            return smoothed.count
        }
    }

    struct Log {
        var accepted: [Int] = []
        var answered: [Int] = []
    }

    static let image = try! MPImage(pixels: [UInt8](repeating: 0, count: 16), width: 2, height: 2, format: .rgba8)

    static func run(_ bytes: UnsafeRawBufferPointer) {
        var reader = ByteReader(bytes)
        let modes: [RunningMode] = [.image, .video, .liveStream]
        let mode = modes[Int(reader.byte() % 3)]
        let pipeline = SmoothingPipeline()
        pipeline.landmarks = (0..<Int(reader.byte() % 8)).map { _ in
            NormalizedLandmark(x: reader.float(), y: reader.float(), z: reader.float(), visibility: reader.float())
        }
        let runner = TaskRunner(pipeline, runningMode: mode, label: "fuzz")
        let log = Locked(Log())
        var timestamp = 0
        var steps = 0
        while !reader.isAtEnd, steps < 64 {
            steps += 1
            switch reader.byte() % 8 {
            case 0:
                _ = try? runner.process(image: image, method: "detect(image:)")
            case 1:
                timestamp = reader.nextTimestamp(after: timestamp)
                _ = try? runner.process(videoFrame: image, timestampMilliseconds: timestamp, method: "detect(videoFrame:)")
            case 2, 3:
                timestamp = reader.nextTimestamp(after: timestamp)
                let sent = timestamp
                do {
                    try runner.processAsync(image, timestampMilliseconds: sent, method: "detectAsync") { _ in
                        log.withLock { $0.answered.append(sent) }
                    }
                    log.withLock { state in
                        precondition(state.accepted.last.map { $0 < sent } ?? true, "accepted out of order")
                        state.accepted.append(sent)
                    }
                } catch {}
            case 4:
                runner.waitUntilIdle()
                check(log, complete: true)
            case 5:
                runner.withPipeline { $0.failNext = true }
            case 6:
                runner.withPipeline { $0.smoother.resetCoordinates() }
            default:
                if reader.byte() % 4 == 0 { runner.close() }
            }
        }
        runner.close()
        check(log, complete: true)
    }

    /// Answers are a prefix of the accepted frames in order, except that dropped frames are answered too: every
    /// accepted timestamp is answered once, and answers increase.
    static func check(_ log: Locked<Log>, complete: Bool) {
        log.withLock { state in
            precondition(zip(state.answered, state.answered.dropFirst()).allSatisfy { $0 < $1 }, "answers out of order")
            if complete { precondition(state.answered == state.accepted, "an accepted frame was not answered exactly once") }
        }
    }
}

/// Reads the fuzzer's bytes as small values; zeros past the end.
struct ByteReader {
    private let bytes: UnsafeRawBufferPointer
    private var position = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var isAtEnd: Bool { position >= bytes.count }

    mutating func byte() -> UInt8 {
        defer { position += 1 }
        return position < bytes.count ? bytes[position] : 0
    }

    mutating func uint64() -> UInt64 {
        (0..<8).reduce(0) { value, _ in value << 8 | UInt64(byte()) }
    }

    mutating func float() -> Float {
        Float(bitPattern: UInt32(truncatingIfNeeded: uint64() >> 32))
    }

    /// Mostly a step forward, sometimes back or equal, sometimes a raw 64-bit value (the integer limits, nanosecond
    /// clocks passed as milliseconds).
    mutating func nextTimestamp(after previous: Int) -> Int {
        switch byte() % 8 {
        case 0: return Int(truncatingIfNeeded: uint64())
        case 1: return previous
        case 2: return previous &- Int(byte())
        default: return previous &+ Int(byte()) &+ 1
        }
    }
}
