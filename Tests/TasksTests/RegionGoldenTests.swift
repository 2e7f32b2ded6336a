import Foundation
import VisionTasks
import VisionTasksTestSupport
import XCTest

/// RegionFromDetection and RegionTransformation against MediaPipe 0.10.14's own DetectionsToRectsCalculator,
/// AlignmentPointsRectsCalculator and RectTransformationCalculator, with the options of its hand, pose and face graphs
/// and one with a shift and square_short (`tools/mediapipe_region_goldens.py` → `Tests/Fixtures/region_goldens.json`).
final class RegionGoldenTests: XCTestCase {
    struct Case: Decodable {
        let imageWidth: Int, imageHeight: Int
        let box: [Float], keypoints: [[Float]]
        let hand_raw: [Float], hand: [Float], pose_raw: [Float], pose: [Float], face_raw: [Float], face: [Float], other: [Float]
    }
    struct Goldens: Decodable { let cases: [Case] }

    func testRegionsMatchMediaPipesCalculators() throws {
        let goldens = try JSONDecoder().decode(Goldens.self, from: Data(contentsOf: Repository.fixtures.appendingPathComponent("region_goldens.json")))
        XCTAssertEqual(goldens.cases.count, 16)
        let hand = RegionFromDetection(shape: .boundingBox, startKeypoint: 0, endKeypoint: 2, targetAngle: .pi / 2)
        let pose = RegionFromDetection(shape: .alignmentPoints, startKeypoint: 0, endKeypoint: 1, targetAngle: .pi / 2)
        let face = RegionFromDetection(shape: .boundingBox, startKeypoint: 0, endKeypoint: 1, targetAngle: 0)
        let transforms: [(String, RegionTransformation)] = [
            ("hand", RegionTransformation(scaleX: 2.6, scaleY: 2.6, shiftY: -0.5, squareLong: true)),
            ("pose", RegionTransformation(scaleX: 1.25, scaleY: 1.25, squareLong: true)),
            ("face", RegionTransformation(scaleX: 1.5, scaleY: 1.5, squareLong: true)),
            ("other", RegionTransformation(scaleX: 1.3, scaleY: 0.8, shiftX: 0.2, shiftY: -0.1, squareShort: true)),
        ]
        var worst: Float = 0
        func check(_ rect: NormalizedRect, _ expected: [Float], _ label: String) {
            let ours = [rect.xCenter, rect.yCenter, rect.width, rect.height, rect.rotation]
            for (a, b) in zip(ours, expected) {
                worst = max(worst, abs(a - b))
                XCTAssertEqual(a, b, accuracy: 2e-6, "\(label): \(ours) against \(expected)")
            }
        }
        for (index, c) in goldens.cases.enumerated() {
            let k = c.keypoints.map { SIMD2($0[0], $0[1]) }
            let box = (c.box[0], c.box[1], c.box[2], c.box[3])
            func region(_ from: RegionFromDetection) -> NormalizedRect {
                from.rect(start: k[from.startKeypoint], end: k[from.endKeypoint], box: box,
                          imageWidth: c.imageWidth, imageHeight: c.imageHeight)
            }
            let raw = ["hand": region(hand), "pose": region(pose), "face": region(face), "other": region(hand)]
            check(raw["hand"]!, c.hand_raw, "case \(index) hand region")
            check(raw["pose"]!, c.pose_raw, "case \(index) pose region")
            check(raw["face"]!, c.face_raw, "case \(index) face region")
            let expected = ["hand": c.hand, "pose": c.pose, "face": c.face, "other": c.other]
            for (name, transform) in transforms {
                check(transform.apply(raw[name]!, imageWidth: c.imageWidth, imageHeight: c.imageHeight), expected[name]!,
                      "case \(index) \(name) transformed")
            }
        }
        print("regions against MediaPipe's calculators: largest difference \(worst)")
    }
}
