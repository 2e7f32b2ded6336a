/// One person's landmarks (MediaPipe's `HolisticLandmarkerResult`): the pose in image and world coordinates, the
/// face, both hands in image and world coordinates, and — when asked for — the face's blendshapes and the pose's
/// segmentation mask. A part that was not found is an empty list (nil for blendshapes and the mask), as MediaPipe
/// gives it; "left" and "right" are the person's own (MediaPipe's pose landmarks 15, 17, 19 and 16, 18, 20).
public struct HolisticLandmarkerResult: TaskResult, Sendable, Equatable {
    /// 478 landmarks (the face mesh and both irises), or none.
    public var faceLandmarks: [NormalizedLandmark]
    /// 52 scores in the model's order, when `outputFaceBlendshapes` is set and a face was found.
    public var faceBlendshapes: Classifications?
    /// 33 landmarks with visibility and presence, or none.
    public var poseLandmarks: [NormalizedLandmark]
    /// Metres, with the origin between the hips.
    public var poseWorldLandmarks: [Landmark]
    /// The person's probability per pixel, the size of the image, when `outputPoseSegmentationMasks` is set and a pose
    /// was found.
    public var poseSegmentationMask: Mask?
    /// 21 landmarks, or none.
    public var leftHandLandmarks: [NormalizedLandmark]
    /// Metres, in the pose's world frame: the hand's wrist is moved onto the pose's.
    public var leftHandWorldLandmarks: [Landmark]
    public var rightHandLandmarks: [NormalizedLandmark]
    public var rightHandWorldLandmarks: [Landmark]
    public var timestampInMilliseconds: Int
    /// Every person found, the first being the one the fields above describe: at most one with MediaPipe's default
    /// `numPeople` 1, up to `numPeople` otherwise (not a MediaPipe field).
    public var people: [HolisticPerson]

    /// MediaPipe's initializer: `people` is the one person the fields describe, or none when no pose is given.
    public init(faceLandmarks: [NormalizedLandmark], faceBlendshapes: Classifications?, poseLandmarks: [NormalizedLandmark],
                poseWorldLandmarks: [Landmark], poseSegmentationMask: Mask?, leftHandLandmarks: [NormalizedLandmark],
                leftHandWorldLandmarks: [Landmark], rightHandLandmarks: [NormalizedLandmark], rightHandWorldLandmarks: [Landmark],
                timestampInMilliseconds: Int) {
        self.faceLandmarks = faceLandmarks
        self.faceBlendshapes = faceBlendshapes
        self.poseLandmarks = poseLandmarks
        self.poseWorldLandmarks = poseWorldLandmarks
        self.poseSegmentationMask = poseSegmentationMask
        self.leftHandLandmarks = leftHandLandmarks
        self.leftHandWorldLandmarks = leftHandWorldLandmarks
        self.rightHandLandmarks = rightHandLandmarks
        self.rightHandWorldLandmarks = rightHandWorldLandmarks
        self.timestampInMilliseconds = timestampInMilliseconds
        people = []
        if !poseLandmarks.isEmpty { people = [person] }
    }

    /// The people found; the fields are the first one's (all empty when there is none).
    public init(people: [HolisticPerson], timestampInMilliseconds: Int) {
        let first = people.first ?? HolisticPerson()
        self.init(faceLandmarks: first.faceLandmarks, faceBlendshapes: first.faceBlendshapes, poseLandmarks: first.poseLandmarks,
                  poseWorldLandmarks: first.poseWorldLandmarks, poseSegmentationMask: first.poseSegmentationMask,
                  leftHandLandmarks: first.leftHandLandmarks, leftHandWorldLandmarks: first.leftHandWorldLandmarks,
                  rightHandLandmarks: first.rightHandLandmarks, rightHandWorldLandmarks: first.rightHandWorldLandmarks,
                  timestampInMilliseconds: timestampInMilliseconds)
        self.people = people
    }

    /// The person the fields describe.
    var person: HolisticPerson {
        HolisticPerson(faceLandmarks: faceLandmarks, faceBlendshapes: faceBlendshapes, poseLandmarks: poseLandmarks,
                       poseWorldLandmarks: poseWorldLandmarks, poseSegmentationMask: poseSegmentationMask,
                       leftHandLandmarks: leftHandLandmarks, leftHandWorldLandmarks: leftHandWorldLandmarks,
                       rightHandLandmarks: rightHandLandmarks, rightHandWorldLandmarks: rightHandWorldLandmarks)
    }

    /// Nothing found.
    static func empty(timestampInMilliseconds: Int) -> Self {
        Self(people: [], timestampInMilliseconds: timestampInMilliseconds)
    }
}

/// One person of a ``HolisticLandmarkerResult``: the fields MediaPipe's result has for its one person.
public struct HolisticPerson: Sendable, Equatable {
    public var faceLandmarks: [NormalizedLandmark]
    public var faceBlendshapes: Classifications?
    public var poseLandmarks: [NormalizedLandmark]
    public var poseWorldLandmarks: [Landmark]
    public var poseSegmentationMask: Mask?
    public var leftHandLandmarks: [NormalizedLandmark]
    public var leftHandWorldLandmarks: [Landmark]
    public var rightHandLandmarks: [NormalizedLandmark]
    public var rightHandWorldLandmarks: [Landmark]

    public init(faceLandmarks: [NormalizedLandmark] = [], faceBlendshapes: Classifications? = nil, poseLandmarks: [NormalizedLandmark] = [],
                poseWorldLandmarks: [Landmark] = [], poseSegmentationMask: Mask? = nil, leftHandLandmarks: [NormalizedLandmark] = [],
                leftHandWorldLandmarks: [Landmark] = [], rightHandLandmarks: [NormalizedLandmark] = [],
                rightHandWorldLandmarks: [Landmark] = []) {
        self.faceLandmarks = faceLandmarks
        self.faceBlendshapes = faceBlendshapes
        self.poseLandmarks = poseLandmarks
        self.poseWorldLandmarks = poseWorldLandmarks
        self.poseSegmentationMask = poseSegmentationMask
        self.leftHandLandmarks = leftHandLandmarks
        self.leftHandWorldLandmarks = leftHandWorldLandmarks
        self.rightHandLandmarks = rightHandLandmarks
        self.rightHandWorldLandmarks = rightHandWorldLandmarks
    }
}
