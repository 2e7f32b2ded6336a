import Foundation
import VisionTasks
import VisionTasksTestSupport
import VisionTasksTooling
import XCTest

/// `landmarkSmoothing = .always`: every tracked pose smoothed with filters of its own.
final class LandmarkSmoothingTests: XCTestCase {
    private func run(_ path: String, smoothing: LandmarkSmoothing, frames: Int, numPoses: Int = 2) throws -> [PoseLandmarkerResult] {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = Repository.modelPath("pose_landmarker_lite.task")
        options.runningMode = .video
        options.numPoses = numPoses
        options.landmarkSmoothing = smoothing
        let landmarker = try PoseLandmarker(options: options)
        let video = try VideoDecoder(path: path)
        var results: [PoseLandmarkerResult] = []
        while results.count < frames, let frame = try video.nextFrame() {
            results.append(try landmarker.detect(videoFrame: frame.image, timestampInMilliseconds: frame.timestampMs))
        }
        return results
    }

    /// Two people (the middle half of the juggling clip beside itself, 1280 × 720): each smoothed pose stays with its
    /// own person and is smoothed. Smoothed poses stay within 0.02 of their unsmoothed selves (measured: 0.005; the
    /// other person is half the width away), and each person's frame-to-frame jitter (mean |second difference| of
    /// x and y) falls below 0.75 of the unsmoothed jitter (measured: 0.52 and 0.54). With one set of filters shared
    /// by both people the first of them came out unsmoothed (jitter ratio 1.00: the 1€ filter passes a second
    /// value at the same timestamp through, and the other person's jump reads as speed).
    func testAlwaysSmoothsEachPersonWithItsOwnFilters() throws {
        let clip = FileManager.default.temporaryDirectory.appendingPathComponent("two-people-\(getpid()).avi").path
        defer { try? FileManager.default.removeItem(atPath: clip) }
        let ffmpeg = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/env"), [
            "ffmpeg", "-nostdin", "-v", "error", "-y", "-i", Repository.shared.appendingPathComponent("videos/full_body_juggle.mp4").path,
            "-frames:v", "40", "-filter_complex", "[0:v]crop=640:720:320:0,split[a][b];[a][b]hstack", "-c:v", "mjpeg", "-q:v", "2", clip,
        ])
        XCTAssertEqual(ffmpeg.status, 0, ffmpeg.stderr)
        let smoothed = try run(clip, smoothing: .always, frames: 40), raw = try run(clip, smoothing: .never, frames: 40)
        XCTAssertEqual(smoothed.count, 40)
        var twoPeople = 0, worst: Float = 0
        for (frame, (a, b)) in zip(smoothed, raw).enumerated() {
            XCTAssertEqual(a.landmarks.count, b.landmarks.count, "frame \(frame)")
            if a.landmarks.count == 2 { twoPeople += 1 }
            for pose in a.landmarks {
                let left = pose[0].x < 0.5
                let counterpart = try XCTUnwrap(b.landmarks.first { ($0[0].x < 0.5) == left }, "frame \(frame)")
                let distances = zip(pose, counterpart).map { (p, q) -> Float in (abs(p.x - q.x) + abs(p.y - q.y)) / 2 }
                let distance = distances.reduce(0, +) / Float(pose.count)
                worst = max(worst, distance)
                XCTAssertLessThan(distance, 0.02, "frame \(frame): a smoothed pose left its person")
            }
        }
        XCTAssertEqual(twoPeople, 40, "both people found in every frame")
        func jitter(_ results: [PoseLandmarkerResult], left: Bool) -> Float {
            let series = results.compactMap { $0.landmarks.first { ($0[0].x < 0.5) == left } }
            var total: Float = 0, count = 0
            for t in 1..<(series.count - 1) {
                for k in series[t].indices {
                    total += abs(series[t + 1][k].x - 2 * series[t][k].x + series[t - 1][k].x)
                    total += abs(series[t + 1][k].y - 2 * series[t][k].y + series[t - 1][k].y)
                    count += 2
                }
            }
            return total / Float(max(count, 1))
        }
        for left in [true, false] {
            let ratio = jitter(smoothed, left: left) / jitter(raw, left: left)
            print("two people, \(left ? "left" : "right"): jitter .always / .never = \(ratio)")
            XCTAssertLessThan(ratio, 0.75, "the \(left ? "left" : "right") person is not smoothed")
        }
        XCTAssertGreaterThan(worst, 0, "smoothing changed nothing")
        print("two people, .always against .never: largest mean difference \(worst)")
    }

    /// One person with numPoses 2 (MediaPipe does not smooth there). `.always` follows the person by the region its
    /// landmarks give, as MediaPipe's numPoses 1 does, and drops the detector's second find of the same person, so it
    /// gives exactly our numPoses 1 result — whose distance from MediaPipe's (`pose_video_single.json`) the pose
    /// reference tests hold to MediaPipe's own one-pixel spread. Issue #20's bounds: landmarks within 0.003 on the
    /// clip mean (held here) and world landmarks within 5 mm. Measured: x 0.0006, y 0.0014, world 11.3 mm — the
    /// numPoses 1 figure; the world bound lies inside MediaPipe's one-pixel spread of 10–12 mm (issue #13), so no
    /// kernel that rounds differently from XNNPACK can be held to it. (Before `.always` followed tracked regions:
    /// x 0.0013, y 0.0030, world 31.9 mm; `.never`: 0.0022, 0.0046, 36.1 mm.)
    func testAlwaysWithSeveralPosesGivesTheSinglePoseResult() throws {
        let reference = try PoseReferenceTests.reference("pose_video_single.json")
        let clip = Repository.shared.appendingPathComponent("videos/full_body_juggle.mp4").path
        func distance(_ results: [PoseLandmarkerResult]) -> PoseReferenceTests.PoseError {
            var total = PoseReferenceTests.PoseError()
            for (result, entry) in zip(results, reference.results) {
                XCTAssertEqual(result.landmarks.count, entry.result.landmarks.count, entry.image)
                guard let ours = result.landmarks.first, let theirs = entry.result.landmarks.first else { continue }
                let e = PoseReferenceTests.compare(ours, result.worldLandmarks[0], theirs, entry.result.worldLandmarks[0])
                total.x += e.x / Float(results.count); total.y += e.y / Float(results.count); total.world += e.world / Float(results.count)
            }
            return total
        }
        let always = try run(clip, smoothing: .always, frames: 90)
        XCTAssertEqual(always, try run(clip, smoothing: .mediapipe, frames: 90, numPoses: 1), "numPoses 2 with .always is not numPoses 1")
        let smoothed = distance(always), raw = distance(try run(clip, smoothing: .never, frames: 90))
        print("numPoses 2 against MediaPipe's numPoses 1, clip means: .always \(smoothed), .never \(raw)")
        XCTAssertLessThanOrEqual(smoothed.x, 0.003)
        XCTAssertLessThanOrEqual(smoothed.y, 0.003)
        XCTAssertLessThan(smoothed.world, raw.world)
    }
}

