import Foundation
import VisionTasksModelFormat

/// The detector → region → landmarks pipeline of MediaPipe's face landmarker graphs, one frame at a time, with its
/// video-mode state (tracked regions, smoothing), and the optional blendshape and geometry stages after it.
final class FaceLandmarkerPipeline: TaskPipeline {
    typealias Options = FaceLandmarkerOptions
    let options: TaskSettings<FaceLandmarkerOptions.Values>
    let detector: SSDDetector
    let landmarker: LandmarkModel
    /// Blendshapes and geometry, after the landmarks: not part of the state carried from frame to frame.
    let resultStages: FaceResultStages
    private var tracker: RegionTracker
    /// MediaPipe's smoothing of a single face (numFaces 1), or one per tracked face (`.always`).
    private var smoothing: SmoothingState<LandmarksSmoother>
    /// Identities across frames in video and live-stream modes (ours; read from the results, changing none).
    private var identityTracker = IdentityTracker()

    // Constants of MediaPipe's face_detector_graph.cc and face_landmarks_detector_graph.cc.
    static let landmarkCount = 478
    /// face_detector_graph_options.proto's default; the face landmarker does not change it.
    static let suppressionThreshold: Float = 0.5
    /// The detector's box, turned so that its keypoint 0 (one eye) to keypoint 1 (the other) is horizontal, then
    /// grown 1.5 times (not squared: face_detector_graph.cc sets only the scale).
    static let regionFromDetection = RegionFromDetection(shape: .boundingBox, startKeypoint: 0, endKeypoint: 1, targetAngle: 0)
    static let detectionTransformation = RegionTransformation(scaleX: 1.5, scaleY: 1.5)
    /// The next frame's region: the landmarks' box, turned so that the outer eye corners (33 → 263) are
    /// horizontal, squared on its long side and grown 1.5 times.
    static let regionFromLandmarks = RegionFromDetection(shape: .boundingBox, startKeypoint: 33, endKeypoint: 263, targetAngle: 0)
    static let landmarksTransformation = RegionTransformation(scaleX: 1.5, scaleY: 1.5, squareLong: true)
    /// LandmarksSmoothingCalculator's options in face_landmarks_detector_graph.cc; no region is wired, so the speed
    /// is scaled by the landmarks' own extent; face landmarks have no visibility to filter.
    static let smoothingParameters = LandmarksSmoother.Parameters(minCutoff: 0.05, beta: 80, derivativeCutoff: 1, valueScale: .landmarkExtent)

    init(bundle: TaskBundle, options: TaskSettings<FaceLandmarkerOptions.Values>) throws(VisionTaskError) {
        self.options = options
        try bundle.requireMembers(["face_detector.tflite", "face_landmarks_detector.tflite"], for: "face landmarker")
        let threads = options.baseOptions.numThreads
        detector = try SSDDetector(
            runner: try TensorRunner(bundle: bundle, member: "face_detector.tflite", threads: threads), defaultRange: -1...1,
            anchors: SSDAnchorOptions(inputWidth: 128, inputHeight: 128, minScale: 0.1484375, maxScale: 0.75,
                                      strides: [8, 16, 16, 16], aspectRatios: [1]),
            coordinateCount: 16, keypointCount: 6, minimumScore: options.minFaceDetectionConfidence,
            suppressionThreshold: options.detectorSuppressionThreshold)
        landmarker = try LandmarkModel(bundle: bundle, member: "face_landmarks_detector.tflite", threads: threads, defaultRange: 0...1)
        let outputs = landmarker.runner.interpreter.outputs
        guard outputs.count >= 2, outputs[0].elementCount == Self.landmarkCount * 3, outputs[1].elementCount == 1 else {
            throw .wrongModel("face_landmarks_detector.tflite does not output \(Self.landmarkCount) landmarks and a presence score")
        }
        // As MediaPipe, a stage that was asked for needs its model: no silent empty results.
        resultStages = FaceResultStages(
            blendshapes: options.outputFaceBlendshapes ? try FaceBlendshapes(bundle: bundle, threads: threads) : nil,
            geometry: options.outputFacialTransformationMatrixes ? try FaceGeometry(bundle: bundle) : nil)
        (tracker, smoothing) = Self.videoState(options)
    }

