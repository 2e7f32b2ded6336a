import Foundation
import VisionTasksImaging
import VisionTasksTooling
import VisionTasks
import VisionTasksTestSupport
import XCTest

/// The face landmarker against MediaPipe 0.10.14's own output (`../shared/reference/face*.json`: numFaces 2, or 1 in
/// `face_video_single.json`, blendshapes and transformation matrices on), with issue #15's bounds: landmarks mean
/// |Δx|, |Δy| ≤ 0.003; blendshape scores mean |Δ| ≤ 0.01 and none off by more than 0.05; matrices within 0.02 on
/// rotation entries and 0.5 cm on translation.
final class FaceReferenceTests: XCTestCase {
    struct Reference: Decodable {
        struct Point: Decodable { let x: Float; let y: Float; let z: Float }
        struct Score: Decodable { let index: Int; let score: Float; let categoryName: String }
        struct Result: Decodable {
            let faceLandmarks: [[Point]]
            let faceBlendshapes: [[Score]]
            let facialTransformationMatrixes: [[[Float]]]
        }
        struct Entry: Decodable { let image: String; let width: Int; let height: Int; let timestampMs: Int?; let result: Result }
        let model: String
        let results: [Entry]
    }

    static func reference(_ name: String) throws -> Reference {
        try JSONDecoder().decode(Reference.self, from: Data(contentsOf: Repository.mediapipeReference(name)))
    }

    /// Differences of one face against the reference.
    struct FaceError: CustomStringConvertible {
        var x: Float = 0, y: Float = 0
        var blendshapeMean: Float = 0, blendshapeMax: Float = 0
        var rotation: Float = 0, translation: Float = 0
        var description: String {
            String(format: "mean|Δx| %.4f mean|Δy| %.4f blendshapes mean %.4f max %.4f matrix rotation %.4f translation %.3f cm",
                   x, y, blendshapeMean, blendshapeMax, rotation, translation)
        }

        func check(_ label: String, file: StaticString = #filePath, line: UInt = #line) {
            XCTAssertLessThanOrEqual(x, 0.003, "\(label) x", file: file, line: line)
            XCTAssertLessThanOrEqual(y, 0.003, "\(label) y", file: file, line: line)
            XCTAssertLessThanOrEqual(blendshapeMean, 0.01, "\(label) blendshape mean", file: file, line: line)
            XCTAssertLessThanOrEqual(blendshapeMax, 0.05, "\(label) blendshape max", file: file, line: line)
            XCTAssertLessThanOrEqual(rotation, 0.02, "\(label) rotation", file: file, line: line)
            XCTAssertLessThanOrEqual(translation, 0.5, "\(label) translation", file: file, line: line)
        }
    }

    static func compare(_ result: FaceLandmarkerResult, face f: Int, _ reference: Reference.Result, label: String) -> FaceError {
        var e = FaceError()
        let ours = result.faceLandmarks[f], theirs = reference.faceLandmarks[f]
        XCTAssertEqual(ours.count, 478, label)
        let n = Float(theirs.count)
        for (a, b) in zip(ours, theirs) {
            e.x += abs(a.x - b.x) / n
            e.y += abs(a.y - b.y) / n
        }
        if f < result.faceBlendshapes.count, f < reference.faceBlendshapes.count {
            let categories = result.faceBlendshapes[f].categories, scores = reference.faceBlendshapes[f]
            XCTAssertEqual(categories.map(\.categoryName), scores.map(\.categoryName), label)
            XCTAssertEqual(categories.map(\.index), scores.map(\.index), label)
            for (a, b) in zip(categories, scores) {
                e.blendshapeMean += abs(a.score - b.score) / Float(scores.count)
                e.blendshapeMax = max(e.blendshapeMax, abs(a.score - b.score))
            }
        } else {
            XCTFail("\(label): blendshapes missing (ours \(result.faceBlendshapes.count), reference \(reference.faceBlendshapes.count))")
        }
        if f < result.facialTransformationMatrixes.count, f < reference.facialTransformationMatrixes.count {
            let matrix = result.facialTransformationMatrixes[f], rows = reference.facialTransformationMatrixes[f]
            XCTAssertEqual(matrix.rows, 4, label)
            XCTAssertEqual(matrix.columns, 4, label)
            for r in 0..<3 {
                for c in 0..<3 { e.rotation = max(e.rotation, abs(matrix.value(atRow: r, column: c) - rows[r][c])) }
                e.translation = max(e.translation, abs(matrix.value(atRow: r, column: 3) - rows[r][3]))
            }
        } else {
            XCTFail("\(label): matrices missing (ours \(result.facialTransformationMatrixes.count), reference \(reference.facialTransformationMatrixes.count))")
        }
        return e
    }

