import Foundation
import VisionTasksModelFormat

/// MediaPipe's face geometry pipeline, as far as the Face Landmarker reports it: the facial transformation matrix,
/// the pose that carries the canonical face mesh (centimetres) onto a face found in an image, in the metric space of
/// a virtual perspective camera looking down -z.
///
/// Semantics from MediaPipe v0.10.14, mediapipe/tasks/cc/vision/face_geometry/: libs/geometry_pipeline.cc
/// (`ScreenToMetricSpaceConverter::Convert`), libs/procrustes_solver.cc, and face_geometry_from_landmarks_graph.cc
/// (the environment, the landmarks it passes). MediaPipe computes in `float` with Eigen; we compute the camera
/// frustum in `Float` exactly as it does and everything after it in `Double`, with a 3×3 one-sided Jacobi SVD of our
/// own where Eigen uses `JacobiSVD<Matrix3f>`. Both solve the same problem, whose answer is unique for a real face
/// (distinct singular values), so results agree to MediaPipe's float rounding.
struct FaceGeometry: Sendable {
    // The environment the Face Landmarker gives its geometry pipeline: FaceGeometryFromLandmarksGraph sets these
    // options of its FaceGeometryEnvGeneratorCalculator when the task passes no environment, and the task passes
    // none (face_geometry_from_landmarks_graph.cc:65-74, `ConfigureFaceGeometryEnvGeneratorCalculator`).

    /// `OriginPointLocation::TOP_LEFT_CORNER` (line 68): landmark y grows downwards, so it is flipped (`1 - y`).
    static let originIsTopLeft = true
    /// `perspective_camera.vertical_fov_degrees` (line 71).
    static let verticalFieldOfViewDegrees: Float = 63
    /// `perspective_camera.near`, 1 cm (line 72).
    static let near: Float = 1
    /// `perspective_camera.far`, 100 m (line 73). MediaPipe only validates it (far > near); the pose does not use it.
    static let far: Float = 10_000
    /// The graph keeps the first 468 landmarks, dropping the 10 iris points (line 62, `range.set_end(468)`); that is
    /// also the canonical mesh's vertex count.
    static let meshLandmarkCount = 468

    /// Faces whose landmarks lie within this distance of their mean (normalized units) are skipped by MediaPipe
    /// (`kIsScreenLandmarkListTooCompactThreshold`, geometry_pipeline.cc:390).
    static let compactnessThreshold: Float = 1e-3
    /// The Procrustes solver's `kAbsoluteErrorEps` (procrustes_solver.cc:58).
    static let solverEpsilon: Double = 1e-9

    /// Canonical mesh vertex count; the landmarks given must have at least this many (the first are used).
    let vertexCount: Int
    /// Whether landmarks are 2D (`FACE_DETECTION_PIPELINE`): their z is then rewritten from the canonical mesh.
    let landmarksAreFromDetection: Bool
    /// The basis: vertex indices with a positive weight (zero-weight vertices add nothing to any sum), their
    /// canonical positions and the square roots of their weights, as the solver weights points.
    private let basisIndices: [Int]
    private let canonicalBasis: [SIMD3<Double>]
    private let sqrtWeights: [Double]

    init(metadata: FaceGeometryMetadata) {
        vertexCount = metadata.vertexCount
        // `CreateGeometryPipeline`: DEFAULT means FACE_LANDMARK_PIPELINE.
        landmarksAreFromDetection = metadata.inputSource == .faceDetectionPipeline
        let weights = metadata.vertexWeights  // one per vertex, the last listed weight of a repeated id
        basisIndices = weights.indices.filter { weights[$0] > 0 }
        canonicalBasis = basisIndices.map { SIMD3<Double>(metadata.canonicalPositions[$0]) }
        sqrtWeights = basisIndices.map { Double(weights[$0]).squareRoot() }
    }

