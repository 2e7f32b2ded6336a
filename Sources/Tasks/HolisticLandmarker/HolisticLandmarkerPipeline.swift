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
    private var state: HolisticTrackingState
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
        state = HolisticTrackingState(numPeople: options.numPeople)
    }

    func resetVideoState() {
        state = HolisticTrackingState(numPeople: options.numPeople)
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
            resetVideoState()
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
        let result = try upright(turned, timestampMilliseconds: timestamp)
        func map(_ points: inout [NormalizedLandmark]) {
            for i in points.indices { (points[i].x, points[i].y) = turn.point(x: points[i].x, y: points[i].y) }
        }
        func map(_ points: inout [Landmark]) {
            for i in points.indices { (points[i].x, points[i].y) = turn.direction(x: points[i].x, y: points[i].y) }
        }
        let people = result.people.map { person in
            var p = person
            map(&p.poseLandmarks); map(&p.faceLandmarks); map(&p.leftHandLandmarks); map(&p.rightHandLandmarks)
            map(&p.poseWorldLandmarks); map(&p.leftHandWorldLandmarks); map(&p.rightHandWorldLandmarks)
            p.poseSegmentationMask = p.poseSegmentationMask.map { Self.turned($0, by: turn) }
            return p
        }
        return HolisticLandmarkerResult(people: people, timestampInMilliseconds: result.timestampInMilliseconds)
    }

    /// The upright picture's result. `timestamp` is nil in image mode: nothing is tracked, smoothed or kept (MediaPipe
    /// 1.2.3 carries its loopbacks across image-mode calls — the failure on a second image of another size with the
    /// mask on is one consequence; each image here is answered as a new landmarker answers it).
    private func upright(_ image: MPImage, timestampMilliseconds timestamp: Int?) throws(VisionTaskError) -> HolisticLandmarkerResult {
        let people = options.numPeople == 1 ? try onePerson(image, timestampMilliseconds: timestamp)
            : try severalPeople(image, timestampMilliseconds: timestamp)
        return HolisticLandmarkerResult(people: people, timestampInMilliseconds: timestamp ?? 0)
    }

    /// MediaPipe's graph: one pose, from the last frame's region or the detector's best
    /// (TrackHolisticPoseUsingCustomPoseDetection), and the face and hands derived from it.
    private func onePerson(_ image: MPImage, timestampMilliseconds timestamp: Int?) throws(VisionTaskError) -> [HolisticPerson] {
        let tracking = timestamp != nil
        var region = tracking ? state.poseRegion : nil
        if region == nil { region = try pose.detect(image).first }
        guard let region, var estimate = try pose.landmarks(image, rect: region) else {
            // The graph's later stages see nothing, so nothing of them carries over; the filters whose calculators
            // also take the image size reset, as in MediaPipe.
            state.poseRegion = nil
            state.single.poseLost()
            return []
        }
        guard tracking else {
            var fresh = PersonState()
            return [try person(image, &estimate, state: &fresh, timestampMilliseconds: nil)]
        }
        let found = try person(image, &estimate, state: &state.single, timestampMilliseconds: timestamp)
        state.poseRegion = HolisticRegions.poseRegion(estimate.auxiliary, imageWidth: image.width, imageHeight: image.height)
        return [found]
    }

    /// `numPeople` above 1 (ours; MediaPipe's holistic graph follows one person): the pose landmarker's
    /// detect-or-track loop for several poses — tracked regions kept, the detector run while fewer than `numPeople`
    /// are tracked, a detection over a tracked person dropped, and a person whose next region overlaps an earlier
    /// one's by more than half dropped as found twice — and each person carried from frame to frame with filters and
    /// face, hand and mask state of their own, as the single person is.
    private func severalPeople(_ image: MPImage, timestampMilliseconds timestamp: Int?) throws(VisionTaskError) -> [HolisticPerson] {
        let tracking = timestamp != nil
        let regions = try state.tracker.regions(tracking: tracking) { () throws(VisionTaskError) in try pose.detect(image) }
        var people: [HolisticPerson] = [], next: [TrackedRegion] = [], kept: [Int: PersonState] = [:]
        for region in regions {
            guard var estimate = try pose.landmarks(image, rect: region.rect) else { continue }
            var personState = (tracking ? state.people[region.instance] : nil) ?? PersonState()
            let found = try person(image, &estimate, state: &personState, timestampMilliseconds: timestamp)
            let nextRect = HolisticRegions.poseRegion(estimate.auxiliary, imageWidth: image.width, imageHeight: image.height)
            if tracking, next.contains(where: { $0.rect.mediaPipeIntersectionOverUnion(nextRect) > Self.peopleOverlap }) { continue }
            people.append(found)
            next.append(TrackedRegion(instance: region.instance, rect: nextRect))
            kept[region.instance] = personState
        }
        if tracking {
            state.tracker.track(next)
            state.people = kept
        }
        return people
    }

    /// The overlap (IoU) above which two people's regions are one person (the pose landmarker's default
    /// `minTrackingConfidence`).
    static let peopleOverlap: Float = 0.5

    /// One person from their pose estimate: the pose smoothed (when `timestamp` is given), the mask, both hands and
    /// the face, with `state` carried from the person's last frame.
    private func person(_ image: MPImage, _ estimate: inout PoseEstimate, state: inout PersonState,
                        timestampMilliseconds timestamp: Int?) throws(VisionTaskError) -> HolisticPerson {
        let tracking = timestamp != nil
        let w = image.width, h = image.height
        if let timestamp {
            state.smoothing.apply(&estimate, imageWidth: w, imageHeight: h, timestampMilliseconds: timestamp)
        }
        var person = HolisticPerson(poseLandmarks: estimate.landmarks, poseWorldLandmarks: estimate.world)
        if let logits = estimate.mask {
            person.poseSegmentationMask = maskClock.measure {
                let mask = logits.projected(threads: options.baseOptions.numThreads ?? 2)
                guard tracking else { return mask }
                let smoothed = state.previousMask.map { MaskSmoothing.blend(current: mask, previous: $0, ratio: Self.maskBlending) } ?? mask
                state.previousMask = smoothed
                return smoothed
            }
        }
        // The hands, from the pose's wrists (TrackHolisticHand).
        (person.leftHandLandmarks, person.leftHandWorldLandmarks) = try handLandmarks(image, pose: estimate, side: .left, state: &state)
        (person.rightHandLandmarks, person.rightHandWorldLandmarks) = try handLandmarks(image, pose: estimate, side: .right, state: &state)
        // The face, from the pose's face landmarks (TrackHolisticFace).
        person.faceLandmarks = try faceLandmarks(image, pose: estimate.landmarks, state: &state)
        if let blendshapes, !person.faceLandmarks.isEmpty {
            person.faceBlendshapes = try blendshapes.scores(person.faceLandmarks, imageWidth: w, imageHeight: h)
        }
        return person
    }

    /// The face: the face detector inside the region the pose gives, and the region kept from the last frame's
    /// landmarks while it moves little. `state` holds the last frame's face (empty in image mode).
    func faceLandmarks(_ image: MPImage, pose: [NormalizedLandmark], state: inout PersonState) throws(VisionTaskError) -> [NormalizedLandmark] {
        let w = image.width, h = image.height
        let fromPose = HolisticRegions.faceFromPose(pose, imageWidth: w, imageHeight: h)
        // num_faces 1: the best detection.
        let detection = try face.detector.detect(image, region: fromPose, backProjection: .region).first
        let recrop = detection.map { HolisticRegions.faceFromDetection($0, imageWidth: w, imageHeight: h) }
        let previous = state.face
        let region = HolisticRegions.faceTracking.region(
            previousLandmarks: previous, previousRegion: previous.map { HolisticRegions.faceFromLandmarks($0, imageWidth: w, imageHeight: h) },
            recrop: recrop, imageWidth: w, imageHeight: h)
        let landmarks = try region.flatMap { (rect) throws(VisionTaskError) in try face.landmarks(image, rect: rect) }?.landmarks ?? []
        state.face = landmarks.isEmpty ? nil : landmarks
        return landmarks
    }

    /// One hand: its region from the pose's wrist, index and pinky (when the wrist is visible), refined by the re-crop
    /// model, kept from the last frame's landmarks while it moves little; world landmarks moved onto the pose's wrist.
    func handLandmarks(_ image: MPImage, pose: PoseEstimate, side: HolisticRegions.HandSide,
                       state: inout PersonState) throws(VisionTaskError) -> ([NormalizedLandmark], [Landmark]) {
        let w = image.width, h = image.height
        var recrop: NormalizedRect?
        if (pose.landmarks[side.wrist].visibilityValue ?? 0) > HolisticRegions.wristVisibility {
            let fromPose = HolisticRegions.handFromPose(pose.landmarks, side: side, imageWidth: w, imageHeight: h)
            recrop = try handRefinement.refine(image, region: fromPose)
        }
        let previous = state.hands[side.wrist]
        let region = HolisticRegions.handTracking.region(
            previousLandmarks: previous,
            previousRegion: previous.map { HandLandmarksModel.nextRegion($0.map { SIMD3($0.x, $0.y, $0.z) }, image: image) },
            recrop: recrop, imageWidth: w, imageHeight: h)
        let found = try region.flatMap { (rect) throws(VisionTaskError) in try hand.landmarks(image, rect: rect) }
        state.hands[side.wrist] = found?.landmarks
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
    /// One person (MediaPipe's graph): the pose's region from the last frame's smoothed auxiliary landmarks; nil: run
    /// the detector.
    var poseRegion: NormalizedRect?
    var single = PersonState()
    /// Several people (`numPeople` > 1): the tracked regions and each tracked person's state.
    var tracker: RegionTracker
    var people: [Int: PersonState] = [:]

    init(numPeople: Int = 1) {
        tracker = RegionTracker(maximumCount: numPeople, replacementOverlap: HolisticLandmarkerPipeline.peopleOverlap,
                                association: .trackedFollowed)
    }
}

/// One person's state from their last frame: the pose filters, the face's and hands' last landmarks (by the pose's
/// wrist index) for RoiTrackingCalculator, the last smoothed mask (SegmentationSmoothingCalculator's previous mask).
struct PersonState: Sendable {
    var smoothing = HolisticPoseSmoothing()
    var face: [NormalizedLandmark]?
    var hands: [Int: [NormalizedLandmark]] = [:]
    var previousMask: Mask?

    /// A frame without the pose: the face and hands are not carried over, the image filters reset; the mask stays
    /// (its loopback ticks on masks only).
    mutating func poseLost() {
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