    static func options(model: String, numFaces: Int, runningMode: RunningMode = .image) -> FaceLandmarkerOptions {
        let options = FaceLandmarkerOptions()
        options.baseOptions.modelAssetPath = Repository.modelPath(model)
        options.runningMode = runningMode
        options.numFaces = numFaces
        options.outputFaceBlendshapes = true
        options.outputFacialTransformationMatrixes = true
        return options
    }

    func testImageModeMatchesMediaPipe() throws {
        let reference = try Self.reference("face.json")
        let landmarker = try FaceLandmarker(options: Self.options(model: reference.model, numFaces: 2))
        var report: [String] = []
        for entry in reference.results {
            let image = try MPImage(contentsOfFile: Repository.shared.appendingPathComponent("images/\(entry.image)").path)
            let result = try landmarker.detect(image: image)
            XCTAssertEqual(result.faceLandmarks.count, entry.result.faceLandmarks.count, "\(entry.image): face count")
            XCTAssertEqual(result.faceBlendshapes.count, result.faceLandmarks.count)
            XCTAssertEqual(result.facialTransformationMatrixes.count, result.faceLandmarks.count)
            for f in 0..<min(result.faceLandmarks.count, entry.result.faceLandmarks.count) {
                let e = Self.compare(result, face: f, entry.result, label: "\(entry.image)#\(f)")
                report.append("\(entry.image)#\(f): \(e)")
                e.check("\(entry.image)#\(f)")
            }
        }
        print("face image mode against MediaPipe:\n" + report.joined(separator: "\n"))
    }

    /// Video mode on the first 90 frames of face_head_turning.mp4 with numFaces 2 (no smoothing; the detector runs
    /// every frame while fewer than two faces are tracked).
    func testVideoModeMatchesMediaPipe() throws {
        let errors = try videoErrors(reference: "face_video.json", numFaces: 2)
        print("face video mode against MediaPipe, worst frame: \(Self.worst(errors))")
    }

    /// The same clip with numFaces 1: regions tracked from the landmarks, the detector idle, landmarks smoothed.
    func testSmoothedVideoModeMatchesMediaPipe() throws {
        let errors = try videoErrors(reference: "face_video_single.json", numFaces: 1)
        print("face video mode, numFaces 1 (smoothed), against MediaPipe, worst frame: \(Self.worst(errors))")
    }

    /// Issue #20: numFaces 2 with every tracked face smoothed (`.always`) against MediaPipe's numFaces 1, where
    /// MediaPipe smooths. `.always` follows each face by the region its own landmarks give, as MediaPipe's numFaces 1
    /// does, so on this one-face clip it must give what MediaPipe's numFaces 1 gives: the same face count on every
    /// frame and every bound of the numFaces 1 test (landmarks, blendshapes, matrices). For scale, MediaPipe's own
    /// numFaces 2 run, whose detector re-anchors the region every frame, is 0.0036 from its numFaces 1 in mean |Δy|
    /// (measured with `.always` before it followed tracked regions: 0.0034; ours now: below 0.0001).
    func testEveryFaceSmoothedMatchesMediaPipesSingleFace() throws {
        let single = try Self.reference("face_video_single.json"), double = try Self.reference("face_video.json")
        func mean(_ values: [Float]) -> Float { values.reduce(0, +) / Float(max(values.count, 1)) }
        var mediapipe: [Float] = []
        for (a, b) in zip(double.results, single.results) {
            guard let p = a.result.faceLandmarks.first, let q = b.result.faceLandmarks.first else { continue }
            mediapipe.append(zip(p, q).reduce(0) { $0 + (abs($1.0.x - $1.1.x) + abs($1.0.y - $1.1.y)) / 2 } / Float(q.count))
        }
        let always = try videoErrors(reference: "face_video_single.json", numFaces: 2, smoothing: .always)
        let never = try videoErrors(reference: "face_video_single.json", numFaces: 2, smoothing: .never, checkBounds: false)
        let oursAlways = mean(always.map { ($0.x + $0.y) / 2 }), oursNever = mean(never.map { ($0.x + $0.y) / 2 })
        print(String(format: "face numFaces 2 against MediaPipe's smoothed numFaces 1, clip mean of mean |Δ| (x, y): ours .always %.5f, ours .never %.5f, MediaPipe's numFaces 2 %.5f",
                     oursAlways, oursNever, mean(mediapipe)))
        print(String(format: "  ours .always clip mean |Δx| %.5f |Δy| %.5f", mean(always.map(\.x)), mean(always.map(\.y))))
        // The bound, on the clip's mean in x and in y.
        XCTAssertLessThanOrEqual(mean(always.map(\.x)), 0.003)
        XCTAssertLessThanOrEqual(mean(always.map(\.y)), 0.003)
        XCTAssertLessThan(oursAlways, oursNever)
    }