    /// The facial transformation matrix of one face, as MediaPipe's `facialTransformationMatrixes` reports it: a 4×4
    /// matrix in row-major order (rotation and scale in the upper-left 3×3, translation in centimetres in the last
    /// column, bottom row 0 0 0 1).
    ///
    /// - Parameters:
    ///   - landmarks: the face's landmarks in normalized image coordinates (x, y in [0, 1] of the image, z on the
    ///     scale of x), 478 from the landmark model; the first `vertexCount` (468) are used, as in MediaPipe.
    ///   - imageWidth, imageHeight: the size in pixels of the image the landmarks are normalized to (the task's input
    ///     image; MediaPipe's `ImagePropertiesCalculator` size).
    /// - Returns: nil where MediaPipe gives no matrix: fewer landmarks than mesh vertices, a non-positive image size,
    ///   a face whose landmarks are all within `compactnessThreshold` of their mean (MediaPipe skips such a face, so
    ///   its list of matrices is shorter than its list of faces), or a degenerate fit (non-finite input, or the
    ///   solver's checks failing, where MediaPipe's graph would fail).
    func facialTransformationMatrix(landmarks: [SIMD3<Float>], imageWidth: Int, imageHeight: Int) -> [Float]? {
        guard imageWidth > 0, imageHeight > 0, landmarks.count >= vertexCount, vertexCount > 0 else { return nil }
        let face = landmarks[0..<vertexCount]
        guard face.allSatisfy({ $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }) else { return nil }
        guard !Self.isTooCompact(face) else { return nil }  // callers tell this case apart with `skips(_:)`
        let frustum = Frustum(width: imageWidth, height: imageHeight)
        guard let pose = convert(face, frustum) else { return nil }
        let matrix = pose.rowMajor.map { Float($0) }
        return matrix.allSatisfy(\.isFinite) ? matrix : nil
    }

    /// Whether MediaPipe skips this face (no matrix, no error): its mesh landmarks lie within `compactnessThreshold`
    /// of their mean.
    func skips(_ landmarks: [SIMD3<Float>]) -> Bool {
        landmarks.count >= vertexCount && Self.isTooCompact(landmarks[0..<vertexCount])
    }

    /// `IsScreenLandmarkListTooCompact`, in `Float` with MediaPipe's running mean so that the cut falls alike.
    private static func isTooCompact(_ face: ArraySlice<SIMD3<Float>>) -> Bool {
        var meanX: Float = 0
        var meanY: Float = 0
        for (i, landmark) in face.enumerated() {
            meanX += (landmark.x - meanX) / Float(i + 1)
            meanY += (landmark.y - meanY) / Float(i + 1)
        }
        var maxSquaredDistance: Float = 0
        for landmark in face {
            let dx = landmark.x - meanX
            let dy = landmark.y - meanY
            maxSquaredDistance = max(maxSquaredDistance, dx * dx + dy * dy)
        }
        return maxSquaredDistance.squareRoot() <= compactnessThreshold
    }

    /// `PerspectiveCameraFrustum`, computed in `Float` as MediaPipe does (its degrees-to-radians constant included).
    private struct Frustum {
        let left: Double, bottom: Double, xScale: Double, yScale: Double, near: Double

        init(width: Int, height: Int) {
            let degreesToRadians = Float(3.14159265358979323846) / 180
            let heightAtNear = 2 * FaceGeometry.near * tan(0.5 * degreesToRadians * FaceGeometry.verticalFieldOfViewDegrees)
            let widthAtNear = Float(width) * heightAtNear / Float(height)
            let left = -0.5 * widthAtNear, right = 0.5 * widthAtNear
            let bottom = -0.5 * heightAtNear, top = 0.5 * heightAtNear
            self.left = Double(left)
            self.bottom = Double(bottom)
            xScale = Double(right - left)
            yScale = Double(top - bottom)
            near = Double(FaceGeometry.near)
        }
    }

