import Foundation
import VisionTasks
import VisionTasksTestSupport
import VisionTasksTooling
import XCTest

/// Phone-video clips: the shared clips given a rotation in their stream metadata (`rotate=90/180/270`, what every
/// portrait phone video carries), recreated here with the ffmpeg command the goldens were made from
/// (Tests/Fixtures/orientation/video_*.json) or its ffmpeg 6+ equivalent. ffmpeg shows such a clip turned, with width
/// and height traded for a quarter turn; MediaPipe's results on those upright frames
/// (`../shared/tools/mediapipe_reference.py --video`) are the truth, with the bounds of the upright video tests. Our
/// decoder must give the frames in that orientation and size.
final class OrientationVideoTests: XCTestCase {
    struct Clip: Decodable { let source: String; let rotate: Int; let ffprobeRotation: Int; let width: Int; let height: Int }
    struct Header: Decodable { let model: String; let mediapipeVersion: String; let clip: Clip }
    struct Labelled: Decodable { let image: String; let width: Int; let height: Int; let timestampMs: Int? }
    struct Labels: Decodable { let results: [Labelled] }

    static let rotations = [90, 180, 270]

    /// The clip rebuilt in a temporary directory, named as in the fixture (the frames' labels carry the name): the
    /// fixture's command on ffmpeg 5.1, `-display_rotation` on ffmpeg 6+ (RotatedClip), with the fixture's display
    /// rotation as ffprobe reads it.
    static func clip(_ header: Header, in directory: URL) throws -> URL {
        let name = (header.clip.source as NSString).deletingPathExtension + "_rotate\(header.clip.rotate).mp4"
        let output = try RotatedClip.make(from: Repository.shared.appendingPathComponent("videos/\(header.clip.source)"),
                                          degrees: header.clip.rotate, at: directory.appendingPathComponent(name))
        XCTAssertEqual(try RotatedClip.rotation(of: output), header.clip.ffprobeRotation, name)
        return output
    }

    /// Runs `body` on every decoded frame of each rotated clip of `task`, with the fixture entry of that frame if kept.
    func forEachFrame(_ task: String, _ body: (Header, Data, MPImage, Int, Labelled?) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("orientation-video-\(task)-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for rotate in Self.rotations {
            let data = try Data(contentsOf: Repository.fixtures.appendingPathComponent("orientation/video_\(task)_rot\(rotate).json"))
            let header = try JSONDecoder().decode(Header.self, from: data)
            let entries = try JSONDecoder().decode(Labels.self, from: data).results
            let video = try VideoDecoder(path: try Self.clip(header, in: directory).path)
            XCTAssertEqual([video.width, video.height], [header.clip.width, header.clip.height], "rotate=\(rotate): the frame size ffmpeg shows")
            var seen = 0
            for _ in 0..<30 {
                let frame = try XCTUnwrap(try video.nextFrame(), "rotate=\(rotate): clip ended early")
                XCTAssertEqual([frame.image.width, frame.image.height], [header.clip.width, header.clip.height])
                let entry = entries.first { $0.image == frame.label }
                if let entry {
                    XCTAssertEqual(entry.timestampMs, frame.timestampMs, frame.label)
                    seen += 1
                }
                try body(header, data, frame.image, frame.timestampMs, entry)
            }
            XCTAssertEqual(seen, entries.count, "rotate=\(rotate): every kept frame decoded under its label")
        }
    }

