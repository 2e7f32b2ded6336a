/// A file packed with a model (labels, calibration, vocabulary), as TFLite metadata describes it.
public struct AssociatedFile: Sendable, Equatable {
    public enum Kind: Int8, Sendable {
        case unknown = 0, descriptions, tensorAxisLabels, tensorValueLabels, tensorAxisScoreCalibration, vocabulary
        case scannIndexFile
    }

    public var name: String
    public var description: String
    public var kind: Kind
    /// Language of a label file, e.g. `en`; empty when not given.
    public var locale: String
}

/// Out-of-graph processing a tensor expects (metadata `ProcessUnit`).
public enum ProcessUnit: Sendable, Equatable {
    /// `(x − mean) / std`, per channel, one value meaning all channels.
    case normalization(mean: [Float], std: [Float])
    case scoreCalibration(transformation: Int8, defaultScore: Float)
    case scoreThresholding(globalThreshold: Float)
    /// A unit this reader does not decode (tokenizers, …); `union` is its tag.
    case other(union: UInt8)
}

/// What a tensor holds (metadata `Content`).
public enum TensorContent: Sendable, Equatable {
    case feature
    /// `colorSpace`: 0 unknown, 1 RGB, 2 grayscale.
    case image(colorSpace: Int8, defaultWidth: UInt32?, defaultHeight: UInt32?)
    /// `type`: 1 boundaries, 2 upper-left, 3 centre; `coordinate`: 0 ratio, 1 pixel.
    case boundingBox(index: [UInt32], type: Int8, coordinate: Int8)
    case unknown(union: UInt8)
}

/// Metadata of one input or output tensor.
public struct TensorMetadata: Sendable, Equatable {
    public var name: String
    public var description: String
    public var dimensionNames: [String]
    public var content: TensorContent?
    public var processUnits: [ProcessUnit]
    public var statsMin: [Float]
    public var statsMax: [Float]
    public var associatedFiles: [AssociatedFile]

    /// The normalization options, if the tensor has them.
    public var normalization: (mean: [Float], std: [Float])? {
        for unit in processUnits {
            if case let .normalization(mean, std) = unit { return (mean, std) }
        }
        return nil
    }

    /// The global score threshold, if the tensor has one.
    public var scoreThreshold: Float? {
        for unit in processUnits {
            if case let .scoreThresholding(threshold) = unit { return threshold }
        }
        return nil
    }
}

/// Metadata of one subgraph: its tensors, in the order of the subgraph's inputs and outputs.
public struct SubgraphMetadata: Sendable, Equatable {
    public var name: String
    public var description: String
    public var inputTensors: [TensorMetadata]
    public var outputTensors: [TensorMetadata]
    public var associatedFiles: [AssociatedFile]
    public var inputProcessUnits: [ProcessUnit]
    public var outputProcessUnits: [ProcessUnit]
    /// Named blobs a task defines the format of (MediaPipe's object detectors: `DETECTOR_METADATA`, an
    /// ``ObjectDetectorMetadata``).
    public var customMetadata: [CustomMetadata]

    /// The custom metadata named `name`, if any.
    public func customMetadata(named name: String) -> CustomMetadata? {
        customMetadata.first { $0.name == name }
    }
}

/// A subgraph's custom metadata entry: a name and its bytes, in place in the model file.
public struct CustomMetadata: Sendable, Equatable {
    public var name: String
    public var data: ByteSlice

    public static func == (a: CustomMetadata, b: CustomMetadata) -> Bool {
        a.name == b.name && a.data.withUnsafeBytes { x in b.data.withUnsafeBytes { y in x.elementsEqual(y) } }
    }
}

/// TFLite model metadata (the `TFLITE_METADATA` buffer, a flatbuffer of tflite-support's `metadata_schema.fbs`).
public struct ModelMetadata: Sendable, Equatable {
    public var name: String
    public var description: String
    public var version: String
    public var author: String
    public var license: String
    public var minParserVersion: String
    public var subgraphs: [SubgraphMetadata]
    public var associatedFiles: [AssociatedFile]

