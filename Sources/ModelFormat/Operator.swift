/// What an operator runs: a builtin code, or a custom operator named by its custom code.
public struct OperatorCode: Sendable, Equatable {
    public var builtin: BuiltinOperator
    /// Set for `CUSTOM` operators, e.g. `TFLite_Detection_PostProcess`.
    public var customCode: String?
    public var version: Int32

    /// The name LiteRT lists the operator under: the schema name, or the custom code for custom operators.
    public var name: String {
        if builtin == .custom, let customCode { return customCode }
        return builtin.name
    }

    static func decode(_ t: FlatBufferTable) throws(FormatError) -> OperatorCode {
        // Resolution rule of schema version 3a: the byte-sized deprecated code holds codes below 127; larger codes
        // put 127 there and the real value in `builtin_code`. The larger of the two is the answer.
        let deprecated: Int8 = try t.scalar(0, default: 0, "deprecated_builtin_code")
        let extended: Int32 = try t.scalar(3, default: 0, "builtin_code")
        guard deprecated >= 0 else { throw .invalidValue(what: "deprecated_builtin_code", value: Int64(deprecated)) }
        guard extended >= 0 else { throw .invalidValue(what: "builtin_code", value: Int64(extended)) }
        return OperatorCode(
            builtin: BuiltinOperator(rawValue: max(Int32(deprecated), extended)),
            customCode: try t.string(1, "custom_code"),
            version: try t.scalar(2, default: 1, "version"))
    }
}

/// One node of a subgraph.
public struct Operator: Sendable {
    public var opcodeIndex: Int
    /// Tensor indices; -1 marks an optional input that is absent.
    public var inputs: [Int32]
    public var outputs: [Int32]
    public var intermediates: [Int32]
    public var builtinOptions: BuiltinOptions
    /// Raw custom options (FlexBuffers for TFLite's own custom operators, a plain struct for some MediaPipe ones).
    public var customOptions: ByteSlice?

    static func decode(_ t: FlatBufferTable, model: ByteSlice) throws(FormatError) -> Operator {
        let tag: UInt8 = try t.scalar(3, default: 0, "builtin_options_type")
        var custom = try t.bytes(5, "custom_options")
        // Models over 2 GB keep custom options outside the flatbuffer, offset from the start of the file.
        let largeOffset: UInt64 = try t.scalar(9, default: 0, "large_custom_options_offset")
        let largeSize: UInt64 = try t.scalar(10, default: 0, "large_custom_options_size")
        if largeOffset > 1 {
            guard largeOffset <= UInt64(model.count), largeSize <= UInt64(model.count) else {
                throw .outOfRange(what: "large custom options", offset: Int(clamping: largeOffset),
                                  length: Int(clamping: largeSize), size: model.count)
            }
            custom = try model.slice(at: Int(largeOffset), count: Int(largeSize), what: "large custom options")
        }
        return Operator(
            opcodeIndex: Int(try t.scalar(0, default: 0, "opcode_index") as UInt32),
            inputs: try t.scalars(1, as: Int32.self, "inputs") ?? [],
            outputs: try t.scalars(2, as: Int32.self, "outputs") ?? [],
            intermediates: try t.scalars(8, as: Int32.self, "intermediates") ?? [],
            builtinOptions: try BuiltinOptions.decode(tag: tag, table: try t.table(4, "builtin_options")),
            customOptions: custom)
    }
}
