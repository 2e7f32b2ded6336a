import Foundation
import VisionTasksModelFormat

/// MediaPipe's holistic landmarker graph (holistic_landmarker_graph.cc) one frame at a time: the pose tracked from
/// frame to frame, the face and both hands derived from it, with the video-mode state — the pose's next region and
/// smoothing filters, the face's and hands' last landmarks, the last mask. The pose, face and hand models run through
/// the pose landmarker's, face landmarker's and hand landmarker's own stages.
final class HolisticLandmarkerPipeline: TaskPipeline {
    typealias Options = HolisticLandmarkerOptions
    let options: TaskSettings<HolisticLandmarkerOptions.Values>
    /// Its detector and landmark model (one pose: MediaPipe's holistic graph sets num_poses 1).
    let pose: PoseLandmarkerPipeline
    /// Its detector (run inside the face region the pose gives) and landmark model.
    let face: FaceLandmarkerPipeline
    let hand: HandLandmarksModel
    let handRefinement: HandRegionRefinement
    let blendshapes: FaceBlendshapes?
    private var state = HolisticTrackingState()
    let maskClock = PostprocessingClock()

    /// SegmentationSmoothingCalculator's `combine_with_previous_ratio` in holistic_pose_tracking.cc.
    static let maskBlending: Float = 0.7

    init(bundle: TaskBundle, options: TaskSettings<HolisticLandmarkerOptions.Values>) throws(VisionTaskError) {
        self.options = options
        try bundle.requireMembers(["pose_detector.tflite", "pose_landmarks_detector.tflite", "face_detector.tflite",
                                   "face_landmarks_detector.tflite", HandLandmarksModel.member, HandRegionRefinement.member],
                                  for: "holistic landmarker")
        let threads = options.baseOptions.numThreads
        var poseValues = PoseLandmarkerOptions.Values()
        poseValues.minPoseDetectionConfidence = options.minPoseDetectionConfidence
        poseValues.minPosePresenceConfidence = options.minPosePresenceConfidence
        poseValues.detectorSuppressionThreshold = options.minPoseSuppressionThreshold
        poseValues.outputSegmentationMasks = options.outputPoseSegmentationMasks
        pose = try PoseLandmarkerPipeline(bundle: bundle, options: options.with(poseValues))
        var faceValues = FaceLandmarkerOptions.Values()
        faceValues.minFaceDetectionConfidence = options.minFaceDetectionConfidence
        faceValues.minFacePresenceConfidence = options.minFacePresenceConfidence
        faceValues.detectorSuppressionThreshold = options.minFaceSuppressionThreshold
        face = try FaceLandmarkerPipeline(bundle: bundle, options: options.with(faceValues))
        hand = try HandLandmarksModel(bundle: bundle, threads: threads, minimumPresence: options.minHandLandmarksConfidence)
        handRefinement = try HandRegionRefinement(bundle: bundle, threads: threads)
        // As MediaPipe, a stage that was asked for needs its model.
        blendshapes = options.outputFaceBlendshapes ? try FaceBlendshapes(bundle: bundle, threads: threads) : nil
    }

    func resetVideoState() {
        state = HolisticTrackingState()
    }

    var stageTimings: [NamedStageTimings] {
        [NamedStageTimings("pose detector", pose.detector.timings), NamedStageTimings("pose landmarks", pose.landmarker.timings),
         NamedStageTimings("face detector", face.detector.timings), NamedStageTimings("face landmarks", face.landmarker.timings),
         NamedStageTimings("hand region", handRefinement.timings), NamedStageTimings("hand landmarks", hand.model.timings)]
            + (blendshapes.map { [NamedStageTimings("blendshapes", $0.runner.timings)] } ?? [])
            + (options.outputPoseSegmentationMasks ? [NamedStageTimings("mask", maskClock.value)] : [])
    }

    func process(_ image: MPImage, timestampMilliseconds timestamp: Int?) throws(VisionTaskError) -> HolisticLandmarkerResult {
        if image.orientation != state.orientation {
            state = HolisticTrackingState()
            state.orientation = image.orientation
        }
        // MediaPipe's holistic graph has no region input: it runs on the buffer as stored and ignores the
        // orientation. A turned buffer is run upright here (one copy of the pixels) and the result mapped back into
        // the buffer's frame, as the pose landmarker does — where MediaPipe would look for a person lying down.
        guard let turn = QuarterTurn(image.orientation), turn.k != 0 else {
            return try upright(image, timestampMilliseconds: timestamp)
        }
        let turned: MPImage
        do { turned = try turn.upright(image) } catch { throw .image(error) }
        var result = try upright(turned, timestampMilliseconds: timestamp)
        func map(_ points: inout [NormalizedLandmark]) {
            for i in points.indices { (points[i].x, points[i].y) = turn.point(x: points[i].x, y: points[i].y) }
        }
        func map(_ points: inout [Landmark]) {
            for i in points.indices { (points[i].x, points[i].y) = turn.direction(x: points[i].x, y: points[i].y) }
        }
        map(&result.poseLandmarks); map(&result.faceLandmarks); map(&result.leftHandLandmarks); map(&result.rightHandLandmarks)
        map(&result.poseWorldLandmarks); map(&result.leftHandWorldLandmarks); map(&result.rightHandWorldLandmarks)
        result.poseSegmentationMask = result.poseSegmentationMask.map { Self.turned($0, by: turn) }
        return result
    }