    /// `ScreenToMetricSpaceConverter::Convert`, up to the pose (the metric landmarks it also makes are not reported
    /// by the task). Every step but the depth offset touches only the basis points, since zero-weight points add
    /// nothing to the solver's sums.
    private func convert(_ face: ArraySlice<SIMD3<Float>>, _ frustum: Frustum) -> Pose? {
        // (1) ProjectXY: onto the near plane; z is scaled like x.
        let scale = SIMD3(frustum.xScale, frustum.yScale, frustum.xScale)
        let shift = SIMD3(frustum.left, frustum.bottom, 0)
        func projected(_ landmark: SIMD3<Float>) -> SIMD3<Double> {
            var point = SIMD3<Double>(landmark)
            if Self.originIsTopLeft { point.y = 1 - point.y }
            return point * scale + shift
        }
        // The depth offset is the mean projected z over all mesh landmarks, not only the basis.
        var zSum = 0.0
        for landmark in face { zSum += Double(landmark.z) * frustum.xScale }
        let depthOffset = zSum / Double(face.count)
        let screen = basisIndices.map { projected(face[face.startIndex + $0]) }

        // MoveAndRescaleZ, UnprojectXY and ChangeHandedness (screen space is left-handed, metric right-handed).
        func unprojected(_ points: [SIMD3<Double>], scale: Double) -> [SIMD3<Double>] {
            points.map { point in
                let z = (point.z - depthOffset + frustum.near) / scale
                return SIMD3(point.x * z / frustum.near, point.y * z / frustum.near, -z)
            }
        }
        func landmarksWithCanonicalDepth(_ points: [SIMD3<Double>], _ pose: Pose) -> [SIMD3<Double>] {
            zip(points, canonicalBasis).map { point, canonical in SIMD3(point.x, point.y, pose.apply(canonical).z) }
        }

        // (2) First scale: from the projected landmarks, handedness changed, not unprojected (their z is relative).
        guard let first = solve(screen.map { SIMD3($0.x, $0.y, -$0.z) })?.scale else { return nil }
        // (3)-(4) Second scale: from the landmarks unprojected with the first.
        var intermediate = unprojected(screen, scale: first)
        if landmarksAreFromDetection {
            guard let pose = solve(intermediate) else { return nil }
            intermediate = landmarksWithCanonicalDepth(intermediate, pose)
        }
        guard let second = solve(intermediate)?.scale else { return nil }
        // (5) The metric landmarks, unprojected with the product of both scales, and the pose fitted to them.
        var metric = unprojected(screen, scale: first * second)
        guard var pose = solve(metric) else { return nil }
        if landmarksAreFromDetection {
            metric = landmarksWithCanonicalDepth(metric, pose)
            guard let refitted = solve(metric) else { return nil }
            pose = refitted
        }
        return pose
    }

    /// A similarity transform: `linear` (scale × rotation, as three columns) then `translation`.
    private struct Pose {
        var linear: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)
        var translation: SIMD3<Double>

        /// `EstimateScale`: the norm of the transform's first column.
        var scale: Double { (linear.0 * linear.0).sum().squareRoot() }

        func apply(_ point: SIMD3<Double>) -> SIMD3<Double> {
            linear.0 * point.x + linear.1 * point.y + linear.2 * point.z + translation
        }

