import VisionTasksModelFormat

extension FaceGeometry {
    static let metadataMember = "geometry_pipeline_metadata_landmarks.binarypb"

    /// The geometry pipeline of the bundle's metadata (the canonical face and its Procrustes weights).
    init(bundle: TaskBundle) throws(VisionTaskError) {
        let member: TaskBundle.Member
        do { member = try bundle.member(Self.metadataMember) } catch {
            throw .wrongModel("outputFacialTransformationMatrixes needs \(Self.metadataMember) in the bundle; this one has \(bundle.memberPaths)")
        }
        let metadata: FaceGeometryMetadata
        do { metadata = try member.bytes.withUnsafeBytes { (raw) throws(FormatError) in try FaceGeometryMetadata(serializedBytes: raw) } } catch {
            throw .model(error)
        }
        try self.init(checking: metadata)
    }

    /// Refuses metadata whose landmarks the face model does not have.
    private init(checking metadata: FaceGeometryMetadata) throws(VisionTaskError) {
        guard metadata.vertexCount <= FaceLandmarkerPipeline.landmarkCount else {
            throw .wrongModel("\(Self.metadataMember) describes \(metadata.vertexCount) landmarks; the face model has \(FaceLandmarkerPipeline.landmarkCount)")
        }
        self.init(metadata: metadata)
    }
}