    /// The upright picture's result. `timestamp` is nil in image mode: nothing is tracked, smoothed or kept (MediaPipe
    /// 1.2.3 carries its loopbacks across image-mode calls — the failure on a second image of another size with the
    /// mask on is one consequence; each image here is answered as a new landmarker answers it).
    private func upright(_ image: MPImage, timestampMilliseconds timestamp: Int?) throws(VisionTaskError) -> HolisticLandmarkerResult {
        let tracking = timestamp != nil
        let w = image.width, h = image.height
        var result = HolisticLandmarkerResult.empty(timestampInMilliseconds: timestamp ?? 0)

        // The pose: the last frame's region, or the detector's best (TrackHolisticPoseUsingCustomPoseDetection).
        var region = tracking ? state.poseRegion : nil
        if region == nil { region = try pose.detect(image).first }
        guard let region, var estimate = try pose.landmarks(image, rect: region) else {
            state.poseLost()
            return result
        }
        if let timestamp {
            state.smoothing.apply(&estimate, imageWidth: w, imageHeight: h, timestampMilliseconds: timestamp)
            state.poseRegion = HolisticRegions.poseRegion(estimate.auxiliary, imageWidth: w, imageHeight: h)
        }
        result.poseLandmarks = estimate.landmarks
        result.poseWorldLandmarks = estimate.world
        if let logits = estimate.mask {
            result.poseSegmentationMask = maskClock.measure {
                let mask = logits.projected(threads: options.baseOptions.numThreads ?? 2)
                guard tracking else { return mask }
                let smoothed = state.previousMask.map { MaskSmoothing.blend(current: mask, previous: $0, ratio: Self.maskBlending) } ?? mask
                state.previousMask = smoothed
                return smoothed
            }
        }

        // The hands, from the pose's wrists (TrackHolisticHand).
        for side in [HolisticRegions.HandSide.left, .right] {
            let found = try handLandmarks(image, pose: estimate, side: side, tracking: tracking)
            if side.wrist == HolisticRegions.HandSide.left.wrist {
                (result.leftHandLandmarks, result.leftHandWorldLandmarks) = found
            } else {
                (result.rightHandLandmarks, result.rightHandWorldLandmarks) = found
            }
        }

        // The face, from the pose's face landmarks (TrackHolisticFace).
        result.faceLandmarks = try faceLandmarks(image, pose: estimate.landmarks, tracking: tracking)
        if let blendshapes, !result.faceLandmarks.isEmpty {
            result.faceBlendshapes = try blendshapes.scores(result.faceLandmarks, imageWidth: w, imageHeight: h)
        }
        return result
    }

    func faceLandmarks(_ image: MPImage, pose: [NormalizedLandmark], tracking: Bool) throws(VisionTaskError) -> [NormalizedLandmark] {
        let w = image.width, h = image.height
        let fromPose = HolisticRegions.faceFromPose(pose, imageWidth: w, imageHeight: h)
        // num_faces 1: the best detection.
        let detection = try face.detector.detect(image, region: fromPose, backProjection: .region).first
        let recrop = detection.map { HolisticRegions.faceFromDetection($0, imageWidth: w, imageHeight: h) }
        let previous = tracking ? state.face : nil
        let region = HolisticRegions.faceTracking.region(
            previousLandmarks: previous, previousRegion: previous.map { HolisticRegions.faceFromLandmarks($0, imageWidth: w, imageHeight: h) },
            recrop: recrop, imageWidth: w, imageHeight: h)
        let landmarks = try region.flatMap { (rect) throws(VisionTaskError) in try face.landmarks(image, rect: rect) }?.landmarks ?? []
        if tracking { state.face = landmarks.isEmpty ? nil : landmarks }
        return landmarks
    }

    func handLandmarks(_ image: MPImage, pose: PoseEstimate, side: HolisticRegions.HandSide,
                               tracking: Bool) throws(VisionTaskError) -> ([NormalizedLandmark], [Landmark]) {
        let w = image.width, h = image.height
        var recrop: NormalizedRect?
        if (pose.landmarks[side.wrist].visibilityValue ?? 0) > HolisticRegions.wristVisibility {
            let fromPose = HolisticRegions.handFromPose(pose.landmarks, side: side, imageWidth: w, imageHeight: h)
            recrop = try handRefinement.refine(image, region: fromPose)
        }
        let previous = tracking ? state.hands[side.wrist] : nil
        let region = HolisticRegions.handTracking.region(
            previousLandmarks: previous,
            previousRegion: previous.map { HandLandmarksModel.nextRegion($0.map { SIMD3($0.x, $0.y, $0.z) }, image: image) },
            recrop: recrop, imageWidth: w, imageHeight: h)
        let found = try region.flatMap { (rect) throws(VisionTaskError) in try hand.landmarks(image, rect: rect) }
        if tracking { state.hands[side.wrist] = found?.landmarks }
        guard let found else { return ([], []) }
        // AlignHandToPoseInWorldCalculator: the hand's wrist onto the pose's.
        let handWrist = found.world[0], poseWrist = pose.world[side.wrist]
        let world = found.world.map { p in
            Landmark(x: p.x - handWrist.x + poseWrist.x, y: p.y - handWrist.y + poseWrist.y, z: p.z - handWrist.z + poseWrist.z)
        }
        return (found.landmarks, world)
    }

