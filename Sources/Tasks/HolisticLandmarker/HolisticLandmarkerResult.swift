/// One person's landmarks (MediaPipe's `HolisticLandmarkerResult`): the pose in image and world coordinates, the
/// face, both hands in image and world coordinates, and — when asked for — the face's blendshapes and the pose's
/// segmentation mask. A part that was not found is an empty list (nil for blendshapes and the mask), as MediaPipe
/// gives it; "left" and "right" are the person's own (MediaPipe's pose landmarks 15, 17, 19 and 16, 18, 20).
public struct HolisticLandmarkerResult: TaskResult, Sendable, Equatable {
    /// Every person found (not a MediaPipe field): at most one with MediaPipe's default `numPeople` 1, up to
    /// `numPeople` otherwise. MediaPipe's fields below are the first person's, read and written through it — one
    /// copy of each landmark list, so a changed field and `people` never disagree. Setting a field of a result with
    /// nobody in it makes that field's person the first.
    public var people: [HolisticPerson]
    public var timestampInMilliseconds: Int

    /// 478 landmarks (the face mesh and both irises), or none.
    public var faceLandmarks: [NormalizedLandmark] {
        get { people.first?.faceLandmarks ?? HolisticPerson().faceLandmarks }
        set { updateFirstPerson { $0.faceLandmarks = newValue } }
    }
    /// 52 scores in the model's order, when `outputFaceBlendshapes` is set and a face was found.
    public var faceBlendshapes: Classifications? {
        get { people.first?.faceBlendshapes ?? HolisticPerson().faceBlendshapes }
        set { updateFirstPerson { $0.faceBlendshapes = newValue } }
    }
    /// 33 landmarks with visibility and presence, or none.
    public var poseLandmarks: [NormalizedLandmark] {
        get { people.first?.poseLandmarks ?? HolisticPerson().poseLandmarks }
        set { updateFirstPerson { $0.poseLandmarks = newValue } }
    }
    /// Metres, with the origin between the hips.
    public var poseWorldLandmarks: [Landmark] {
        get { people.first?.poseWorldLandmarks ?? HolisticPerson().poseWorldLandmarks }
        set { updateFirstPerson { $0.poseWorldLandmarks = newValue } }
    }
    /// The person's probability per pixel, the size of the image, when `outputPoseSegmentationMasks` is set and a pose
    /// was found.
    public var poseSegmentationMask: Mask? {
        get { people.first?.poseSegmentationMask ?? HolisticPerson().poseSegmentationMask }
        set { updateFirstPerson { $0.poseSegmentationMask = newValue } }
    }
    /// 21 landmarks, or none.
    public var leftHandLandmarks: [NormalizedLandmark] {
        get { people.first?.leftHandLandmarks ?? HolisticPerson().leftHandLandmarks }
        set { updateFirstPerson { $0.leftHandLandmarks = newValue } }
    }
    /// Metres, in the pose's world frame: the hand's wrist is moved onto the pose's.
    public var leftHandWorldLandmarks: [Landmark] {
        get { people.first?.leftHandWorldLandmarks ?? HolisticPerson().leftHandWorldLandmarks }
        set { updateFirstPerson { $0.leftHandWorldLandmarks = newValue } }
    }
    public var rightHandLandmarks: [NormalizedLandmark] {
        get { people.first?.rightHandLandmarks ?? HolisticPerson().rightHandLandmarks }
        set { updateFirstPerson { $0.rightHandLandmarks = newValue } }
    }
    public var rightHandWorldLandmarks: [Landmark] {
        get { people.first?.rightHandWorldLandmarks ?? HolisticPerson().rightHandWorldLandmarks }
        set { updateFirstPerson { $0.rightHandWorldLandmarks = newValue } }
    }

    /// MediaPipe's initializer: `people` is the one person the fields describe, or none when every field is empty.
    public init(faceLandmarks: [NormalizedLandmark], faceBlendshapes: Classifications?, poseLandmarks: [NormalizedLandmark],
                poseWorldLandmarks: [Landmark], poseSegmentationMask: Mask?, leftHandLandmarks: [NormalizedLandmark],
                leftHandWorldLandmarks: [Landmark], rightHandLandmarks: [NormalizedLandmark], rightHandWorldLandmarks: [Landmark],
                timestampInMilliseconds: Int) {
        let person = HolisticPerson(faceLandmarks: faceLandmarks, faceBlendshapes: faceBlendshapes, poseLandmarks: poseLandmarks,
                                    poseWorldLandmarks: poseWorldLandmarks, poseSegmentationMask: poseSegmentationMask,
                                    leftHandLandmarks: leftHandLandmarks, leftHandWorldLandmarks: leftHandWorldLandmarks,
                                    rightHandLandmarks: rightHandLandmarks, rightHandWorldLandmarks: rightHandWorldLandmarks)
        self.init(people: person == HolisticPerson() ? [] : [person], timestampInMilliseconds: timestampInMilliseconds)
    }

    /// The people found; the fields are the first one's (all empty when there is none).
    public init(people: [HolisticPerson], timestampInMilliseconds: Int) {
        self.people = people
        self.timestampInMilliseconds = timestampInMilliseconds
    }

    private mutating func updateFirstPerson(_ change: (inout HolisticPerson) -> Void) {
        if people.isEmpty { people = [HolisticPerson()] }
        change(&people[0])
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
