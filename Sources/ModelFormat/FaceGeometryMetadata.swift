// The face landmarker bundle's `geometry_pipeline_metadata_landmarks.binarypb`: a serialized MediaPipe
// `GeometryPipelineMetadata` protobuf (mediapipe/tasks/cc/vision/face_geometry/proto/*.proto) holding the canonical
// face mesh and the weighted landmark basis the facial transformation matrix is fitted with.
//
// Why a small protobuf reader of our own rather than apple/swift-protobuf: the file is one fixed schema of three
// messages (GeometryPipelineMetadata, Mesh3d, WeightedLandmarkRef), read once when a landmarker is created.
// swift-protobuf's generator plugin takes some 9.5 minutes to build here, and its runtime library would be built on
// every CI clone, for what is about 150 lines of decoding. Reading the wire format ourselves also keeps this reader
// like every other one in the module: every offset is bounds-checked, and damaged or hostile bytes come back as a
// typed `FormatError`, never a trap.
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
public struct FaceGeometryMetadata: Sendable, Equatable {
    /// Which pipeline the landmarks come from (`InputSource` in geometry_pipeline_metadata.proto).
    public enum InputSource: Int, Sendable, Equatable {
        /// `DEFAULT`: treated as `faceLandmarkPipeline` by MediaPipe's `CreateGeometryPipeline`.
        case unspecified = 0
        /// `FACE_LANDMARK_PIPELINE`: 3D landmarks whose relative z is on the scale of x.
        case faceLandmarkPipeline = 1
        /// `FACE_DETECTION_PIPELINE`: 2D landmarks (z = 0); the pipeline takes z from the canonical mesh.
        case faceDetectionPipeline = 2
    }

    /// One entry of the Procrustes basis (`WeightedLandmarkRef`).
    public struct WeightedLandmark: Sendable, Equatable {
        /// A landmark index, which is also a canonical mesh vertex index.
        public var landmarkID: Int
        /// Finite and non-negative.
        public var weight: Float

        public init(landmarkID: Int, weight: Float) {
            self.landmarkID = landmarkID
            self.weight = weight
        }
    }

    /// Floats per vertex of `Mesh3d.VERTEX_PT`, the only vertex type: position x, y, z then texture u, v.
    public static let floatsPerVertex = 5
    /// Indices per primitive of `Mesh3d.TRIANGLE`, the only primitive type.
    public static let indicesPerTriangle = 3

    public var inputSource: InputSource
    /// The canonical face's vertex positions in centimetres, one per landmark index (468 in MediaPipe's file).
    public var canonicalPositions: [SIMD3<Float>]
    /// The canonical face's texture coordinates, one per vertex.
    public var textureCoordinates: [SIMD2<Float>]
    /// The mesh's triangles, three vertex indices each, every index below `vertexCount`.
    public var triangleIndices: [UInt32]
    /// The basis in file order; an id may repeat, in which case (as in MediaPipe) the last entry's weight counts.
    public var procrustesBasis: [WeightedLandmark]

    public var vertexCount: Int { canonicalPositions.count }

    /// Per-vertex weights as MediaPipe's pipeline uses them: zero for vertices outside the basis, the last listed
    /// weight for a vertex listed more than once.
    public var vertexWeights: [Float] {
        var weights = [Float](repeating: 0, count: vertexCount)
        for entry in procrustesBasis { weights[entry.landmarkID] = entry.weight }
        return weights
    }

    /// MediaPipe's solver rejects a basis whose total weight is not above this (`kAbsoluteErrorEps`).
    public static let minimumTotalWeight: Float = 1e-9

