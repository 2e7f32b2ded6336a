/// A subgraph: tensors, the operators over them in execution order, and its inputs and outputs.
public struct Subgraph: Sendable {
    public var name: String
    public var tensors: [Tensor]
    public var inputs: [Int32]
    public var outputs: [Int32]
    public var operators: [Operator]
}

/// A named entry of the model's `metadata` table, pointing at a buffer.
public struct MetadataEntry: Sendable {
    public var name: String
    public var bufferIndex: Int
}

/// A named input or output of a signature.
public struct SignatureTensor: Sendable, Equatable {
    public var name: String
    public var tensorIndex: Int
}

/// A SavedModel-style signature: named inputs and outputs of one subgraph.
public struct SignatureDef: Sendable, Equatable {
    public var key: String
    public var subgraphIndex: Int
    public var inputs: [SignatureTensor]
    public var outputs: [SignatureTensor]
}

/// A `.tflite` model read in place from its bytes.
///
/// Parsing checks every offset and every index (buffers, operator codes, tensors) so that code built on a
/// `TFLiteModel` can index its arrays without further checks. Constant data stays in the file's bytes.
public struct TFLiteModel: Sendable {
    /// The bytes the model was read from (the whole `.tflite`, including any appended zip).
    public let bytes: ByteSlice
    public let version: UInt32
    public let description: String
    public let operatorCodes: [OperatorCode]
    /// The graphs as read. Editable, so that tools and tests can change tensors' parameters or operators' options
    /// before a plan is made (the engine's mutation tests do); `bytes` are not rewritten.
    public var subgraphs: [Subgraph]
    /// Buffer contents, in place. Index 0 is the empty sentinel.
    public let buffers: [ByteSlice]
    public let metadata: [MetadataEntry]
    public let signatureDefs: [SignatureDef]

    /// The only schema version TFLite itself accepts.
    public static let schemaVersion: UInt32 = 3

    /// Reads the model in `bytes`.
    public init(bytes: ByteSlice) throws(FormatError) {
        let budget = DecodeBudget(bytes: bytes.count)
        let root = try FlatBufferTable.root(of: bytes, identifier: "TFL3", budget: budget, what: "model")
        let version: UInt32 = try root.scalar(0, default: 0, "version")
        guard version == Self.schemaVersion else { throw .unsupportedSchemaVersion(version) }

        var codes: [OperatorCode] = []
        for table in try root.tables(1, "operator_codes") { codes.append(try OperatorCode.decode(table)) }

        var buffers: [ByteSlice] = []
        for (index, table) in try root.tables(4, "buffers").enumerated() {
            buffers.append(try Self.decodeBuffer(table, model: bytes, index: index))
        }

        var subgraphs: [Subgraph] = []
        for table in try root.tables(2, "subgraphs") {
            var tensors: [Tensor] = []
            for tensor in try table.tables(0, "tensors") { tensors.append(try Tensor.decode(tensor)) }
            var operators: [Operator] = []
            for op in try table.tables(3, "operators") { operators.append(try Operator.decode(op, model: bytes)) }
            subgraphs.append(Subgraph(
                name: try table.string(4, "name") ?? "",
                tensors: tensors,
                inputs: try table.scalars(1, as: Int32.self, "inputs") ?? [],
                outputs: try table.scalars(2, as: Int32.self, "outputs") ?? [],
                operators: operators))
        }

        var metadata: [MetadataEntry] = []
        for table in try root.tables(6, "metadata") {
            metadata.append(MetadataEntry(
                name: try table.string(0, "name") ?? "",
                bufferIndex: Int(try table.scalar(1, default: 0, "buffer") as UInt32)))
        }

        var signatures: [SignatureDef] = []
        for table in try root.tables(7, "signature_defs") {
            func tensorMaps(_ field: Int, _ name: String) throws(FormatError) -> [SignatureTensor] {
                var result: [SignatureTensor] = []
                for map in try table.tables(field, name) {
                    result.append(SignatureTensor(
                        name: try map.string(0, "name") ?? "",
                        tensorIndex: Int(try map.scalar(1, default: 0, "tensor_index") as UInt32)))
                }
                return result
            }
            signatures.append(SignatureDef(
                key: try table.string(2, "signature_key") ?? "",
                subgraphIndex: Int(try table.scalar(4, default: 0, "subgraph_index") as UInt32),
                inputs: try tensorMaps(0, "inputs"),
                outputs: try tensorMaps(1, "outputs")))
        }

        self.bytes = bytes
        self.version = version
        self.description = try root.string(3, "description") ?? ""
        self.operatorCodes = codes
        self.subgraphs = subgraphs
        self.buffers = buffers
        self.metadata = metadata
        self.signatureDefs = signatures
        try validateIndices()
    }