    static func worst(_ errors: [FaceError]) -> FaceError {
        errors.reduce(into: FaceError()) { w, e in
            w.x = max(w.x, e.x); w.y = max(w.y, e.y)
            w.blendshapeMean = max(w.blendshapeMean, e.blendshapeMean); w.blendshapeMax = max(w.blendshapeMax, e.blendshapeMax)
            w.rotation = max(w.rotation, e.rotation); w.translation = max(w.translation, e.translation)
        }
    }

    /// MediaPipe 1.2.3's matrices on the clip (`tools/mediapipe_face_matrices_123.py`): 1.x projects landmark z with
    /// the image's dimensions (LandmarkProjectionCalculator's non-square fix, May 2024), and so do we; on this 1280 × 720
    /// clip, as the head turns, 0.10.14's matrices are up to 1 cm from 1.2.3's (x and y within 3e-4). Landmarks and
    /// blendshapes are checked against 0.10.14's reference, matrices against 1.2.3's.
    static func matrices123(_ name: String) throws -> [[[[Float]]]] {
        struct Frame: Decodable { let image: String; let facialTransformationMatrixes: [[[Float]]] }
        struct File: Decodable { let mediapipeVersion: String; let references: [String: [Frame]] }
        let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: Repository.fixtures.appendingPathComponent("face_video_matrices_1.2.3.json")))
        XCTAssertEqual(file.mediapipeVersion, "1.2.3")
        return try XCTUnwrap(file.references[name], name).map(\.facialTransformationMatrixes)
    }

    private func videoErrors(reference name: String, numFaces: Int, smoothing: LandmarkSmoothing = .mediapipe,
                             checkBounds: Bool = true) throws -> [FaceError] {
        // The shared files are 0.10.14's, whose matrices 1.2.3 corrected (face_video_matrices_1.2.3.json); arm64's
        // are 1.2.3's own (Repository.mediapipeReference), matrices included.
        let shared = try Self.reference(name)
        let matrices = Repository.otherMediapipeVersion(name) == nil ? try Self.matrices123(name)
            : shared.results.map(\.result.facialTransformationMatrixes)
        XCTAssertEqual(matrices.count, shared.results.count)
        let reference = Reference(model: shared.model, results: zip(shared.results, matrices).map { entry, matrices in
            Reference.Entry(image: entry.image, width: entry.width, height: entry.height, timestampMs: entry.timestampMs,
                            result: Reference.Result(faceLandmarks: entry.result.faceLandmarks, faceBlendshapes: entry.result.faceBlendshapes,
                                                     facialTransformationMatrixes: matrices))
        })
        let options = Self.options(model: reference.model, numFaces: numFaces, runningMode: .video)
        options.landmarkSmoothing = smoothing
        let landmarker = try FaceLandmarker(options: options)
        let video = try VideoDecoder(path: Repository.shared.appendingPathComponent("videos/face_head_turning.mp4").path)
        var errors: [FaceError] = []
        for entry in reference.results {
            let frame = try XCTUnwrap(try video.nextFrame(), "video ended before \(entry.image)")
            XCTAssertEqual(frame.label, entry.image)
            XCTAssertEqual(frame.timestampMs, entry.timestampMs)
            let result = try landmarker.detect(videoFrame: frame.image, timestampInMilliseconds: frame.timestampMs)
            XCTAssertEqual(result.faceLandmarks.count, entry.result.faceLandmarks.count, "\(entry.image): face count")
            guard !result.faceLandmarks.isEmpty, !entry.result.faceLandmarks.isEmpty else { continue }
            errors.append(Self.compare(result, face: 0, entry.result, label: entry.image))
            if checkBounds { errors.last?.check(entry.image) }
        }
        XCTAssertEqual(errors.count, 90)
        return errors
    }
}
