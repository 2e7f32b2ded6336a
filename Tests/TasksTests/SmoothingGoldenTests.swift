import Foundation
import VisionTasks
import VisionTasksModelFormat
import VisionTasksTestSupport
import VisionTasksTooling
import XCTest

/// `LandmarksSmoother` against MediaPipe 0.10.14's own `VisibilitySmoothingCalculator` and
/// `LandmarksSmoothingCalculator`, fed the same 60 frames of pose landmarks with a three-frame gap
/// (`tools/mediapipe_smoothing_goldens.py` → `Tests/Fixtures/smoothing_goldens.npy`): the pose chains (image landmarks
/// scaled by a region, world landmarks unscaled) and the face chain (scaled by the landmarks' own extent).
final class SmoothingGoldenTests: XCTestCase {
    static let count = 33
    static let width = 1280, height = 720

    func testSmoothingMatchesMediaPipesCalculators() throws {
        let array = try NumPyArray(npy: ByteSlice.mapping(path: Repository.fixtures.appendingPathComponent("smoothing_goldens.npy").path))
        let rowLength = 7 + Self.count * 19
        XCTAssertEqual(array.shape, [60, rowLength])
        let values = array.floats
        var image = LandmarksSmoother(.init(minCutoff: 0.05, beta: 80, derivativeCutoff: 1, valueScale: .region), visibilityAlpha: 0.1)
        var world = LandmarksSmoother(.init(minCutoff: 0.1, beta: 40, derivativeCutoff: 1, valueScale: .none), visibilityAlpha: 0.1)
        var face = LandmarksSmoother(.init(minCutoff: 0.05, beta: 80, derivativeCutoff: 1, valueScale: .landmarkExtent), visibilityAlpha: nil)
        var worst: (image: Float, world: Float, face: Float, visibility: Float) = (0, 0, 0, 0)
        for frame in 0..<60 {
            let row = Array(values[(frame * rowLength)..<((frame + 1) * rowLength)])
            let timestamp = Int(row[0])
            guard row[1] == 1 else {
                // No landmarks: MediaPipe resets the filters that also take the image size, and only those.
                image.resetCoordinates()
                face.resetCoordinates()
                continue
            }
            let region = NormalizedRect(xCenter: row[2], yCenter: row[3], width: row[4], height: row[5], rotation: row[6])
            func field(_ k: Int, _ offset: Int) -> Float { row[7 + k * 19 + offset] }
            let points = (0..<Self.count).map { NormalizedLandmark(x: field($0, 0), y: field($0, 1), z: field($0, 2), visibility: field($0, 3)) }
            let metres = (0..<Self.count).map { Landmark(x: field($0, 4), y: field($0, 5), z: field($0, 6), visibility: field($0, 7)) }
            let smoothed = image.smooth(points, region: region, imageWidth: Self.width, imageHeight: Self.height, timestampMilliseconds: timestamp)
            let smoothedWorld = world.smooth(metres, timestampMilliseconds: timestamp)
            let smoothedFace = face.smooth(points, region: nil, imageWidth: Self.width, imageHeight: Self.height, timestampMilliseconds: timestamp)
            for k in 0..<Self.count {
                let a = smoothed[k], w = smoothedWorld[k], f = smoothedFace[k]
                worst.image = max(worst.image, abs(a.x - field(k, 8)), abs(a.y - field(k, 9)), abs(a.z - field(k, 10)))
                worst.world = max(worst.world, abs(w.x - field(k, 12)), abs(w.y - field(k, 13)), abs(w.z - field(k, 14)))
                worst.face = max(worst.face, abs(f.x - field(k, 16)), abs(f.y - field(k, 17)), abs(f.z - field(k, 18)))
                worst.visibility = max(worst.visibility, abs((a.visibility?.floatValue ?? -1) - field(k, 11)), abs((w.visibility?.floatValue ?? -1) - field(k, 15)))
            }
        }
        print("smoothing against MediaPipe's calculators, largest differences: image \(worst.image), world \(worst.world) m, face \(worst.face), visibility \(worst.visibility)")
        // Float32 state as in MediaPipe; what remains is the last bit of float arithmetic done in another order.
        XCTAssertLessThanOrEqual(worst.image, 1e-6)
        XCTAssertLessThanOrEqual(worst.world, 1e-6)
        XCTAssertLessThanOrEqual(worst.face, 1e-6)
        XCTAssertLessThanOrEqual(worst.visibility, 1e-6)
    }
}