    /// Opens and maps the `.tflite` file at `path`.
    public init(path: String) throws(FormatError) {
        try self.init(bytes: try ByteSlice.mapping(path: path))
    }

    private static func decodeBuffer(_ t: FlatBufferTable, model: ByteSlice, index: Int) throws(FormatError) -> ByteSlice {
        // Buffers of models over 2 GB live outside the flatbuffer: `offset` from the start of the file, valid if > 1.
        let offset: UInt64 = try t.scalar(1, default: 0, "offset")
        let size: UInt64 = try t.scalar(2, default: 0, "size")
        if offset > 1 {
            guard offset <= UInt64(model.count), size <= UInt64(model.count) else {
                throw .outOfRange(what: "buffer \(index)", offset: Int(clamping: offset), length: Int(clamping: size),
                                  size: model.count)
            }
            return try model.slice(at: Int(offset), count: Int(size), what: "buffer \(index)")
        }
        if let data = try t.bytes(0, "data") { return data }
        return try model.slice(at: 0, count: 0, what: "empty buffer")
    }

    private func validateIndices() throws(FormatError) {
        for entry in metadata where entry.bufferIndex >= buffers.count {
            throw .invalidValue(what: "metadata '\(entry.name)' buffer index", value: Int64(entry.bufferIndex))
        }
        for signature in signatureDefs {
            guard signature.subgraphIndex < subgraphs.count else {
                throw .invalidValue(what: "signature '\(signature.key)' subgraph index", value: Int64(signature.subgraphIndex))
            }
            let tensorCount = subgraphs[signature.subgraphIndex].tensors.count
            for map in signature.inputs + signature.outputs where map.tensorIndex >= tensorCount {
                throw .invalidValue(what: "signature '\(signature.key)' tensor index", value: Int64(map.tensorIndex))
            }
        }
        for (s, subgraph) in subgraphs.enumerated() {
            let tensorCount = subgraph.tensors.count
            for (i, tensor) in subgraph.tensors.enumerated() {
                guard tensor.bufferIndex < buffers.count else {
                    throw .invalidValue(what: "subgraph \(s) tensor \(i) buffer index", value: Int64(tensor.bufferIndex))
                }
                for dimension in tensor.shape where dimension < 0 {
                    throw .invalidValue(what: "subgraph \(s) tensor \(i) ('\(tensor.name)') dimension", value: Int64(dimension))
                }
            }
            for index in subgraph.inputs + subgraph.outputs where index < 0 || Int(index) >= tensorCount {
                throw .invalidValue(what: "subgraph \(s) input/output tensor index", value: Int64(index))
            }
            for (o, op) in subgraph.operators.enumerated() {
                guard op.opcodeIndex < operatorCodes.count else {
                    throw .invalidValue(what: "subgraph \(s) operator \(o) opcode index", value: Int64(op.opcodeIndex))
                }
                for index in op.inputs + op.outputs + op.intermediates where index < -1 || Int(index) >= tensorCount {
                    throw .invalidValue(what: "subgraph \(s) operator \(o) tensor index", value: Int64(index))
                }
                for index in op.outputs where index < 0 {
                    throw .invalidValue(what: "subgraph \(s) operator \(o) output tensor index", value: Int64(index))
                }
            }
        }
    }

    /// The operator code that operator `op` runs.
    public func code(of op: Operator) -> OperatorCode { operatorCodes[op.opcodeIndex] }

    /// The constant data of `tensor` (empty for activations).
    public func data(of tensor: Tensor) -> ByteSlice { buffers[tensor.bufferIndex] }

    /// The buffer a named metadata entry points at, e.g. `TFLITE_METADATA` or `min_runtime_version`.
    public func metadataBuffer(named name: String) -> ByteSlice? {
        metadata.first { $0.name == name }.map { buffers[$0.bufferIndex] }
    }

    /// Operator counts of the main subgraph by name, as LiteRT lists them.
    public var operatorHistogram: [String: Int] {
        guard let main = subgraphs.first else { return [:] }
        var histogram: [String: Int] = [:]
        for op in main.operators { histogram[code(of: op).name, default: 0] += 1 }
        return histogram
    }
}
