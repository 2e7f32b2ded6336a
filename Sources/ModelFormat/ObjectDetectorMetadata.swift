/// MediaPipe's object detector metadata (`ObjectDetectorOptions` of its object_detector_metadata_schema.fbs, file
/// identifier `V001`), stored as a subgraph's custom metadata named `DETECTOR_METADATA` by models whose raw box and
/// score outputs MediaPipe decodes itself (EfficientDet-Lite): the anchors, fixed, and how boxes are decoded against
/// them.
public struct ObjectDetectorMetadata: Sendable, Equatable {
    /// The custom metadata entry's name.
    public static let entryName = "DETECTOR_METADATA"

    /// An anchor, normalized to the model's input.
    public struct Anchor: Sendable, Equatable {
        public var xCenter: Float
        public var yCenter: Float
        public var width: Float
        public var height: Float
    }

    /// How raw tensors become detections (MediaPipe's TensorsToDetectionsCalculator options).
    public struct Decoding: Sendable, Equatable {
        public var classCount: Int32
        public var boxCount: Int32
        /// Values per box in the box tensor (4, then keypoints).
        public var coordinateCount: Int32
        public var keypointCoordinateOffset: Int32
        public var keypointCount: Int32
        public var valuesPerKeypoint: Int32
        public var xScale: Float
        public var yScale: Float
        public var widthScale: Float
        public var heightScale: Float
        public var appliesExponentialOnBoxSize: Bool
        public var appliesSigmoidToScores: Bool
    }

    public var minParserVersion: String
    public var anchors: [Anchor]
    /// nil when the metadata carries none.
    public var decoding: Decoding?

    /// Decodes the flatbuffer in `bytes`. Every offset is checked and the work is linear in the bytes (the anchors
    /// are 16 bytes of floats each at least): a damaged or hostile blob is a ``FormatError``.
    public init(bytes: ByteSlice) throws(FormatError) {
        let budget = DecodeBudget(bytes: bytes.count)
        let what = "detector metadata"
        let root = try FlatBufferTable.root(of: bytes, identifier: "V001", budget: budget, what: what)
        minParserVersion = try root.string(0, "min_parser_version") ?? ""
        var anchors: [Anchor] = []
        if let schema = try root.table(1, "ssd_anchors_options")?.table(0, "fixed_anchors_schema") {
            for anchor in try schema.tables(0, "anchors") {
                anchors.append(Anchor(xCenter: try anchor.float(0, default: 0, "x_center"), yCenter: try anchor.float(1, default: 0, "y_center"),
                                      width: try anchor.float(2, default: 0, "width"), height: try anchor.float(3, default: 0, "height")))
            }
        }
        self.anchors = anchors
        decoding = try root.table(2, "tensors_decoding_options").map { (t) throws(FormatError) in
            Decoding(classCount: try t.scalar(0, default: 0, "num_classes"), boxCount: try t.scalar(1, default: 0, "num_boxes"),
                     coordinateCount: try t.scalar(2, default: 0, "num_coords"),
                     keypointCoordinateOffset: try t.scalar(3, default: 0, "keypoint_coord_offset"),
                     keypointCount: try t.scalar(4, default: 0, "num_keypoints"),
                     valuesPerKeypoint: try t.scalar(5, default: 0, "num_values_per_keypoint"),
                     xScale: try t.float(6, default: 0, "x_scale"), yScale: try t.float(7, default: 0, "y_scale"),
                     widthScale: try t.float(8, default: 0, "w_scale"), heightScale: try t.float(9, default: 0, "h_scale"),
                     appliesExponentialOnBoxSize: try t.bool(10, "apply_exponential_on_box_size"),
                     appliesSigmoidToScores: try t.bool(11, "sigmoid_score"))
        }
    }
}

extension SubgraphMetadata {
    /// The subgraph's MediaPipe object detector metadata, or nil when it has none.
    public func objectDetectorMetadata() throws(FormatError) -> ObjectDetectorMetadata? {
        try customMetadata(named: ObjectDetectorMetadata.entryName).map { (entry) throws(FormatError) in try ObjectDetectorMetadata(bytes: entry.data) }
    }
}