    /// The name of the metadata entry in the model that points at this flatbuffer.
    public static let entryName = "TFLITE_METADATA"

    /// Decodes the metadata flatbuffer in `bytes` (file identifier `M001`).
    public init(bytes: ByteSlice) throws(FormatError) {
        let budget = DecodeBudget(bytes: bytes.count)
        let root = try FlatBufferTable.root(of: bytes, identifier: "M001", budget: budget, what: "metadata")
        name = try root.string(0, "name") ?? ""
        description = try root.string(1, "description") ?? ""
        version = try root.string(2, "version") ?? ""
        var subgraphs: [SubgraphMetadata] = []
        for table in try root.tables(3, "subgraph_metadata") { subgraphs.append(try Self.subgraph(table)) }
        self.subgraphs = subgraphs
        author = try root.string(4, "author") ?? ""
        license = try root.string(5, "license") ?? ""
        associatedFiles = try Self.files(root, 6)
        minParserVersion = try root.string(7, "min_parser_version") ?? ""
    }

    /// Every associated file named anywhere in the metadata, model level first.
    public var allAssociatedFiles: [AssociatedFile] {
        var files = associatedFiles
        for subgraph in subgraphs {
            files += subgraph.associatedFiles
            for tensor in subgraph.inputTensors + subgraph.outputTensors { files += tensor.associatedFiles }
        }
        return files
    }

    private static func files(_ t: FlatBufferTable, _ field: Int) throws(FormatError) -> [AssociatedFile] {
        var result: [AssociatedFile] = []
        for file in try t.tables(field, "associated_files") {
            let raw: Int8 = try file.scalar(2, default: 0, "type")
            result.append(AssociatedFile(
                name: try file.string(0, "name") ?? "",
                description: try file.string(1, "description") ?? "",
                kind: AssociatedFile.Kind(rawValue: raw) ?? .unknown,
                locale: try file.string(3, "locale") ?? ""))
        }
        return result
    }

    private static func processUnits(_ t: FlatBufferTable, _ field: Int, _ name: String) throws(FormatError) -> [ProcessUnit] {
        var result: [ProcessUnit] = []
        for unit in try t.tables(field, name) {
            let tag: UInt8 = try unit.scalar(0, default: 0, "options_type")
            let options = try unit.table(1, "options")
            switch (tag, options) {
            case let (1, options?):
                result.append(.normalization(mean: try options.floats(0, "mean") ?? [], std: try options.floats(1, "std") ?? []))
            case let (2, options?):
                result.append(.scoreCalibration(
                    transformation: try options.scalar(0, default: 0, "score_transformation"),
                    defaultScore: try options.float(1, default: 0, "default_score")))
            case let (3, options?):
                result.append(.scoreThresholding(globalThreshold: try options.float(0, default: 0, "global_score_threshold")))
            default:
                result.append(.other(union: tag))
            }
        }
        return result
    }

    private static func tensor(_ t: FlatBufferTable) throws(FormatError) -> TensorMetadata {
        var content: TensorContent?
        if let table = try t.table(3, "content") {
            let tag: UInt8 = try table.scalar(0, default: 0, "content_properties_type")
            let properties = try table.table(1, "content_properties")
            switch (tag, properties) {
            case (0, _): content = nil
            case (1, _): content = .feature
            case let (2, p?):
                let size = try p.table(1, "default_size")
                content = .image(
                    colorSpace: try p.scalar(0, default: 0, "color_space"),
                    defaultWidth: try size.map { (s) throws(FormatError) in try s.scalar(0, default: UInt32(0), "width") },
                    defaultHeight: try size.map { (s) throws(FormatError) in try s.scalar(1, default: UInt32(0), "height") })
            case let (3, p?):
                content = .boundingBox(
                    index: try p.scalars(0, as: UInt32.self, "index") ?? [],
                    type: try p.scalar(1, default: 0, "type"),
                    coordinate: try p.scalar(2, default: 0, "coordinate_type"))
            default: content = .unknown(union: tag)
            }
        }
        let stats = try t.table(5, "stats")
        return TensorMetadata(
            name: try t.string(0, "name") ?? "",
            description: try t.string(1, "description") ?? "",
            dimensionNames: try t.strings(2, "dimension_names"),
            content: content,
            processUnits: try processUnits(t, 4, "process_units"),
            statsMin: try stats?.floats(1, "min") ?? [],
            statsMax: try stats?.floats(0, "max") ?? [],
            associatedFiles: try files(t, 6))
    }

