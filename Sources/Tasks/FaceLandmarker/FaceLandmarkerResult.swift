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

    public init(faceLandmarks: [[NormalizedLandmark]], faceBlendshapes: [Classifications],
                facialTransformationMatrixes: [TransformMatrix], timestampInMilliseconds: Int) {
        self.faceLandmarks = faceLandmarks
        self.faceBlendshapes = faceBlendshapes
        self.facialTransformationMatrixes = facialTransformationMatrixes
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
