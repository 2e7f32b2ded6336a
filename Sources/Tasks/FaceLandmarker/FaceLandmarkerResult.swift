/// The faces found: 478 landmarks each (the face mesh and both irises), and, when asked for, 52 blendshape scores and
/// the transformation from MediaPipe's canonical face model. Faces are in the same order in every array.
public struct FaceLandmarkerResult: TaskResult, Sendable, Equatable {
    public var faceLandmarks: [[NormalizedLandmark]]
    /// One ``Classifications`` per face (head 0, 52 categories in the model's order), empty unless
    /// `outputFaceBlendshapes` is set.
    public var faceBlendshapes: [Classifications]
    /// One 4 × 4 matrix per face, empty unless `outputFacialTransformationMatrixes` is set.
    public var facialTransformationMatrixes: [TransformMatrix]
    public var timestampInMilliseconds: Int
    /// Ours, beside MediaPipe's fields: in video and live-stream modes, the identity of each face, in the order of
    /// ``faceLandmarks`` — the same number while the same face is followed from frame to frame, never given to
    /// another face (<doc:Identities>); empty in image mode. A parallel array, as the other per-face fields are.
    public var identities: [Int] = []

    public init(faceLandmarks: [[NormalizedLandmark]], faceBlendshapes: [Classifications],
                facialTransformationMatrixes: [TransformMatrix], timestampInMilliseconds: Int) {
        self.faceLandmarks = faceLandmarks
        self.faceBlendshapes = faceBlendshapes
        self.facialTransformationMatrixes = facialTransformationMatrixes
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
