import Foundation
import VisionTasks
import VisionTasksTestSupport
import XCTest

/// The Interactive Segmenter against MediaPipe 1.2.3's legacy interactive segmenter (``SegmenterGoldens``) on
/// `interactive_segmenter_standin.tflite` — the hair network labelled background/foreground, whose masks mean nothing
/// but move with the region drawn into its fourth channel — for a keypoint and a scribble on three photos and a
/// keypoint on a turned buffer: the mask bounds. What the bounds can tell apart was measured with LiteRT
/// running the stand-in on OpenCV's own resize and drawing (against MediaPipe 1.2.3's masks): the right rendering
/// max |Δ| 1.7e-4; a radius one pixel larger 0.049, lines drawn between the scribble's points 0.136 — both beyond
/// the bounds — but antialiased discs only 0.0067–0.0185, within them: the disc's edge is checked by
/// ``RegionRendering`` matching OpenCV's `Circle` (on 3000 random discs, by its Python transcription), not here.
final class InteractiveSegmenterReferenceTests: XCTestCase {
    static func segmenter(_ model: String = "interactive_segmenter_standin.tflite", confidence: Bool = true,
                          category: Bool = true, threads: Int? = nil) throws -> InteractiveSegmenter {
        let options = InteractiveSegmenterOptions()
        options.baseOptions.modelAssetPath = Repository.modelPath(model)
        options.baseOptions.numThreads = threads
        options.shouldOutputConfidenceMasks = confidence
        options.shouldOutputCategoryMask = category
        return try InteractiveSegmenter(options: options)
    }

    static func region(_ region: SegmenterGoldens.Region) throws -> InteractiveSegmenter.RegionOfInterest {
        func point(_ xy: [Double]) -> NormalizedKeypoint { NormalizedKeypoint(location: CGPoint(x: xy[0], y: xy[1])) }
        switch region.format {
        case "keypoint": return .init(normalizedKeyPoint: point(try XCTUnwrap(region.keypoint)))
        default: return .init(scribbles: try XCTUnwrap(region.scribble).map(point))
        }
    }

    func testKeypointsAndScribblesMatchMediaPipe() throws {
        let index = try SegmenterGoldens.index()
        let entries = index.cases.filter { $0.task == "interactiveSegmenter" }
        XCTAssertGreaterThanOrEqual(entries.count, 7)
        XCTAssertEqual(Set(entries.compactMap(\.regionOfInterest?.format)), ["keypoint", "scribble"])
        var report: [String] = []
        for entry in entries {
            let segmenter = try Self.segmenter(entry.model, confidence: entry.options.outputConfidenceMasks,
                                               category: entry.options.outputCategoryMask)
            let image = try SegmenterGoldens.image(entry)
            let region = try Self.region(try XCTUnwrap(entry.regionOfInterest))
            let result = try segmenter.segment(image: image, regionOfInterest: region)
            XCTAssertEqual(result.timestampInMilliseconds, 0)
            let worst = try SegmenterGoldens.compare(
                ImageSegmenterResult(confidenceMasks: result.confidenceMasks, categoryMask: result.categoryMask,
                                     qualityScores: result.qualityScores, timestampInMilliseconds: 0), entry, entry.id)
            report.append(SegmenterGoldens.line(entry.id, worst, entry))
        }
        print("interactive segmenter against MediaPipe 1.2.3:\n" + report.joined(separator: "\n"))
    }

    /// The region reaches the masks: a point elsewhere gives other masks (the stand-in moves by up to 0.02).
    func testTheRegionChangesTheMasks() throws {
        let image = try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/face_day13.jpg").path)
        let segmenter = try Self.segmenter()
        let a = try segmenter.segment(image: image, regionOfInterest: .init(normalizedKeyPoint: NormalizedKeypoint(location: CGPoint(x: 0.5, y: 0.5))))
        let b = try segmenter.segment(image: image, regionOfInterest: .init(normalizedKeyPoint: NormalizedKeypoint(location: CGPoint(x: 0.1, y: 0.9))))
        XCTAssertNotEqual(a.confidenceMasks, b.confidenceMasks)
        var called = false
        segmenter.segment(image: image, regionOfInterest: .init(normalizedKeyPoint: NormalizedKeypoint(location: CGPoint(x: 0.5, y: 0.5)))) { result, error in
            called = true
            XCTAssertNil(error)
            XCTAssertEqual(result, a)
        }
        XCTAssertTrue(called)
    }

    func testResultsAreIdenticalAtOneTwoAndThreeThreads() throws {
        let image = try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/multi1.jpg").path)
        let region = InteractiveSegmenter.RegionOfInterest(scribbles: [CGPoint(x: 0.3, y: 0.4), CGPoint(x: 0.35, y: 0.6)].map { NormalizedKeypoint(location: $0) })
        let expected = try Self.segmenter(threads: 1).segment(image: image, regionOfInterest: region)
        for threads in [2, 3] {
            XCTAssertEqual(try Self.segmenter(threads: threads).segment(image: image, regionOfInterest: region), expected, "\(threads) threads")
        }
    }

    func testBadOptionsRegionsAndWrongModelsAreTypedErrors() throws {
        let options = InteractiveSegmenterOptions()
        options.baseOptions.modelAssetPath = Repository.modelPath("interactive_segmenter_standin.tflite")
        options.runningMode = .video
        XCTAssertThrowsError(try InteractiveSegmenter(options: options)) {
            guard case .invalidOption = $0 as? VisionTaskError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try Self.segmenter(confidence: false, category: false)) {
            guard case .invalidOption = $0 as? VisionTaskError else { return XCTFail("\($0)") }
        }
        let image = try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/pose1.jpg").path)
        for bad in [CGPoint(x: CGFloat.nan, y: 0.5), CGPoint(x: 0.5, y: CGFloat.infinity)] {
            XCTAssertThrowsError(try Self.segmenter().segment(image: image, regionOfInterest: .init(normalizedKeyPoint: NormalizedKeypoint(location: bad)))) {
                guard case .invalidOption = $0 as? VisionTaskError else { return XCTFail("\($0)") }
            }
        }
        // Far outside the image: nothing is drawn, as OpenCV clips the disc away; no error, no trap.
        XCTAssertNoThrow(try Self.segmenter().segment(image: image, regionOfInterest: .init(scribbles: [NormalizedKeypoint(location: CGPoint(x: 1e30, y: -1e30))])))
        for model in ["selfie_segmentation.tflite", "face_detection_short_range.tflite", "pose_landmarker_lite.task"] {
            XCTAssertThrowsError(try Self.segmenter(model)) {
                guard case .wrongModel = $0 as? VisionTaskError else { return XCTFail("\(model): \($0)") }
            }
        }
    }
}
