import Foundation
@testable import VisionTasks
import VisionTasksModelFormat
import VisionTasksTestSupport
import XCTest

/// The geometry pipeline alone, fed MediaPipe's own landmarks from `face.json`: it must give MediaPipe's own
/// facial transformation matrices (MediaPipe computes in float with Eigen; we in double with our own SVD).
final class FaceGeometryTests: XCTestCase {
    func testMediaPipeLandmarksGiveMediaPipeMatrices() throws {
        let reference = try FaceReferenceTests.reference("face.json")
        let bundle = try TaskBundle(path: Repository.modelPath("face_landmarker.task"))
        let geometry = try FaceGeometry(bundle: bundle)
        var faces = 0, rotation: Float = 0, translation: Float = 0
        for entry in reference.results {
            for (landmarks, rows) in zip(entry.result.faceLandmarks, entry.result.facialTransformationMatrixes) {
                let matrix = try XCTUnwrap(geometry.facialTransformationMatrix(
                    landmarks: landmarks.map { SIMD3($0.x, $0.y, $0.z) }, imageWidth: entry.width, imageHeight: entry.height))
                for r in 0..<4 {
                    for c in 0..<4 {
                        let d = abs(matrix[r * 4 + c] - rows[r][c])
                        if c == 3 && r < 3 { translation = max(translation, d) } else { rotation = max(rotation, d) }
                    }
                }
                faces += 1
            }
        }
        XCTAssertEqual(faces, 4)
        print(String(format: "geometry from MediaPipe's landmarks: rotation max |Δ| %.2e, translation max |Δ| %.2e cm", rotation, translation))
        // Measured: 4.8e-7 and 3.8e-5 (translations are 25–39 cm): float rounding.
        XCTAssertLessThan(rotation, 1e-5)
        XCTAssertLessThan(translation, 1e-3)
    }

    /// A face collapsed to one point is skipped, as MediaPipe skips it, not fitted.
    func testCollapsedFaceIsSkipped() throws {
        let geometry = try FaceGeometry(bundle: TaskBundle(path: Repository.modelPath("face_landmarker.task")))
        let point = [SIMD3<Float>](repeating: SIMD3(0.5, 0.5, 0), count: 478)
        XCTAssertTrue(geometry.skips(point))
        XCTAssertNil(geometry.facialTransformationMatrix(landmarks: point, imageWidth: 640, imageHeight: 480))
    }
}