        var rowMajor: [Double] {
            let (c0, c1, c2) = linear
            return [c0.x, c1.x, c2.x, translation.x,
                    c0.y, c1.y, c2.y, translation.y,
                    c0.z, c1.z, c2.z, translation.z,
                    0, 0, 0, 1]
        }
    }

    /// `SolveWeightedOrthogonalProblem` from the canonical basis to `targets` (one per basis point): the weighted
    /// orthogonal Procrustes problem with scale (Akca 2003, section 2.4), in MediaPipe's order of operations.
    private func solve(_ targets: [SIMD3<Double>]) -> Pose? {
        let w = sqrtWeights
        let totalWeight = w.reduce(0) { $0 + $1 * $1 }
        guard totalWeight > Self.solverEpsilon else { return nil }
        let weightedSources = zip(canonicalBasis, w).map { $0 * $1 }
        let weightedTargets = zip(targets, w).map { $0 * $1 }
        // The weighted centre of mass of the sources, and the sources centred on it (still weighted).
        var sourceCenter = SIMD3<Double>.zero
        for (source, weight) in zip(weightedSources, w) { sourceCenter += source * weight }
        sourceCenter /= totalWeight
        let centeredSources = zip(weightedSources, w).map { $0 - sourceCenter * $1 }

        // The design matrix weightedTargets × centeredSourcesᵀ, by columns.
        var design = (SIMD3<Double>.zero, SIMD3<Double>.zero, SIMD3<Double>.zero)
        for (target, source) in zip(weightedTargets, centeredSources) {
            design.0 += target * source.x
            design.1 += target * source.y
            design.2 += target * source.z
        }
        let designNorm = ((design.0 * design.0).sum() + (design.1 * design.1).sum() + (design.2 * design.2).sum()).squareRoot()
        guard designNorm > Self.solverEpsilon, let rotation = Self.optimalRotation(design) else { return nil }

        // ComputeOptimalScale: trace(R · centredᵀ · targets) / trace(centredᵀ · sources).
        var numerator = 0.0
        var denominator = 0.0
        for i in targets.indices {
            let c = centeredSources[i]
            let rotated = rotation.0 * c.x + rotation.1 * c.y + rotation.2 * c.z
            numerator += (rotated * weightedTargets[i]).sum()
            denominator += (c * weightedSources[i]).sum()
        }
        guard denominator > Self.solverEpsilon, numerator / denominator > Self.solverEpsilon else { return nil }
        let scale = numerator / denominator
        let linear = (rotation.0 * scale, rotation.1 * scale, rotation.2 * scale)

        // The translation: the weighted mean of targets − linear · sources.
        var translation = SIMD3<Double>.zero
        for i in targets.indices {
            let s = weightedSources[i]
            let difference = weightedTargets[i] - (linear.0 * s.x + linear.1 * s.y + linear.2 * s.z)
            translation += difference * w[i]
        }
        translation /= totalWeight
        return Pose(linear: linear, translation: translation)
    }

    /// `ComputeOptimalRotation`: with design = U Σ Vᵀ (singular values in decreasing order), R = U Vᵀ, the last column
    /// of U negated when det(U)·det(V) < 0 so that R is a rotation, not a reflection. Columns in, columns out.
    private static func optimalRotation(
        _ design: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)
    ) -> (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)? {
        // One-sided Jacobi (Hestenes): rotate pairs of columns of B = design · V until they are orthogonal; then
        // B = U Σ with the singular values as the column norms.
        var b = [design.0, design.1, design.2]
        var v = [SIMD3<Double>(1, 0, 0), SIMD3<Double>(0, 1, 0), SIMD3<Double>(0, 0, 1)]
        for _ in 0..<60 {
            var rotated = false
            for (p, q) in [(0, 1), (0, 2), (1, 2)] {
                let alpha = (b[p] * b[p]).sum()
                let beta = (b[q] * b[q]).sum()
                let gamma = (b[p] * b[q]).sum()
                guard abs(gamma) > 1e-15 * (alpha * beta).squareRoot() else { continue }
                rotated = true
                let zeta = (beta - alpha) / (2 * gamma)
                let t = (zeta >= 0 ? 1.0 : -1.0) / (abs(zeta) + (1 + zeta * zeta).squareRoot())
                let c = 1 / (1 + t * t).squareRoot()
                let s = c * t
                (b[p], b[q]) = (c * b[p] - s * b[q], s * b[p] + c * b[q])
                (v[p], v[q]) = (c * v[p] - s * v[q], s * v[p] + c * v[q])
            }
            if !rotated { break }
        }
        let sigma = b.map { ($0 * $0).sum().squareRoot() }
        guard sigma.allSatisfy(\.isFinite) else { return nil }
        let order = [0, 1, 2].sorted { sigma[$0] > sigma[$1] }
        let largest = sigma[order[0]]
        guard largest > 0 else { return nil }
        let tiny = largest * 1e-12
        // U's columns; a column whose singular value vanishes is completed to an orthonormal basis.
        let u0 = b[order[0]] / sigma[order[0]]
        let u1: SIMD3<Double>
        if sigma[order[1]] > tiny {
            u1 = b[order[1]] / sigma[order[1]]
        } else {
            let axis: SIMD3<Double> = abs(u0.x) < 0.9 ? SIMD3(1, 0, 0) : SIMD3(0, 1, 0)
            let perpendicular = axis - u0 * (u0 * axis).sum()
            u1 = perpendicular / (perpendicular * perpendicular).sum().squareRoot()
        }
        var u2 = sigma[order[2]] > tiny ? b[order[2]] / sigma[order[2]] : cross(u0, u1)
        let (v0, v1, v2) = (v[order[0]], v[order[1]], v[order[2]])
        if determinant(u0, u1, u2) * determinant(v0, v1, v2) < 0 { u2 = -u2 }
        // R = Σ u_j v_jᵀ; column k of R is Σ u_j · v_j[k].
        return (u0 * v0.x + u1 * v1.x + u2 * v2.x,
                u0 * v0.y + u1 * v1.y + u2 * v2.y,
                u0 * v0.z + u1 * v1.z + u2 * v2.z)
    }

    private static func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }

    /// The determinant of the matrix with columns a, b, c.
    private static func determinant(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>) -> Double {
        (cross(a, b) * c).sum()
    }
}
