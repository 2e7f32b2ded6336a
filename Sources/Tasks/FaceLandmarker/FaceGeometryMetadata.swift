import VisionTasksModelFormat

// The face landmarker bundle's `geometry_pipeline_metadata_landmarks.binarypb`: a serialized MediaPipe
// `GeometryPipelineMetadata` protobuf (mediapipe/tasks/cc/vision/face_geometry/proto/*.proto) holding the canonical
// face mesh and the weighted landmark basis the facial transformation matrix is fitted with.
//
// One fixed schema of three messages (GeometryPipelineMetadata, Mesh3d, WeightedLandmarkRef), read with the
// format layer's `ProtobufReader` once when a landmarker is created; damaged or hostile bytes are a `FormatError`.
// Package access: the landmarker's own input, not part of the API (its results carry the matrices, not the mesh).
//
// Semantics follow protobuf (proto2) parsing, then MediaPipe's `ValidateGeometryPipelineMetadata`:
// - fields may come in any order; a scalar given twice keeps the last value; a message field given twice (the
//   canonical mesh) is merged, its repeated fields concatenated;
// - repeated scalars (`vertex_buffer`, `index_buffer`) are read packed or unpacked, or a mix of both;
// - unknown fields are skipped by their wire type (groups included); an enum value this schema does not name is
//   dropped, as protobuf's C++ parser drops it, leaving the field at its previous value;
// - stricter than protobuf: a known field with the wrong wire type is an error (protobuf would keep it as an
//   unknown field and go on with the field unset), so is a uint32 field wider than 32 bits (protobuf would keep
//   its low bits: an id out of range would come back in range), and so are non-finite vertex coordinates, an
//   infinite weight and a basis whose total weight is not above MediaPipe's solver epsilon (1e-9), which MediaPipe
//   would only report on the first face it fits.

