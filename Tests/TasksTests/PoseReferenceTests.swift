import Foundation
import Vision
import VisionTasks
import TestSupport
import XCTest

/// The pose landmarker against MediaPipe 0.10.14's own output on the shared images (`../shared/reference/pose.json`:
/// lite model, numPoses 2, segmentation masks on).
final class PoseReferenceTests: XCTestCase {
    struct Reference: Decodable {
        struct Point: Decodable { let x: Float; let y: Float; let z: Float; let visibility: Float?; let presence: Float? }
        struct MaskSummary: Decodable {
            let width: Int; let height: Int; let mean: Float
            let fractionAbove05: Float
            enum CodingKeys: String, CodingKey { case width, height, mean, fractionAbove05 = "fractionAbove0.5" }
        }
        struct Result: Decodable { let landmarks: [[Point]]; let worldLandmarks: [[Point]]; let segmentationMasks: [MaskSummary]? }
        struct Entry: Decodable { let image: String; let width: Int; let height: Int; let timestampMs: Int?; let result: Result }
        let model: String
        let results: [Entry]
    }

    static func reference(_ name: String) throws -> Reference {
        try JSONDecoder().decode(Reference.self, from: Data(contentsOf: Repository.shared.appendingPathComponent("reference/\(name)")))
    }

    /// Mean and max absolute differences of one pose against the reference, per quantity.
    struct PoseError: CustomStringConvertible {
        var x: Float = 0, y: Float = 0, world: Float = 0, visibility: Float = 0, presence: Float = 0
        var description: String {
            String(format: "mean|Δx| %.4f mean|Δy| %.4f world %.1f mm max|Δvis| %.3f max|Δpres| %.3f", x, y, world * 1000, visibility, presence)
        }
    }

    static func compare(_ ours: [NormalizedLandmark], _ world: [Landmark], _ reference: [Reference.Point], _ referenceWorld: [Reference.Point]) -> PoseError {
        var e = PoseError()
        let n = Float(reference.count)
        for (a, b) in zip(ours, reference) {
            e.x += abs(a.x - b.x) / n
            e.y += abs(a.y - b.y) / n
            e.visibility = max(e.visibility, abs((a.visibility ?? 0) - (b.visibility ?? 0)))
            e.presence = max(e.presence, abs((a.presence ?? 0) - (b.presence ?? 0)))
        }
        for (a, b) in zip(world, referenceWorld) {
            e.world += ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z)).squareRoot() / n
        }
        return e
    }

    func testImageModeMatchesMediaPipe() throws {
        let reference = try Self.reference("pose.json")
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = Repository.modelPath(reference.model)
        options.numPoses = 2
        options.outputSegmentationMasks = true
        let landmarker = try PoseLandmarker(options: options)
        var report: [String] = []
        for entry in reference.results {
            let image = try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/\(entry.image)").path)
            let result = try landmarker.detect(image: image)
            XCTAssertEqual(result.landmarks.count, entry.result.landmarks.count, "\(entry.image): pose count")
            for (p, (ours, theirs)) in zip(result.landmarks, entry.result.landmarks).enumerated() {
                XCTAssertEqual(ours.count, 33)
                let e = Self.compare(ours, result.worldLandmarks[p], theirs, entry.result.worldLandmarks[p])
                report.append("\(entry.image)#\(p): \(e)")
                XCTAssertLessThanOrEqual(e.x, 0.003, "\(entry.image) pose \(p)")
                XCTAssertLessThanOrEqual(e.y, 0.003, "\(entry.image) pose \(p)")
                XCTAssertLessThanOrEqual(e.world, 0.005, "\(entry.image) pose \(p)")
                XCTAssertLessThanOrEqual(e.visibility, 0.02, "\(entry.image) pose \(p)")
                XCTAssertLessThanOrEqual(e.presence, 0.02, "\(entry.image) pose \(p)")
                if let mask = result.segmentationMasks?[p], let summary = entry.result.segmentationMasks?[p] {
                    XCTAssertEqual(mask.width, summary.width)
                    XCTAssertEqual(mask.height, summary.height)
                    let mean = mask.float32Data.reduce(0, +) / Float(mask.float32Data.count)
                    let above = Float(mask.float32Data.filter { $0 > 0.5 }.count) / Float(mask.float32Data.count)
                    report.append(String(format: "   mask mean %.4f (ref %.4f) above0.5 %.4f (ref %.4f)", mean, summary.mean, above, summary.fractionAbove05))
                    // Issue #5: "mask summary within 0.01" (measured worst: 0.006, face_day13.jpg).
                    XCTAssertEqual(mean, summary.mean, accuracy: 0.01, "\(entry.image) mask mean")
                    XCTAssertEqual(above, summary.fractionAbove05, accuracy: 0.01, "\(entry.image) mask fraction")
                }
            }
        }
        print("pose image mode against MediaPipe:\n" + report.joined(separator: "\n"))
    }
}

extension PoseReferenceTests {
    /// Video mode on the first 90 frames of full_body_juggle.mp4 against MediaPipe frame by frame: tracking across
    /// frames (numPoses 2 keeps MediaPipe's detector running on every frame, and its detections replace tracked
    /// regions they overlap).
    func testVideoModeMatchesMediaPipe() throws {
        let reference = try Self.reference("pose_video.json")
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = Repository.modelPath(reference.model)
        options.runningMode = .video
        options.numPoses = 2
        options.outputSegmentationMasks = true
        let landmarker = try PoseLandmarker(options: options)
        let video = try VideoDecoder(path: Repository.shared.appendingPathComponent("videos/full_body_juggle.mp4").path)
        var worst = PoseError()
        var frames = 0
        for entry in reference.results {
            let frame = try XCTUnwrap(try video.nextFrame(), "video ended before \(entry.image)")
            XCTAssertEqual(frame.label, entry.image)
            XCTAssertEqual(frame.timestampMs, entry.timestampMs)
            let result = try landmarker.detect(videoFrame: frame.image, timestampInMilliseconds: frame.timestampMs)
            XCTAssertEqual(result.landmarks.count, entry.result.landmarks.count, "\(entry.image): pose count")
            for (p, (ours, theirs)) in zip(result.landmarks, entry.result.landmarks).enumerated() {
                let e = Self.compare(ours, result.worldLandmarks[p], theirs, entry.result.worldLandmarks[p])
                worst.x = max(worst.x, e.x); worst.y = max(worst.y, e.y); worst.world = max(worst.world, e.world)
                worst.visibility = max(worst.visibility, e.visibility); worst.presence = max(worst.presence, e.presence)
                XCTAssertLessThanOrEqual(e.x, 0.003, "\(entry.image)")
                XCTAssertLessThanOrEqual(e.y, 0.003, "\(entry.image)")
                XCTAssertLessThanOrEqual(e.world, 0.005, "\(entry.image)")
                XCTAssertLessThanOrEqual(e.visibility, 0.02, "\(entry.image)")
                XCTAssertLessThanOrEqual(e.presence, 0.02, "\(entry.image)")
                if let mask = result.segmentationMasks?[p], let summary = entry.result.segmentationMasks?[p] {
                    let mean = mask.float32Data.reduce(0, +) / Float(mask.float32Data.count)
                    // Issue #5's bound for the mask summary.
                    XCTAssertEqual(mean, summary.mean, accuracy: 0.01, "\(entry.image) mask mean")
                }
            }
            frames += 1
        }
        XCTAssertEqual(frames, 90)
        print("pose video mode against MediaPipe, worst frame: \(worst)")
    }
}
