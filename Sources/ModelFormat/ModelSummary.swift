/// What `vision-tasks model info` reports of a model or bundle; `Codable` in the CLI's `--json` schema.
public struct BundleSummary: Codable, Sendable, Equatable {
    public var members: [MemberSummary]

    public init(bundle: TaskBundle) throws(FormatError) {
        var members: [MemberSummary] = []
        for member in bundle.members {
            members.append(try MemberSummary(member: member))
        }
        self.members = members
    }
}

/// One bundle member; the model fields are present only for TFLite members.
public struct MemberSummary: Codable, Sendable, Equatable {
    public struct TensorSummary: Codable, Sendable, Equatable {
        public var name: String
        public var shape: [Int32]
        public var type: String
        public var quantization: QuantizationSummary?
    }

    public struct QuantizationSummary: Codable, Sendable, Equatable {
        public var scale: [Float]
        public var zeroPoint: [Int64]
        public var quantizedDimension: Int32
    }

    public struct MetadataSummary: Codable, Sendable, Equatable {
        public var name: String
        public var version: String
        /// Per input: normalization mean and std, when the metadata gives them.
        public var inputNormalization: [NormalizationSummary?]
        public var associatedFiles: [String]
        /// Number of labels in the first label file of the outputs, if any.
        public var labelCount: Int?
        public var labelFile: String?
    }

    public struct NormalizationSummary: Codable, Sendable, Equatable {
        public var mean: [Float]
        public var std: [Float]
    }

    public var path: String
    public var size: Int
    public var inputs: [TensorSummary]?
    public var outputs: [TensorSummary]?
    /// Operator counts of the main subgraph, custom operators under their custom code.
    public var operators: [String: Int]?
    public var metadata: MetadataSummary?

    public init(member: TaskBundle.Member) throws(FormatError) {
        if member.isTFLiteModel {
            try self.init(path: member.path, model: try TFLiteModel(bytes: member.bytes))
        } else {
            // Listing a member vouches for it without keeping it: a deflated one is checked through a small buffer.
            try member.verify()
            self.init(path: member.path, size: member.size)
        }
    }

    private init(path: String, size: Int) {
        self.path = path
        self.size = size
    }

    /// The summary of a model already parsed.
    public init(path: String, model: TFLiteModel) throws(FormatError) {
        self.path = path
        size = model.bytes.count
        guard let main = model.subgraphs.first else {
            throw .invalidValue(what: "subgraph count of '\(path)'", value: 0)
        }
        func summarize(_ index: Int32) -> TensorSummary {
            let tensor = main.tensors[Int(index)]
            let quantization = tensor.quantization.flatMap { q in
                q.scale.isEmpty ? nil : QuantizationSummary(scale: q.scale, zeroPoint: q.zeroPoint, quantizedDimension: q.quantizedDimension)
            }
            return TensorSummary(name: tensor.name, shape: tensor.shape, type: tensor.type.name, quantization: quantization)
        }
        inputs = main.inputs.map(summarize)
        outputs = main.outputs.map(summarize)
        operators = model.operatorHistogram
        if let metadata = try model.modelMetadata() {
            let subgraph = metadata.subgraphs.first
            let labelFile = subgraph?.outputTensors.lazy
                .flatMap(\.associatedFiles)
                .first { $0.kind == .tensorAxisLabels || $0.kind == .tensorValueLabels }
            self.metadata = MetadataSummary(
                name: metadata.name,
                version: metadata.version,
                inputNormalization: (subgraph?.inputTensors ?? []).map { tensor in
                    tensor.normalization.map { NormalizationSummary(mean: $0.mean, std: $0.std) }
                },
                associatedFiles: metadata.allAssociatedFiles.map(\.name),
                labelCount: try labelFile.map { (file) throws(FormatError) in try model.labels(named: file.name).count },
                labelFile: labelFile?.name)
        }
    }
}