    func testPoseOnRotatedClipsMatchesMediaPipe() throws {
        var landmarker: PoseLandmarker?, rotate = 0, report: [String] = []
        try forEachFrame("pose") { header, data, image, timestamp, entry in
            if header.clip.rotate != rotate {
                rotate = header.clip.rotate
                let options = PoseLandmarkerOptions()
                options.baseOptions.modelAssetPath = Repository.modelPath(header.model)
                options.runningMode = .video
                options.numPoses = 2
                landmarker = try PoseLandmarker(options: options)
            }
            let result = try XCTUnwrap(landmarker).detect(videoFrame: image, timestampInMilliseconds: timestamp)
            guard let entry else { return }
            let reference = try JSONDecoder().decode(PoseReferenceTests.Reference.self, from: data)
            let expected = try XCTUnwrap(reference.results.first { $0.image == entry.image }).result
            XCTAssertEqual(result.landmarks.count, expected.landmarks.count, entry.image)
            for p in 0..<min(result.landmarks.count, expected.landmarks.count) {
                let e = PoseReferenceTests.compare(result.landmarks[p], result.worldLandmarks[p], expected.landmarks[p], expected.worldLandmarks[p])
                report.append("\(entry.image)#\(p): \(e)")
                XCTAssertLessThanOrEqual(e.x, 0.003, entry.image)
                XCTAssertLessThanOrEqual(e.y, 0.003, entry.image)
                XCTAssertLessThanOrEqual(e.world, 0.005, entry.image)
                XCTAssertLessThanOrEqual(e.visibility, 0.02, entry.image)
                XCTAssertLessThanOrEqual(e.presence, 0.02, entry.image)
            }
        }
        print("pose on rotated clips against MediaPipe:\n" + report.joined(separator: "\n"))
    }

    func testFaceOnRotatedClipsMatchesMediaPipe() throws {
        var landmarker: FaceLandmarker?, rotate = 0, report: [String] = []
        try forEachFrame("face") { header, data, image, timestamp, entry in
            if header.clip.rotate != rotate {
                rotate = header.clip.rotate
                landmarker = try FaceLandmarker(options: FaceReferenceTests.options(model: header.model, numFaces: 2, runningMode: .video))
            }
            let result = try XCTUnwrap(landmarker).detect(videoFrame: image, timestampInMilliseconds: timestamp)
            guard let entry else { return }
            let reference = try JSONDecoder().decode(FaceReferenceTests.Reference.self, from: data)
            let expected = try XCTUnwrap(reference.results.first { $0.image == entry.image }).result
            XCTAssertEqual(result.faceLandmarks.count, expected.faceLandmarks.count, entry.image)
            for f in 0..<min(result.faceLandmarks.count, expected.faceLandmarks.count) {
                let e = FaceReferenceTests.compare(result, face: f, expected, label: entry.image)
                report.append("\(entry.image)#\(f) (\(header.mediapipeVersion)): \(e)")
                e.check(entry.image)
            }
        }
        print("face on rotated clips against MediaPipe:\n" + report.joined(separator: "\n"))
    }

    func testGestureOnRotatedClipsMatchesMediaPipe() throws {
        var recognizer: GestureRecognizer?, rotate = 0, report: [String] = []
        try forEachFrame("gesture") { header, data, image, timestamp, entry in
            if header.clip.rotate != rotate {
                rotate = header.clip.rotate
                recognizer = try GestureRecognizer(options: HandReferenceTests.gestureOptions(model: header.model, numHands: 2, runningMode: .video))
            }
            let result = try XCTUnwrap(recognizer).recognize(videoFrame: image, timestampInMilliseconds: timestamp)
            guard let entry else { return }
            let reference = try JSONDecoder().decode(HandReferenceTests.Reference.self, from: data)
            let expected = try XCTUnwrap(reference.results.first { $0.image == entry.image }).result
            XCTAssertEqual(result.landmarks.count, expected.landmarks.count, entry.image)
            for h in 0..<min(result.landmarks.count, expected.landmarks.count) {
                let e = HandReferenceTests.compare(landmarks: result.landmarks[h], world: result.worldLandmarks[h], handedness: result.handedness[h],
                                                   gestures: result.gestures[h], expected, hand: h, label: entry.image)
                report.append("\(entry.image)#\(h): \(e)")
                e.check(entry.image)
            }
        }
        print("gesture on rotated clips against MediaPipe:\n" + report.joined(separator: "\n"))
    }
}