    /// The video-mode state of a new pipeline.
    private static func videoState(_ options: TaskSettings<FaceLandmarkerOptions.Values>) -> (RegionTracker, SmoothingState<LandmarksSmoother>) {
        (RegionTracker(maximumCount: options.numFaces, replacementOverlap: options.minTrackingConfidence,
                       association: options.landmarkSmoothing.association(otherwise: .detectionReplacesTracked)),
         // MediaPipe smooths only a single face, and only when frames come in sequence (face_landmarker_graph.cc).
         SmoothingState(options.landmarkSmoothing, runningMode: options.runningMode, maximumCount: options.numFaces) {
             LandmarksSmoother(Self.smoothingParameters, visibilityAlpha: nil)
         })
    }

    func resetVideoState() {
        (tracker, smoothing) = Self.videoState(options)
        identityTracker.reset()
    }

    /// Blendshapes and geometry only when the options ask for them.
    var stageTimings: [NamedStageTimings] {
        let stages = resultStages.timings
        return [NamedStageTimings("detector", detector.timings), NamedStageTimings("landmarks", landmarker.timings)]
            + [stages.blendshapes.map { NamedStageTimings("blendshapes", $0) }, stages.geometry.map { NamedStageTimings("geometry", $0) }]
            .compactMap { $0 }
    }

    func process(_ image: MPImage, timestampMilliseconds timestamp: Int?) throws(VisionTaskError) -> FaceLandmarkerResult {
        let (faces, identities) = try landmarks(image, timestampMilliseconds: timestamp)
        return try resultStages.result(for: faces, identities: identities, imageWidth: image.width, imageHeight: image.height,
                                       timestampMilliseconds: timestamp ?? 0)
    }

    /// The landmarks now; blendshapes and the matrix later, in live stream beside the next frame.
    func start(_ image: MPImage, timestampMilliseconds timestamp: Int) throws(VisionTaskError) -> PipelineOutput<FaceLandmarkerResult> {
        let (faces, identities) = try landmarks(image, timestampMilliseconds: timestamp)
        let stages = resultStages, width = image.width, height = image.height
        return .unfinished { () throws(VisionTaskError) in
            try stages.result(for: faces, identities: identities, imageWidth: width, imageHeight: height, timestampMilliseconds: timestamp)
        }
    }

    /// The tracked (video, live stream) or detected faces' landmarks, smoothed where MediaPipe smooths them, and
    /// their identities (none in image mode).
    private func landmarks(_ image: MPImage, timestampMilliseconds timestamp: Int?) throws(VisionTaskError)
        -> (faces: [[NormalizedLandmark]], identities: [Int]) {
        var faces = try tracker.frame(tracking: timestamp != nil) { () throws(VisionTaskError) in try detect(image) } estimate: {
            (rect) throws(VisionTaskError) in try landmarks(image, rect: rect)
        }
        if let timestamp {
            smoothing.apply(&faces) { filters, face in
                var face = face
                face.landmarks = filters.smooth(face.landmarks, region: nil, imageWidth: image.width, imageHeight: image.height,
                                                timestampMilliseconds: timestamp)
                return face
            } reset: { $0.resetCoordinates() }
            // No colour for faces: skin tells faces apart less than position does, so they are followed by position.
            let identities = identityTracker.identities(of: faces.map { face in
                IdentityObservation(points: face.landmarks.map { SIMD2($0.x * Float(image.width), $0.y * Float(image.height)) })
            }, timestampMilliseconds: timestamp)
            return (faces.map(\.landmarks), identities)
        }
        return (faces.map(\.landmarks), [])
    }

    /// Face regions from the detector, best first, at most `numFaces` (ClipDetectionVectorSizeCalculator).
    func detect(_ image: MPImage) throws(VisionTaskError) -> [NormalizedRect] {
        try detector.detect(image, backProjection: .region).prefix(options.numFaces).map {
            Self.detectionTransformation.apply(Self.regionFromDetection.rect(for: $0, imageWidth: image.width, imageHeight: image.height),
                                               imageWidth: image.width, imageHeight: image.height)
        }
    }

    /// Runs the landmark model on one region; nil when the model says no face is there.
    func landmarks(_ image: MPImage, rect: NormalizedRect) throws(VisionTaskError) -> FaceEstimate? {
        try landmarker.run(image, rect: rect) { (runner, transform) throws(VisionTaskError) in
            let presence = 1 / (1 + expf(-(try runner.output(1).first ?? -.infinity)))
            guard presence > options.minFacePresenceConfidence else { return nil }
            let points = landmarker.points(try runner.output(0), count: Self.landmarkCount, stride: 3)
            let projected = LandmarkProjection.project(points, transform: transform, through: rect,
                                                       imageWidth: image.width, imageHeight: image.height)
            let landmarks = projected.map { NormalizedLandmark(x: $0.x, y: $0.y, z: $0.z) }
            return FaceEstimate(landmarks: landmarks, nextRect: nextRegion(projected, image: image), instance: 0)
        }
    }

