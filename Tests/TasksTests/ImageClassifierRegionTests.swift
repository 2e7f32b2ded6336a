import Foundation
import VisionTasks
import VisionTasksTestSupport
import XCTest

/// `classify(image:regionOfInterest:)` against MediaPipe 0.10.14 with ImageProcessingOptions.region_of_interest,
/// upright and on turned buffers with the matching rotation (tools/mediapipe_classifier_roi_goldens.py,
/// Tests/Fixtures/classifier_roi_reference.json): the same categories and the same scores, exactly.
final class ImageClassifierRegionTests: XCTestCase {
    struct Region: Decodable { let left: Double, top: Double, right: Double, bottom: Double }
    struct Category: Decodable { let index: Int, score: Float, categoryName: String }
    struct Entry: Decodable {
        let image: String, model: String, rot90k: Int, rotationDegrees: Int, region: Region, width: Int, height: Int
        let categories: [Category]
    }
    struct File: Decodable { let mediapipeVersion: String; let entries: [Entry] }

    func testRegionsOfInterestMatchMediaPipe() throws {
        let name = "classifier_roi_reference.json"
        let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: Repository.mediapipeFixture(name)))
        XCTAssertEqual(file.entries.count, 6)
        // Where the file is MediaPipe 1.2.3's (arm64), 0.10.14's is the other version's answer: the two list different
        // classes among those tied at score 0 (on x86 too). At a rank where both have score 0, either's class is
        // MediaPipe's; the scores are always this platform's.
        let other = try Repository.otherMediapipeFixture(name).map { try JSONDecoder().decode(File.self, from: Data(contentsOf: $0)).entries }
        for (e, entry) in file.entries.enumerated() {
            let options = ImageClassifierOptions()
            options.baseOptions.modelAssetPath = Repository.modelPath(entry.model)
            options.maxResults = 5
            let classifier = try ImageClassifier(options: options)
            let upright = try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/\(entry.image)").path)
            let turned = TurnedPixels.rot90(upright.rgbPixels(), width: upright.width, height: upright.height, entry.rot90k)
            let image = try MPImage(pixels: turned.pixels, width: turned.width, height: turned.height, format: .rgb8,
                                    orientation: try XCTUnwrap(ImageOrientation(rotationDegrees: entry.rotationDegrees)))
            XCTAssertEqual([image.width, image.height], [entry.width, entry.height])
            let r = entry.region
            let roi = CGRect(x: r.left, y: r.top, width: r.right - r.left, height: r.bottom - r.top)
            let label = "\(entry.image) k=\(entry.rot90k) \(roi)"
            let categories = try XCTUnwrap(try classifier.classify(image: image, regionOfInterest: roi).classificationResult.classifications.first).categories
            let expected = entry.categories.enumerated().map { k, category -> Category in
                guard let tied = other?[e].categories.dropFirst(k).first, tied.score == 0, category.score == 0,
                      k < categories.count, categories[k].index == tied.index else { return category }
                return tied
            }
            XCTAssertEqual(categories.map(\.categoryName), expected.map(\.categoryName), label)
            XCTAssertEqual(categories.map(\.index), expected.map(\.index), label)
            XCTAssertEqual(categories.map(\.score), expected.map(\.score), label)
        }
    }

    /// MediaPipe's checks: an empty region or one outside [0, 1] is an invalid argument, not a crop of nothing.
    func testBadRegionsAreTypedErrors() throws {
        let options = ImageClassifierOptions()
        options.baseOptions.modelAssetPath = Repository.modelPath("bird_classifier.tflite")
        let classifier = try ImageClassifier(options: options)
        let image = try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/coral_bird.png").path)
        for roi in [CGRect(x: 0.5, y: 0.5, width: 0, height: 0.2), CGRect(x: 0.5, y: 0.5, width: 0.6, height: 0.2),
                    CGRect(x: -0.1, y: 0, width: 0.5, height: 0.5), CGRect(x: 0, y: 0, width: CGFloat.nan, height: 1),
                    CGRect(x: 0.2, y: 0.6, width: 0.3, height: 0.5)] {
            XCTAssertThrowsError(try classifier.classify(image: image, regionOfInterest: roi), "\(roi)") { error in
                guard case .invalidOption(name: "regionOfInterest", _) = error as? VisionTaskError else { return XCTFail("\(roi): \(error)") }
            }
        }
    }
}