    private static func subgraph(_ t: FlatBufferTable) throws(FormatError) -> SubgraphMetadata {
        var inputs: [TensorMetadata] = []
        for table in try t.tables(2, "input_tensor_metadata") { inputs.append(try tensor(table)) }
        var outputs: [TensorMetadata] = []
        for table in try t.tables(3, "output_tensor_metadata") { outputs.append(try tensor(table)) }
        return SubgraphMetadata(
            name: try t.string(0, "name") ?? "",
            description: try t.string(1, "description") ?? "",
            inputTensors: inputs,
            outputTensors: outputs,
            associatedFiles: try files(t, 4),
            inputProcessUnits: try processUnits(t, 5, "input_process_units"),
            outputProcessUnits: try processUnits(t, 6, "output_process_units"),
            customMetadata: try t.tables(9, "custom_metadata").map { (entry) throws(FormatError) in
                CustomMetadata(name: try entry.string(0, "name") ?? "", data: try entry.bytes(1, "data") ?? entry.buffer.emptySlice)
            })
    }
}

extension TFLiteModel {
    /// The model's TFLite metadata, or nil when it has none.
    public func modelMetadata() throws(FormatError) -> ModelMetadata? {
        guard let bytes = metadataBuffer(named: ModelMetadata.entryName) else { return nil }
        return try ModelMetadata(bytes: bytes)
    }

    /// The zip of associated files appended to the model, or nil when there is none.
    public func associatedFiles() throws(FormatError) -> ZipArchive? {
        ZipArchive.containsArchive(bytes) ? try ZipArchive(bytes: bytes) : nil
    }

    /// The bytes of the associated file `name`.
    public func associatedFile(named name: String) throws(FormatError) -> ByteSlice {
        guard let archive = try associatedFiles() else {
            throw .missingBundleMember(name: name, available: [])
        }
        guard let entry = archive.entry(named: name) else {
            throw .missingBundleMember(name: name, available: archive.entries.map(\.name))
        }
        return try archive.contents(of: entry)
    }

    /// Lines of a label file packed with the model (empty trailing lines dropped).
    public func labels(named name: String) throws(FormatError) -> [String] {
        let text = String(decoding: try associatedFile(named: name).bytes, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
            String($0.hasSuffix("\r") ? $0.dropLast() : $0)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }
}

/// The activation MediaPipe's image segmenter applies to a model's output (`Activation` of its
/// `image_segmenter_metadata_schema.fbs`).
public enum SegmenterActivation: Int8, Sendable, Equatable {
    case none = 0, sigmoid = 1, softmax = 2
}

extension CustomMetadata {
    /// The name MediaPipe's segmenter looks for (`kSegmentationMetadataName`).
    public static let segmenterName = "SEGMENTER_METADATA"

    /// The activation of MediaPipe's `ImageSegmenterOptions` flatbuffer (file identifier `V001`) these bytes hold;
    /// nil when the value is not one MediaPipe knows (it refuses such a model).
    public func segmenterActivation() throws(FormatError) -> SegmenterActivation? {
        let root = try FlatBufferTable.root(of: data, identifier: nil, budget: DecodeBudget(bytes: data.count),
                                            what: "segmenter metadata")
        let raw: Int8 = try root.scalar(0, default: 0, "activation")
        return SegmenterActivation(rawValue: raw)
    }
}