    /// LandmarksToDetectionCalculator (the landmarks' box, every landmark a keypoint), then the region from it.
    private func nextRegion(_ points: [SIMD3<Float>], image: MPImage) -> NormalizedRect {
        var lo = SIMD2(points[0].x, points[0].y), hi = lo
        for p in points {
            lo = pointwiseMin(lo, SIMD2(p.x, p.y)); hi = pointwiseMax(hi, SIMD2(p.x, p.y))
        }
        let start = Self.regionFromLandmarks.startKeypoint, end = Self.regionFromLandmarks.endKeypoint
        let rect = Self.regionFromLandmarks.rect(start: SIMD2(points[start].x, points[start].y), end: SIMD2(points[end].x, points[end].y),
                                                 box: (lo.x, lo.y, hi.x - lo.x, hi.y - lo.y), imageWidth: image.width, imageHeight: image.height)
        return Self.landmarksTransformation.apply(rect, imageWidth: image.width, imageHeight: image.height)
    }
}

/// One face found in one frame, before results are assembled.
struct FaceEstimate: TrackedEstimate {
    var landmarks: [NormalizedLandmark]
    var nextRect: NormalizedRect
    /// The tracked instance it belongs to (``TrackedRegion/instance``).
    var instance: Int
}

/// MediaPipe's stages after the face landmarks: blendshapes and the facial transformation matrix. They read a frame's
/// (smoothed) landmarks and nothing carried between frames, so they hold their own lock, not the pipeline's: in live
/// stream they run beside the next frame's landmarks, as in MediaPipe's graph, whose flow limiter waits for the
/// landmarks stream alone.
final class FaceResultStages: Sendable {
    /// The blendshape model's interpreter: one frame at a time.
    private let blendshapes: Locked<FaceBlendshapes?>
    private let geometry: FaceGeometry?
    /// Time in the geometry pipeline (as post-processing), and its calls.
    private let geometryClock = PostprocessingClock()

    init(blendshapes: sending FaceBlendshapes?, geometry: FaceGeometry?) {
        self.blendshapes = Locked(blendshapes)
        self.geometry = geometry
    }

    var timings: (blendshapes: StageTimings?, geometry: StageTimings?) {
        (blendshapes.withLock { $0?.runner.timings }, geometry != nil ? geometryClock.value : nil)
    }

    func result(for faces: [[NormalizedLandmark]], identities: [Int], imageWidth: Int, imageHeight: Int,
                timestampMilliseconds timestamp: Int) throws(VisionTaskError) -> FaceLandmarkerResult {
        // Blendshapes and geometry see the smoothed landmarks (face_landmarks_detector_graph.cc and
        // face_landmarker_graph.cc take them after LandmarksSmoothingCalculator).
        let scores = try blendshapes.withLock { (blendshapes) throws(VisionTaskError) -> [Classifications] in
            guard let blendshapes else { return [] }
            var scores: [Classifications] = []
            for face in faces { scores.append(try blendshapes.scores(face, imageWidth: imageWidth, imageHeight: imageHeight)) }
            return scores
        }
        var matrixes: [TransformMatrix] = []
        if let geometry {
            try geometryClock.measure { () throws(VisionTaskError) in
                for face in faces {
                    let points = face.map { SIMD3($0.x, $0.y, $0.z) }
                    // MediaPipe leaves out the matrix of a face collapsed to a point (the list is then shorter), and
                    // fails the frame when a fit degenerates otherwise. (The compactness check runs again only on
                    // failure.)
                    if let values = geometry.facialTransformationMatrix(landmarks: points, imageWidth: imageWidth, imageHeight: imageHeight),
                       let matrix = TransformMatrix(rows: 4, columns: 4, data: values) {
                        matrixes.append(matrix)
                    } else if !geometry.skips(points) {
                        throw .processingFailed("the facial transformation fit degenerated on this frame's landmarks")
                    }
                }
            }
        }
        var result = FaceLandmarkerResult(faceLandmarks: faces, faceBlendshapes: scores, facialTransformationMatrixes: matrixes,
                                          timestampInMilliseconds: timestamp)
        result.identities = identities
        return result
    }
}
