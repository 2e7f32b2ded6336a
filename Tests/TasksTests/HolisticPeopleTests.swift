import Foundation
import VisionTasks
import VisionTasksTestSupport
import VisionTasksTooling
import XCTest

/// `numPeople` (ours: MediaPipe's holistic graph follows one person). Its poses are held to MediaPipe's Pose
/// Landmarker looking for several people with the same lite pose model (the fixture's "people" entries), with our
/// pose reference test's bounds; and it changes nothing where there is one person to follow.
final class HolisticPeopleTests: XCTestCase {
    private func landmarker(_ numPeople: Int, _ mode: RunningMode = .image) throws -> HolisticLandmarker {
        let options = HolisticReferenceTests.options(model: "holistic_landmarker.task", mode: mode)
        options.numPeople = numPeople
        return try HolisticLandmarker(options: options)
    }

    /// Each person's pose is one of MediaPipe's Pose Landmarker's (numPoses 3), within the pose bounds (mean |Δx|,
    /// |Δy| ≤ 0.003, world ≤ 5 mm, visibility and presence ≤ 0.02); the same count; the first person is the
    /// numPeople 1 result, bit for bit; every person has their own face and hands, inside their own pose's reach.
    func testEachPersonsPoseIsMediaPipesAndTheFirstIsTheSinglePerson() throws {
        let reference = try HolisticReferenceTests.reference()
        let several = try landmarker(3), single = try landmarker(1)
        var report: [String] = []
        for entry in reference.entries where entry.set == "people" {
            let poses = try XCTUnwrap(entry.poses)
            let image = try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/\(entry.image)").path)
            let result = try several.detect(image: image)
            XCTAssertEqual(result.people.count, poses.count, "\(entry.image): people")
            let one = try single.detect(image: image)
            XCTAssertEqual(result.people.first, one.people.first, "\(entry.image): the first person is numPeople 1's")
            XCTAssertTrue(result.poseLandmarks == one.poseLandmarks && result.faceLandmarks == one.faceLandmarks
                          && result.leftHandLandmarks == one.leftHandLandmarks && result.rightHandLandmarks == one.rightHandLandmarks,
                          "\(entry.image): the fields are the first person's")
            var matched = Set<Int>()
            for (index, person) in result.people.enumerated() {
                // The MediaPipe pose nearest to this one.
                let (best, e) = try XCTUnwrap(poses.indices.map { i -> (Int, HolisticReferenceTests.Errors) in
                    var e = HolisticReferenceTests.Errors()
                    (e.poseX, e.poseY) = HolisticReferenceTests.meanXY(person.poseLandmarks, poses[i].poseLandmarks)
                    e.poseWorld = HolisticReferenceTests.meanWorld(person.poseWorldLandmarks, poses[i].poseWorldLandmarks)
                    for (a, b) in zip(person.poseLandmarks, poses[i].poseLandmarks) {
                        e.visibility = max(e.visibility, abs((a.visibility?.floatValue ?? 0) - (b.visibility ?? 0)))
                        e.presence = max(e.presence, abs((a.presence?.floatValue ?? 0) - (b.presence ?? 0)))
                    }
                    return (i, e)
                }.min { $0.1.poseX + $0.1.poseY < $1.1.poseX + $1.1.poseY })
                XCTAssertTrue(matched.insert(best).inserted, "\(entry.image): two people match MediaPipe's pose \(best)")
                let label = "\(entry.image) person \(index)"
                e.check(label)
                report.append("\(label) ~ MediaPipe's pose \(best): \(e)")
                // A hand or face of this person lies near this person's own pose (its wrist, its nose).
                for (hand, wrist) in [(person.leftHandLandmarks, 15), (person.rightHandLandmarks, 16)] where !hand.isEmpty {
                    let dx = hand[0].x - person.poseLandmarks[wrist].x, dy = hand[0].y - person.poseLandmarks[wrist].y
                    XCTAssertLessThan((dx * dx + dy * dy).squareRoot(), 0.1, "\(label): a hand far from its wrist")
                }
                if !person.faceLandmarks.isEmpty {
                    let dx = person.faceLandmarks[1].x - person.poseLandmarks[0].x, dy = person.faceLandmarks[1].y - person.poseLandmarks[0].y
                    XCTAssertLessThan((dx * dx + dy * dy).squareRoot(), 0.1, "\(label): a face far from its nose")
                }
            }
        }
        print("holistic numPeople 3 poses against MediaPipe's Pose Landmarker (numPoses 3):\n" + report.joined(separator: "\n"))
    }

    /// On a one-person clip, numPeople 2 follows the one person as numPeople 1 does (the detector's detections over
    /// the tracked person are dropped, and the person keeps filters of their own): bit-identical results, video mode.
    func testOnePersonClipGivesTheSameResultsWithRoomForTwo() throws {
        let video = try VideoDecoder(path: Repository.shared.appendingPathComponent("videos/full_body_juggle.mp4").path)
        let one = try landmarker(1, .video), two = try landmarker(2, .video)
        var frames = 0
        while frames < 20, let frame = try video.nextFrame() {
            let a = try one.detect(videoFrame: frame.image, timestampInMilliseconds: frame.timestampMs)
            let b = try two.detect(videoFrame: frame.image, timestampInMilliseconds: frame.timestampMs)
            XCTAssertEqual(b.people.count, 1, frame.label)
            XCTAssertTrue(a == b, "\(frame.label): numPeople 2 differs from numPeople 1")
            frames += 1
        }
        XCTAssertEqual(frames, 20)
    }

    func testNumPeopleBelowOneIsATypedError() {
        let options = HolisticReferenceTests.options(model: "holistic_landmarker.task")
        options.numPeople = 0
        XCTAssertThrowsError(try HolisticLandmarker(options: options)) { error in
            XCTAssertEqual(error as? VisionTaskError, .invalidOption(name: "numPeople", reason: "0 is below 1"))
        }
    }
}
