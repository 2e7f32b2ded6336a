import Foundation
import VisionTasks
import VisionTasksTestSupport
import XCTest

/// Issue #42: three held-out photos (a pose, a face, two hands) in the encodings users' files come in — PNG 8/16-bit,
/// palette, grey, alpha, gAMA, eXIf; JPEG baseline, progressive, arithmetic, restart markers, grey, CMYK, YCCK, EXIF;
/// BMP, GIF, PNM, TIFF, WebP, AVIF, HEIC — each opened as a user opens it (`MPImage(contentsOfFile:)`) and run through
/// the photo's task. The truth is MediaPipe 1.2.3 on the same file (`Tests/Fixtures/formats/<task>.json`, written by
/// tools/mediapipe_format_goldens.py), and where MediaPipe cannot read the file, aborts its graph on it (grey: one
/// channel) or ignores its orientation (PNG eXIf), MediaPipe 1.2.3 on the photo's pixels as another decoder gives
/// them (each result's `truthSource`; files.json says which decoder). Bounds: those of the reference tests of each
/// task (PoseReferenceTests, FaceReferenceTests, HandReferenceTests), through their own comparisons.
/// PNG eXIf: the issue asks for it to be applied as a JPEG's EXIF is, so the truth is the upright photo's result;
/// MediaPipe 1.2.3 ignores the chunk, and its own result on the sideways file is kept beside it
/// (`mediapipeFileResult`) should the project follow MediaPipe instead.
final class FormatReferenceTests: XCTestCase {
    struct Entry: Decodable { let image: String; let width: Int; let height: Int; let truthSource: String }
    struct File: Decodable { let model: String; let mediapipeVersion: String; let results: [Entry] }

    static let folder = Repository.fixtures.appendingPathComponent("formats")

    static func fixture(_ task: String) throws -> (file: File, data: Data) {
        let data = try Data(contentsOf: folder.appendingPathComponent("\(task).json"))
        let file = try JSONDecoder().decode(File.self, from: data)
        XCTAssertEqual(file.mediapipeVersion, "1.2.3")
        return (file, data)
    }

    /// Opens every file of the fixture and runs `compare` on the ones we decode; prints, per file, whether it gave
    /// MediaPipe's result (no failure recorded while checking it), how it was off, or why we refused it.
    private func eachFile(_ task: String, _ file: File, _ compare: (Int, MPImage) throws -> [String]) {
        var matching: [String] = [], off: [String] = [], refused: [String] = [], report: [String] = []
        for (i, entry) in file.results.enumerated() {
            let failuresBefore = testRun?.totalFailureCount ?? 0
            let image: MPImage
            do {
                image = try MPImage(contentsOfFile: Self.folder.appendingPathComponent(entry.image).path)
            } catch {
                XCTFail("\(entry.image): \(error)")
                refused.append("\(entry.image) (\(error))")
                continue
            }
            XCTAssertEqual([image.width, image.height], [entry.width, entry.height], "\(entry.image): size")
            let lines: [String]
            do {
                lines = try compare(i, image)
            } catch {
                XCTFail("\(entry.image): the task threw \(error)")
                off.append("\(entry.image) (the task threw \(error))")
                continue
            }
            report.append("\(entry.image) [\(entry.truthSource)]" + lines.map { "\n  " + $0 }.joined())
            if (testRun?.totalFailureCount ?? 0) == failuresBefore { matching.append(entry.image) } else { off.append(entry.image) }
        }
        print("\(task) on every format against MediaPipe 1.2.3:\n" + report.joined(separator: "\n"))
        print("\(task): \(matching.count) of \(file.results.count) files give MediaPipe's result; off: \(off.joined(separator: ", ")); "
              + "refused: \(refused.joined(separator: "; "))")
    }

    func testPoseOnEveryFormatMatchesMediaPipe() throws {
        let (file, data) = try Self.fixture("pose")
        let reference = try JSONDecoder().decode(PoseReferenceTests.Reference.self, from: data)
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = Repository.modelPath(file.model)
        options.numPoses = 2
        options.outputSegmentationMasks = true
        let landmarker = try PoseLandmarker(options: options)
        eachFile("pose", file) { i, image in
            let label = file.results[i].image, expected = reference.results[i].result
            let result = try landmarker.detect(image: image)
            XCTAssertEqual(result.landmarks.count, expected.landmarks.count, "\(label): pose count")
            var lines: [String] = []
            for p in 0..<min(result.landmarks.count, expected.landmarks.count) {
                let e = PoseReferenceTests.compare(result.landmarks[p], result.worldLandmarks[p], expected.landmarks[p], expected.worldLandmarks[p])
                lines.append("#\(p): \(e)")
                e.check("\(label) pose \(p)")
                if let mask = result.segmentationMasks.dropFirst(p).first, let summary = expected.segmentationMasks?.dropFirst(p).first {
                    lines.append(PoseReferenceTests.checkMask(mask, summary, label: label))
                }
            }
            return lines
        }
    }

    func testFaceOnEveryFormatMatchesMediaPipe() throws {
        let (file, data) = try Self.fixture("face")
        let reference = try JSONDecoder().decode(FaceReferenceTests.Reference.self, from: data)
        let landmarker = try FaceLandmarker(options: FaceReferenceTests.options(model: file.model, numFaces: 2))
        eachFile("face", file) { i, image in
            let label = file.results[i].image, expected = reference.results[i].result
            let result = try landmarker.detect(image: image)
            XCTAssertEqual(result.faceLandmarks.count, expected.faceLandmarks.count, "\(label): face count")
            var lines: [String] = []
            for f in 0..<min(result.faceLandmarks.count, expected.faceLandmarks.count) {
                let e = FaceReferenceTests.compare(result, face: f, expected, label: "\(label)#\(f)")
                lines.append("#\(f): \(e)")
                e.check("\(label)#\(f)")
            }
            return lines
        }
    }

    func testGestureOnEveryFormatMatchesMediaPipe() throws {
        let (file, data) = try Self.fixture("gesture")
        let reference = try JSONDecoder().decode(HandReferenceTests.Reference.self, from: data)
        let recognizer = try GestureRecognizer(options: HandReferenceTests.gestureOptions(model: file.model, numHands: 2, runningMode: .image))
        eachFile("gesture", file) { i, image in
            let label = file.results[i].image, expected = reference.results[i].result
            let result = try recognizer.recognize(image: image)
            XCTAssertEqual(result.landmarks.count, expected.landmarks.count, "\(label): hand count")
            var lines: [String] = []
            for h in 0..<min(result.landmarks.count, expected.landmarks.count) {
                let e = HandReferenceTests.compare(landmarks: result.landmarks[h], world: result.worldLandmarks[h], handedness: result.handedness[h],
                                                   gestures: result.gestures[h], expected, hand: h, label: "\(label)#\(h)")
                lines.append("#\(h) \(result.gestures[h].first?.categoryName ?? "?"): \(e)")
                e.check("\(label)#\(h)")
            }
            return lines
        }
    }
}