    /// Decodes and validates a serialized `GeometryPipelineMetadata`.
    public init(serializedBytes: some Collection<UInt8>) throws(FormatError) {
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

/// Protobuf wire types.
private enum WireType: UInt64 {
    case varint = 0, fixed64 = 1, lengthDelimited = 2, startGroup = 3, endGroup = 4, fixed32 = 5
}

private struct ProtobufField {
    var number: UInt32
    var wireType: WireType
}

/// Reads the fields of one message in `bytes[range]`, every read checked against the range's end.
private struct ProtobufReader {
    let bytes: [UInt8]
    let end: Int
    let message: String
    var offset: Int

    /// Nested unknown groups skipped at most this deep (protobuf's own recursion limit is 100).
    static let maximumGroupDepth = 100

    init(bytes: [UInt8], range: Range<Int>, message: String) {
        self.bytes = bytes
        self.end = range.upperBound
        self.message = message
        self.offset = range.lowerBound
    }

    /// The next field's tag, or nil at the end of the message.
    mutating func nextField() throws(FormatError) -> ProtobufField? {
        guard offset < end else { return nil }
        let at = offset
        let tag = try readVarint()
        guard let wireType = WireType(rawValue: tag & 7) else {
            throw .invalidValue(what: "protobuf wire type in \(message) at offset \(at)", value: Int64(tag & 7))
        }
        let number = tag >> 3
        guard number > 0, number <= 0x1FFF_FFFF else {
            throw .invalidValue(what: "protobuf field number in \(message) at offset \(at)", value: Int64(truncatingIfNeeded: number))
        }
        return ProtobufField(number: UInt32(number), wireType: wireType)
    }

    mutating func varint(_ field: ProtobufField, _ name: String) throws(FormatError) -> UInt64 {
        try expect(field, .varint, name)
        return try readVarint()
    }

    /// A uint32 field; protobuf would keep the low 32 bits of a wider varint, we call that damage.
    mutating func uint32(_ field: ProtobufField, _ name: String) throws(FormatError) -> UInt32 {
        try expect(field, .varint, name)
        return try readUInt32(name)
    }

    mutating func fixed32(_ field: ProtobufField, _ name: String) throws(FormatError) -> UInt32 {
        try expect(field, .fixed32, name)
        return try readFixed32()
    }

    /// The byte range of an embedded message.
    mutating func messageRange(_ field: ProtobufField, _ name: String) throws(FormatError) -> Range<Int> {
        try expect(field, .lengthDelimited, name)
        return try readLengthDelimited(name)
    }

    /// A repeated float: one unpacked fixed32, or a packed run of them.
    mutating func appendFloats(_ field: ProtobufField, _ name: String, to values: inout [Float]) throws(FormatError) {
        switch field.wireType {
        case .fixed32:
            values.append(Float(bitPattern: try readFixed32()))
        case .lengthDelimited:
            let range = try readLengthDelimited(name)
            guard range.count % 4 == 0 else {
                throw .invalidValue(what: "byte length of packed \(message).\(name) (not a multiple of 4)", value: Int64(range.count))
            }
            values.reserveCapacity(values.count + range.count / 4)
            var at = range.lowerBound
            while at < range.upperBound {
                values.append(Float(bitPattern: littleEndian32(at)))
                at += 4
            }
        default:
            throw wrongWireType(field, name)
        }
    }

    /// A repeated uint32: one unpacked varint, or a packed run of them.
    mutating func appendUInt32s(_ field: ProtobufField, _ name: String, to values: inout [UInt32]) throws(FormatError) {
        switch field.wireType {
        case .varint:
            values.append(try readUInt32(name))
        case .lengthDelimited:
            let range = try readLengthDelimited(name)
            var packed = ProtobufReader(bytes: bytes, range: range, message: "\(message).\(name)")
            while packed.offset < packed.end {
                values.append(try packed.readUInt32(name))
            }
        default:
            throw wrongWireType(field, name)
        }
    }

    /// Skips an unknown field by its wire type; a group up to its matching end, without recursion.
    mutating func skip(_ field: ProtobufField) throws(FormatError) {
        switch field.wireType {
        case .varint: _ = try readVarint()
        case .fixed64: try advance(8, "fixed64 field \(field.number)")
        case .fixed32: try advance(4, "fixed32 field \(field.number)")
        case .lengthDelimited: _ = try readLengthDelimited("field \(field.number)")
        case .endGroup:
            throw .invalidValue(what: "protobuf end-group tag without a group in \(message), field", value: Int64(field.number))
        case .startGroup:
            var open: [UInt32] = [field.number]
            while let last = open.last {
                guard let inner = try nextField() else {
                    throw .truncated(what: "protobuf group \(last) in \(message)", needed: end + 1, available: end)
                }
                switch inner.wireType {
                case .startGroup:
                    guard open.count < Self.maximumGroupDepth else {
                        throw .invalidValue(what: "protobuf group nesting depth in \(message) (limit \(Self.maximumGroupDepth))",
                                            value: Int64(open.count + 1))
                    }
                    open.append(inner.number)
                case .endGroup:
                    guard inner.number == last else {
                        throw .invalidValue(what: "protobuf end-group field number (group \(last) open) in \(message)",
                                            value: Int64(inner.number))
                    }
                    open.removeLast()
                default:
                    try skip(inner)
                }
            }
        }
    }

    private func expect(_ field: ProtobufField, _ wireType: WireType, _ name: String) throws(FormatError) {
        guard field.wireType == wireType else { throw wrongWireType(field, name) }
    }

    private func wrongWireType(_ field: ProtobufField, _ name: String) -> FormatError {
        .invalidValue(what: "wire type of \(message) field \(field.number) (\(name))", value: Int64(field.wireType.rawValue))
    }

    private mutating func readVarint() throws(FormatError) -> UInt64 {
        let start = offset
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < end else {
                throw .truncated(what: "protobuf varint in \(message) at offset \(start)", needed: offset + 1 - start,
                                 available: end - start)
            }
            let byte = bytes[offset]
            offset += 1
            // The tenth byte holds the 64th bit only.
            guard shift < 63 || byte <= 1 else {
                throw .invalidValue(what: "protobuf varint longer than 64 bits in \(message) at offset", value: Int64(start))
            }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    private mutating func readUInt32(_ name: String) throws(FormatError) -> UInt32 {
        let value = try readVarint()
        guard let narrow = UInt32(exactly: value) else {
            throw .invalidValue(what: "\(message) \(name) (wider than 32 bits)", value: Int64(truncatingIfNeeded: value))
        }
        return narrow
    }

    private mutating func readFixed32() throws(FormatError) -> UInt32 {
        let at = offset
        try advance(4, "fixed32")
        return littleEndian32(at)
    }

    private mutating func readLengthDelimited(_ name: String) throws(FormatError) -> Range<Int> {
        let at = offset
        let length = try readVarint()
        guard length <= UInt64(end - offset) else {
            throw .outOfRange(what: "protobuf \(message).\(name) (tag at \(at))", offset: offset,
                              length: Int(clamping: length), size: end)
        }
        let start = offset
        offset += Int(length)
        return start..<offset
    }

    private mutating func advance(_ count: Int, _ what: String) throws(FormatError) {
        guard count <= end - offset else {
            throw .truncated(what: "protobuf \(what) in \(message) at offset \(offset)", needed: count, available: end - offset)
        }
        offset += count
    }

    private func littleEndian32(_ at: Int) -> UInt32 {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }
}