/// Hands: MediaPipe smooths none, so the default is no smoothing at all; `.always` smooths each tracked hand.
final class HandSmoothingTests: XCTestCase {
    private func run(_ smoothing: LandmarkSmoothing) throws -> [GestureRecognizerResult] {
        let options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath = Repository.modelPath("gesture_recognizer.task")
        options.runningMode = .video
        options.landmarkSmoothing = smoothing
        let recognizer = try GestureRecognizer(options: options)
        let video = try VideoDecoder(path: Repository.shared.appendingPathComponent("videos/hand_gesture_fist_thumbsup.mp4").path)
        var results: [GestureRecognizerResult] = []
        while results.count < 80, let frame = try video.nextFrame() {
            results.append(try recognizer.recognize(videoFrame: frame.image, timestampInMilliseconds: frame.timestampMs))
        }
        return results
    }

    /// Mean frame-to-frame movement of the landmarks over the frames where a hand is found in both.
    private func jitter(_ results: [GestureRecognizerResult]) -> Float {
        var total: Float = 0, count = 0
        for (a, b) in zip(results, results.dropFirst()) {
            guard let p = a.landmarks.first, let q = b.landmarks.first else { continue }
            total += zip(p, q).reduce(0) { $0 + abs($1.0.x - $1.1.x) + abs($1.0.y - $1.1.y) } / Float(p.count)
            count += 1
        }
        return total / Float(max(count, 1))
    }

    func testHandsAreSmoothedOnlyWhenAsked() throws {
        let mediapipe = try run(.mediapipe), never = try run(.never), always = try run(.always)
        XCTAssertEqual(mediapipe, never, "MediaPipe smooths no hand")
        XCTAssertEqual(always.map(\.landmarks.count), never.map(\.landmarks.count))
        XCTAssertNotEqual(always, never)
        print(String(format: "hand jitter (mean frame-to-frame |Δx|+|Δy|): never %.5f, always %.5f", jitter(never), jitter(always)))
        XCTAssertLessThan(jitter(always), jitter(never))
    }
}