    /// A mask of the upright picture in the buffer's frame.
    private static func turned(_ mask: Mask, by turn: QuarterTurn) -> Mask {
        let values = mask.float32Values, uw = mask.width, uh = mask.height
        let (bw, bh) = turn.k % 2 == 0 ? (uw, uh) : (uh, uw)
        return Mask(width: bw, height: bh) { (out: UnsafeMutableBufferPointer<Float>) in
            for y in 0..<uh {
                for x in 0..<uw {
                    // The upright pixel (x, y) in the buffer, as QuarterTurn.point maps pixel centres.
                    let (bx, by): (Int, Int)
                    switch turn.k {
                    case 1: (bx, by) = (y, uw - 1 - x)
                    case 2: (bx, by) = (uw - 1 - x, uh - 1 - y)
                    case 3: (bx, by) = (uh - 1 - y, x)
                    default: (bx, by) = (x, y)
                    }
                    out[by * bw + bx] = values[y * uw + x]
                }
            }
        }
    }
}

/// What the holistic graph carries from one frame to the next (its loopbacks and filters).
struct HolisticTrackingState {
    /// The orientation of the frames the state belongs to: a change drops it.
    var orientation = ImageOrientation.up
    /// The pose's region from the last frame's smoothed auxiliary landmarks; nil: run the detector.
    var poseRegion: NormalizedRect?
    var smoothing = HolisticPoseSmoothing()
    /// The last frame's face landmarks and hand landmarks (by the pose's wrist index), for RoiTrackingCalculator.
    var face: [NormalizedLandmark]?
    var hands: [Int: [NormalizedLandmark]] = [:]
    /// The last smoothed mask (SegmentationSmoothingCalculator's previous mask).
    var previousMask: Mask?

    /// A frame without a pose: the graph's later stages see nothing, so nothing of them carries over; the filters
    /// whose calculators also take the image size reset, as in MediaPipe.
    mutating func poseLost() {
        poseRegion = nil
        face = nil
        hands = [:]
        smoothing.noPose()
    }
}

/// The pose smoothing of holistic_pose_tracking.cc: the auxiliary landmarks through 1€ filters (min cutoff 0.01,
/// β 10, derivative cutoff 1) before they give the next region; the pose landmarks' visibility through a low-pass
/// filter (α 0.1) and their coordinates through 1€ filters (0.05, 80, 1); the world landmarks likewise (0.1, 40, 1, in
/// metres). The image filters' speed is measured in sizes of the unscaled region of this frame's raw auxiliary
/// landmarks (the pose landmarker uses the scaled next region).
struct HolisticPoseSmoothing: Sendable {
    private var auxiliary = LandmarksSmoother(.init(minCutoff: 0.01, beta: 10, derivativeCutoff: 1, valueScale: .region), visibilityAlpha: nil)
    private var image = LandmarksSmoother(.init(minCutoff: 0.05, beta: 80, derivativeCutoff: 1, valueScale: .region), visibilityAlpha: 0.1)
    private var world = LandmarksSmoother(.init(minCutoff: 0.1, beta: 40, derivativeCutoff: 1, valueScale: .none), visibilityAlpha: 0.1)

    mutating func apply(_ pose: inout PoseEstimate, imageWidth: Int, imageHeight: Int, timestampMilliseconds: Int) {
        let scale = HolisticRegions.poseScaleRegion(pose.auxiliary, imageWidth: imageWidth, imageHeight: imageHeight)
        pose.auxiliary = auxiliary.smooth(pose.auxiliary.map { NormalizedLandmark(x: $0.x, y: $0.y, z: $0.z) }, region: scale,
                                          imageWidth: imageWidth, imageHeight: imageHeight, timestampMilliseconds: timestampMilliseconds)
            .map { SIMD3($0.x, $0.y, $0.z) }
        pose.landmarks = image.smooth(pose.landmarks, region: scale, imageWidth: imageWidth, imageHeight: imageHeight,
                                      timestampMilliseconds: timestampMilliseconds)
        pose.world = world.smooth(pose.world, timestampMilliseconds: timestampMilliseconds)
    }

    /// A frame without a pose: the image-coordinate filters (whose calculators also take the image size) start over;
    /// the world and visibility filters never see the empty frame.
    mutating func noPose() {
        auxiliary.resetCoordinates()
        image.resetCoordinates()
    }
}
