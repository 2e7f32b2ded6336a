import Foundation
@testable import VisionTasks
import VisionTasksTestSupport
import XCTest

/// The holistic landmarker's face and hand stages fed MediaPipe 1.2.3's own pose (the fixture's pose landmarks and
/// world landmarks), image mode: what they add to the pose stage's error. The face and hands are derived from the
/// pose, so end to end (HolisticReferenceTests) a pose a few ten-thousandths off moves the face region, and the face
/// model answers a slightly different crop; here the pose is MediaPipe's, and each stage is held to the bounds of our
/// face and hand reference tests on its own.
final class HolisticStageTests: XCTestCase {
    func testFaceAndHandStagesFromMediaPipesPoseMatchMediaPipe() throws {
        let reference = try HolisticReferenceTests.reference()
        let settings = HolisticReferenceTests.options(model: reference.model).settings
        let pipeline = try HolisticLandmarkerPipeline(bundle: try settings.baseOptions.openBundle(), options: settings)
        var worst = HolisticReferenceTests.Errors(), lines: [String] = []
        for entry in reference.entries where entry.set == "image" || entry.set == "exif" {
            guard let expected = entry.result, !expected.poseLandmarks.isEmpty else { continue }
            let image = entry.set == "exif" ? try HolisticReferenceTests.exifImage(entry)
                : try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/\(entry.image)").path)
            let label = entry.image + (entry.exifOrientation.map { " EXIF \($0)" } ?? "")
            let pose = expected.poseLandmarks.map { NormalizedLandmark(x: $0.x, y: $0.y, z: $0.z, visibility: $0.visibility, presence: $0.presence) }
            let world = expected.poseWorldLandmarks.map { Landmark(x: $0.x, y: $0.y, z: $0.z, visibility: $0.visibility, presence: $0.presence) }
            let estimate = PoseEstimate(landmarks: pose, world: world, mask: nil, nextRect: NormalizedRect.whole(), instance: 0)
            var result = HolisticLandmarkerResult.empty(timestampInMilliseconds: 0)
            result.poseLandmarks = pose
            result.poseWorldLandmarks = world
            var state = PersonState()
            result.faceLandmarks = try pipeline.faceLandmarks(image, pose: pose, state: &state)
            if !result.faceLandmarks.isEmpty {
                result.faceBlendshapes = try XCTUnwrap(pipeline.blendshapes).scores(result.faceLandmarks, imageWidth: image.width, imageHeight: image.height)
            }
            (result.leftHandLandmarks, result.leftHandWorldLandmarks) = try pipeline.handLandmarks(image, pose: estimate, side: .left, state: &state)
            (result.rightHandLandmarks, result.rightHandWorldLandmarks) = try pipeline.handLandmarks(image, pose: estimate, side: .right, state: &state)
            var e = HolisticReferenceTests.compare(result, Self.withoutMask(expected), label: label)
            (e.maskMean, e.maskFraction) = (0, 0)
            e.check(label)
            worst.merge(e)
            lines.append("\(label): \(e)")
        }
        print("holistic face and hand stages from MediaPipe's pose:\n" + lines.joined(separator: "\n") + "\nworst: \(worst)")
    }

    /// The fixture's result with no mask (this test runs no pose stage, so it has none to compare).
    static func withoutMask(_ r: HolisticReferenceTests.Result) -> HolisticReferenceTests.Result {
        HolisticReferenceTests.Result(poseLandmarks: r.poseLandmarks, poseWorldLandmarks: r.poseWorldLandmarks, faceLandmarks: r.faceLandmarks,
                                      faceBlendshapes: r.faceBlendshapes, leftHandLandmarks: r.leftHandLandmarks,
                                      leftHandWorldLandmarks: r.leftHandWorldLandmarks, rightHandLandmarks: r.rightHandLandmarks,
                                      rightHandWorldLandmarks: r.rightHandWorldLandmarks, segmentationMask: nil)
    }
}