/// MediaPipe's `GeometryPipelineMetadata`: the canonical face mesh (metric, centimetres) and the weighted landmark
/// basis that the face geometry pipeline fits it to a face's landmarks with.
package struct FaceGeometryMetadata: Sendable, Equatable {
    /// Which pipeline the landmarks come from (`InputSource` in geometry_pipeline_metadata.proto).
    package enum InputSource: Int, Sendable, Equatable {
        /// `DEFAULT`: treated as `faceLandmarkPipeline` by MediaPipe's `CreateGeometryPipeline`.
        case unspecified = 0
        /// `FACE_LANDMARK_PIPELINE`: 3D landmarks whose relative z is on the scale of x.
        case faceLandmarkPipeline = 1
        /// `FACE_DETECTION_PIPELINE`: 2D landmarks (z = 0); the pipeline takes z from the canonical mesh.
        case faceDetectionPipeline = 2
    }

    /// One entry of the Procrustes basis (`WeightedLandmarkRef`).
    package struct WeightedLandmark: Sendable, Equatable {
        /// A landmark index, which is also a canonical mesh vertex index.
        package var landmarkID: Int
        /// Finite and non-negative.
        package var weight: Float

        package init(landmarkID: Int, weight: Float) {
            self.landmarkID = landmarkID
            self.weight = weight
        }
    }

    /// Floats per vertex of `Mesh3d.VERTEX_PT`, the only vertex type: position x, y, z then texture u, v.
    package static let floatsPerVertex = 5
    /// Indices per primitive of `Mesh3d.TRIANGLE`, the only primitive type.
    package static let indicesPerTriangle = 3

    package var inputSource: InputSource
    /// The canonical face's vertex positions in centimetres, one per landmark index (468 in MediaPipe's file).
    package var canonicalPositions: [SIMD3<Float>]
    /// The canonical face's texture coordinates, one per vertex.
    package var textureCoordinates: [SIMD2<Float>]
    /// The mesh's triangles, three vertex indices each, every index below `vertexCount`.
    package var triangleIndices: [UInt32]
    /// The basis in file order; an id may repeat, in which case (as in MediaPipe) the last entry's weight counts.
    package var procrustesBasis: [WeightedLandmark]

    package var vertexCount: Int { canonicalPositions.count }

    /// Per-vertex weights as MediaPipe's pipeline uses them: zero for vertices outside the basis, the last listed
    /// weight for a vertex listed more than once.
    package var vertexWeights: [Float] {
        var weights = [Float](repeating: 0, count: vertexCount)
        for entry in procrustesBasis { weights[entry.landmarkID] = entry.weight }
        return weights
    }

    /// MediaPipe's solver rejects a basis whose total weight is not above this (`kAbsoluteErrorEps`).
    package static let minimumTotalWeight: Float = 1e-9

    /// Decodes and validates a serialized `GeometryPipelineMetadata`.
    package init(serializedBytes: some Collection<UInt8>) throws(FormatError) {
        let bytes = Array(serializedBytes)
        var inputSource = InputSource.unspecified
        var mesh = MeshFields()
        var basis: [WeightedLandmark] = []
        var reader = ProtobufReader(bytes: bytes, range: 0..<bytes.count, message: "GeometryPipelineMetadata")
        while let field = try reader.nextField() {
            switch field.number {
            case 3:  // optional InputSource input_source
                if let source = InputSource(rawValue: Int(Int32(truncatingIfNeeded: try reader.varint(field, "input_source")))) {
                    inputSource = source
                }
            case 1:  // optional Mesh3d canonical_mesh
                try mesh.merge(reader.messageRange(field, "canonical_mesh"), of: bytes)
            case 2:  // repeated WeightedLandmarkRef procrustes_landmark_basis
                basis.append(try Self.weightedLandmark(reader.messageRange(field, "procrustes_landmark_basis"), of: bytes))
            default:
                try reader.skip(field)
            }
        }
        try self.init(inputSource: inputSource, mesh: mesh, basis: basis)
    }

    private init(inputSource: InputSource, mesh: MeshFields, basis: [WeightedLandmark]) throws(FormatError) {
        // ValidateMesh3d: whole vertices, whole triangles, indices inside the mesh.
        let floats = mesh.vertexBuffer
        guard floats.count % Self.floatsPerVertex == 0 else {
            throw .invalidValue(what: "canonical mesh vertex buffer size (not a multiple of \(Self.floatsPerVertex))",
                                value: Int64(floats.count))
        }
        if let bad = floats.firstIndex(where: { !$0.isFinite }) {
            throw .invalidValue(what: "canonical mesh vertex buffer entry (not finite) at index", value: Int64(bad))
        }
        let count = floats.count / Self.floatsPerVertex
        guard mesh.indexBuffer.count % Self.indicesPerTriangle == 0 else {
            throw .invalidValue(what: "canonical mesh index buffer size (not a multiple of \(Self.indicesPerTriangle))",
                                value: Int64(mesh.indexBuffer.count))
        }
        if let index = mesh.indexBuffer.first(where: { Int($0) >= count }) {
            throw .invalidValue(what: "canonical mesh triangle index (mesh has \(count) vertices)", value: Int64(index))
        }
        // ValidateGeometryPipelineMetadata: a non-empty basis of existing vertices with non-negative weights.
        guard !basis.isEmpty else { throw .invalidValue(what: "Procrustes landmark basis size", value: 0) }
        var weights = [Float](repeating: 0, count: count)
        for entry in basis {
            guard entry.landmarkID < count else {
                throw .invalidValue(what: "Procrustes basis landmark id (mesh has \(count) vertices)",
                                    value: Int64(entry.landmarkID))
            }
            guard entry.weight.isFinite, entry.weight >= 0 else {
                throw .invalidValue(what: "weight \(entry.weight) (must be finite and non-negative) of Procrustes basis landmark",
                                    value: Int64(entry.landmarkID))
            }
            weights[entry.landmarkID] = entry.weight
        }
        // The solver's ValidatePointWeights, checked once here instead of on every face.
        guard weights.reduce(0, +) > Self.minimumTotalWeight else {
            throw .invalidValue(what: "Procrustes basis (total weight not above 1e-9), entry count", value: Int64(basis.count))
        }
        self.inputSource = inputSource
        canonicalPositions = (0..<count).map { i in
            let base = i * Self.floatsPerVertex
            return SIMD3(floats[base], floats[base + 1], floats[base + 2])
        }
        textureCoordinates = (0..<count).map { i in
            let base = i * Self.floatsPerVertex + 3
            return SIMD2(floats[base], floats[base + 1])
        }
        triangleIndices = mesh.indexBuffer
        procrustesBasis = basis
    }

    /// `Mesh3d` as read so far; a second occurrence of the field merges into it.
    private struct MeshFields {
        var vertexBuffer: [Float] = []
        var indexBuffer: [UInt32] = []

        mutating func merge(_ range: Range<Int>, of bytes: [UInt8]) throws(FormatError) {
            var reader = ProtobufReader(bytes: bytes, range: range, message: "Mesh3d")
            while let field = try reader.nextField() {
                switch field.number {
                case 1, 2:
                    // optional VertexType vertex_type / PrimitiveType primitive_type: each has one value (0,
                    // VERTEX_PT / TRIANGLE); another value is dropped as unknown, so the layout stays VERTEX_PT.
                    _ = try reader.varint(field, field.number == 1 ? "vertex_type" : "primitive_type")
                case 3:  // repeated float vertex_buffer
                    try reader.appendFloats(field, "vertex_buffer", to: &vertexBuffer)
                case 4:  // repeated uint32 index_buffer
                    try reader.appendUInt32s(field, "index_buffer", to: &indexBuffer)
                default:
                    try reader.skip(field)
                }
            }
        }
    }

    private static func weightedLandmark(_ range: Range<Int>, of bytes: [UInt8]) throws(FormatError) -> WeightedLandmark {
        var reader = ProtobufReader(bytes: bytes, range: range, message: "WeightedLandmarkRef")
        var id: UInt32 = 0
        var weight: Float = 0
        while let field = try reader.nextField() {
            switch field.number {
            case 1: id = try reader.uint32(field, "landmark_id")  // optional uint32
            case 2: weight = Float(bitPattern: try reader.fixed32(field, "weight"))  // optional float
            default: try reader.skip(field)
            }
        }
        return WeightedLandmark(landmarkID: Int(id), weight: weight)
    }
}
