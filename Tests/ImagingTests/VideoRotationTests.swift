import Foundation
import VisionTasksImaging
import VisionTasksTestSupport
@testable import VisionTasksTooling
import XCTest

/// Issue #32: a phone's clip carries its rotation in the stream's display matrix, and ffmpeg decodes it upright
/// (a quarter turn swaps width and height). The decoder's frames must be ffmpeg's own frames of the plain command
/// (`ffmpeg -v error -i CLIP -f rawvideo -pix_fmt rgb24 -`, the external truth) in that upright size.
final class VideoRotationTests: XCTestCase {
    private static let source = Repository.shared.appendingPathComponent("videos/full_body_juggle.mp4")
    private static let framesCompared = 4
    private var directory: URL!

    override func setUpWithError() throws {
        struct MissingFFmpeg: Error, CustomStringConvertible { var description: String { "ffmpeg is not on PATH: run tools/setup" } }
        guard VideoDecoderTestSupport.ffmpegInstalled else { throw MissingFFmpeg() }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("video-rotation-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    private var ffmpeg: URL { get throws { URL(fileURLWithPath: try XCTUnwrap(VideoDecoderTestSupport.ffmpeg)) } }

    /// The clip with its stream's rotation set by a stream copy (no re-encoding: the same coded frames), with the
    /// rotate tag on ffmpeg 5.1 or `-display_rotation` on ffmpeg 6+ (RotatedClip), its rotation checked by ffprobe.
    private func rotated(_ degrees: Int) throws -> URL {
        try RotatedClip.make(from: Self.source, degrees: degrees, at: directory.appendingPathComponent("rotate\(degrees).mp4"))
    }

    /// ffmpeg's first frames of `clip`, as the plain command gives them.
    private func truth(_ clip: URL, frames: Int) throws -> Data {
        let run = try ChildProcess.run(try ffmpeg, ["-nostdin", "-v", "error", "-i", clip.path, "-frames:v", "\(frames)",
                                                    "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        XCTAssertEqual(run.status, 0, run.stderr)
        return run.stdout
    }

    func testRotatedClipsDecodeAsFFmpegDoesInTheUprightSize() throws {
        let cases: [(degrees: Int?, size: [Int])] = [(nil, [1280, 720]), (90, [720, 1280]), (180, [1280, 720]), (270, [720, 1280])]
        var firstFrames: [Data] = []
        for (degrees, size) in cases {
            let clip = try degrees.map(rotated) ?? Self.source
            let name = degrees.map { "rotate=\($0)" } ?? "unrotated"
            let decoder = try VideoDecoder(path: clip.path)
            XCTAssertEqual([decoder.width, decoder.height], size, name)
            XCTAssertEqual(decoder.framesPerSecond, 24, name)
            XCTAssertEqual(decoder.rotationDegrees == 0, degrees == nil, "\(name): ffprobe's rotation \(decoder.rotationDegrees)")
            let expected = try truth(clip, frames: Self.framesCompared)
            let frameBytes = size[0] * size[1] * 3
            XCTAssertEqual(expected.count, Self.framesCompared * frameBytes, name)
            for index in 0..<Self.framesCompared {
                let frame = try XCTUnwrap(try decoder.nextFrame(), "\(name) frame \(index)")
                XCTAssertEqual([frame.image.width, frame.image.height], size, name)
                XCTAssertEqual(frame.image.orientation, .up)
                // As Data: compared by memcmp, not element by element in an unoptimized test build.
                let pixels = Data(frame.image.rgbPixels())
                XCTAssertTrue(pixels == expected.subdata(in: (index * frameBytes)..<((index + 1) * frameBytes)), "\(name) frame \(index)")
                if index == 0 { firstFrames.append(pixels) }
            }
        }
        // The four are four different pictures of one frame (the rotation was applied, not ignored).
        XCTAssertEqual(Set(firstFrames).count, 4)
    }

    /// ffmpeg's rule, through ffprobe's whole-degree rotation: a quarter turn either way, any number of turns.
    func testQuarterTurnsSwapTheSides() {
        for degrees in [90, -90, 270, -270, 450, -630, 90 + 360 * 1_000_000] {
            XCTAssertTrue(VideoDecoder.turnsQuarter(rotationDegrees: degrees), "\(degrees)")
        }
        for degrees in [0, 180, -180, 360, 89, 91, 45, Int.min, Int.max] {
            XCTAssertFalse(VideoDecoder.turnsQuarter(rotationDegrees: degrees), "\(degrees)")
        }
    }

    /// The orientation asked for is every frame's (the tasks decide how to honour it).
    func testFramesCarryTheGivenOrientation() throws {
        let decoder = try VideoDecoder(path: Self.source.path, orientation: .left)
        XCTAssertEqual(try XCTUnwrap(try decoder.nextFrame()).image.orientation, .left)
    }
}
