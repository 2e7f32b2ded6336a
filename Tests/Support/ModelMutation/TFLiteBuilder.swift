/// Writes small `.tflite` flatbuffers from a description, so that tests can craft hostile models (odd shapes,
/// options, constants, sparsity) in code instead of checking in generated files.
///
/// Field numbers are those of TFLite's `schema.fbs`. The writer lays each table before its children (vtable, then
/// table, then what it points to), so every offset points forward, as the format requires of `uoffset`s.
public struct TFLiteBuilder {
    public enum ElementType: UInt8 {
        case float32 = 0, float16 = 1, int32 = 2, uint8 = 3, int64 = 4, int8 = 9
    }

    public struct Quantization {
        public var scale: [Float]
        public var zeroPoint: [Int64]
        /// The axis that per-channel scales run along (a depthwise filter's last, 3); 0 is the schema's default.
        public var quantizedDimension: Int32
        public init(scale: [Float], zeroPoint: [Int64], quantizedDimension: Int32 = 0) {
            self.scale = scale; self.zeroPoint = zeroPoint; self.quantizedDimension = quantizedDimension
        }
    }

    /// One dimension of a sparse tensor: dense of a size, or compressed (CSR) with int32 segments and indices.
    public enum SparseDimension {
        case dense(Int32)
        case compressed(segments: [Int32], indices: [Int32])
    }

    public struct Sparsity {
        public var traversalOrder: [Int32]
        public var blockMap: [Int32]
        public var dimensions: [SparseDimension]
        public init(traversalOrder: [Int32], blockMap: [Int32] = [], dimensions: [SparseDimension]) {
            self.traversalOrder = traversalOrder; self.blockMap = blockMap; self.dimensions = dimensions
        }
    }

    /// A scalar or child of a table, by field number.
    public enum Field {
        case bool(Bool), int8(Int8), uint8(UInt8), int32(Int32), uint32(UInt32), float(Float)
        case table([Int: Field]), tables([[Int: Field]]), int32s([Int32]), int64s([Int64]), floats([Float]), bytes([UInt8])
        case string(String)
    }

    public var tensors: [[Int: Field]] = []
    public var operators: [[Int: Field]] = []
    public var inputs: [Int32] = []
    public var outputs: [Int32] = []
    private var codes: [[Int: Field]] = []
    private var buffers: [[Int: Field]] = [[:]]

    public init() {}

    /// Adds a tensor and returns its index; `data` makes it a constant.
    @discardableResult
    public mutating func tensor(_ name: String, _ type: ElementType, _ shape: [Int32], data: [UInt8]? = nil,
                                quantization: Quantization? = nil, sparsity: Sparsity? = nil) -> Int32 {
        var table: [Int: Field] = [0: .int32s(shape), 1: .int8(Int8(type.rawValue)), 3: .string(name)]
        if let data {
            buffers.append([0: .bytes(data)])
            table[2] = .uint32(UInt32(buffers.count - 1))
        }
        if let q = quantization {
            table[4] = .table([2: .floats(q.scale), 3: .int64s(q.zeroPoint)].merging(q.quantizedDimension == 0 ? [:] : [6: .int32(q.quantizedDimension)]) { $1 })
        }
        if let sparsity {
            let dimensions: [[Int: Field]] = sparsity.dimensions.map { dimension in
                switch dimension {
                case let .dense(size): return [0: .int8(0), 1: .int32(size)]
                case let .compressed(segments, indices):
                    // Union tag 1 is Int32Vector, a table whose field 0 is the values.
                    return [0: .int8(1), 2: .uint8(1), 3: .table([0: .int32s(segments)]), 4: .uint8(1), 5: .table([0: .int32s(indices)])]
                }
            }
            table[6] = .table([0: .int32s(sparsity.traversalOrder), 1: .int32s(sparsity.blockMap), 2: .tables(dimensions)])
        }
        tensors.append(table)
        return Int32(tensors.count - 1)
    }

    /// A constant tensor of `values`.
    @discardableResult
    public mutating func constant(_ name: String, int32s values: [Int32], shape: [Int32]? = nil) -> Int32 {
        tensor(name, .int32, shape ?? [Int32(values.count)], data: values.flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) })
    }

    @discardableResult
    public mutating func constant(_ name: String, int64s values: [Int64], shape: [Int32]? = nil) -> Int32 {
        tensor(name, .int64, shape ?? [Int32(values.count)], data: values.flatMap { withUnsafeBytes(of: $0.littleEndian, Array.init) })
    }

    @discardableResult
    public mutating func constant(_ name: String, floats values: [Float], shape: [Int32]? = nil) -> Int32 {
        tensor(name, .float32, shape ?? [Int32(values.count)], data: values.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) })
    }

    /// Adds an operator: a builtin by its code (`custom` names a custom one), with its options table and union tag.
    public mutating func op(_ builtin: Int32, custom: String? = nil, inputs: [Int32], outputs: [Int32],
                            optionsType: UInt8 = 0, options: [Int: Field]? = nil, customOptions: [UInt8]? = nil) {
        var code: [Int: Field] = [0: .int8(Int8(min(builtin, 127))), 2: .int32(1), 3: .int32(builtin)]
        if let custom { code[1] = .string(custom) }
        codes.append(code)
        var table: [Int: Field] = [0: .uint32(UInt32(codes.count - 1)), 1: .int32s(inputs), 2: .int32s(outputs)]
        if let options { table[3] = .uint8(optionsType); table[4] = .table(options) }
        if let customOptions { table[5] = .bytes(customOptions) }
        operators.append(table)
    }

    /// The model's bytes.
    public func build() -> [UInt8] {
        let subgraph: [Int: Field] = [0: .tables(tensors), 1: .int32s(inputs), 2: .int32s(outputs), 3: .tables(operators), 4: .string("main")]
        let model: [Int: Field] = [0: .uint32(3), 1: .tables(codes), 2: .tables([subgraph]), 3: .string("hostile"), 4: .tables(buffers)]
        var writer = Writer()
        writer.bytes = [0, 0, 0, 0] + Array("TFL3".utf8)
        let root = writer.write(table: model)
        writer.patch(at: 0, to: root)
        return writer.bytes
    }

    private struct Writer {
        var bytes: [UInt8] = []

        mutating func align(_ n: Int, after extra: Int = 0) {
            while (bytes.count + extra) % n != 0 { bytes.append(0) }
        }

        mutating func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }

        mutating func put<T: FixedWidthInteger>(_ value: T, at position: Int) {
            withUnsafeBytes(of: value.littleEndian) { for (i, byte) in $0.enumerated() { bytes[position + i] = byte } }
        }

        /// Points the uoffset at `position` to `target`.
        mutating func patch(at position: Int, to target: Int) { put(UInt32(target - position), at: position) }

        static func size(_ field: Field) -> Int {
            switch field {
            case .bool, .int8, .uint8: return 1
            default: return 4
            }
        }

        mutating func write(table fields: [Int: Field]) -> Int {
            let numbers = fields.keys.sorted()
            let fieldCount = (numbers.last ?? -1) + 1
            // Layout of the table: its soffset, then each field at its alignment.
            var layout: [Int: Int] = [:]
            var offset = 4
            for number in numbers {
                let size = Self.size(fields[number]!)
                while offset % size != 0 { offset += 1 }
                layout[number] = offset
                offset += size
            }
            let tableSize = (offset + 3) / 4 * 4
            align(2)
            let vtable = bytes.count
            append(UInt16(4 + 2 * fieldCount))
            append(UInt16(tableSize))
            for number in 0..<fieldCount { append(UInt16(layout[number] ?? 0)) }
            align(4)
            let table = bytes.count
            bytes += Array(repeating: 0, count: tableSize)
            put(Int32(table - vtable), at: table)
            var children: [(Int, Field)] = []
            for number in numbers {
                let at = table + layout[number]!
                switch fields[number]! {
                case let .bool(v): bytes[at] = v ? 1 : 0
                case let .int8(v): bytes[at] = UInt8(bitPattern: v)
                case let .uint8(v): bytes[at] = v
                case let .int32(v): put(v, at: at)
                case let .uint32(v): put(v, at: at)
                case let .float(v): put(v.bitPattern, at: at)
                case let child: children.append((at, child))
                }
            }
            for (at, child) in children { patch(at: at, to: write(child: child)) }
            return table
        }

        mutating func write(child: Field) -> Int {
            switch child {
            case let .table(fields): return write(table: fields)
            case let .tables(tables):
                align(4)
                let start = bytes.count
                append(UInt32(tables.count))
                bytes += Array(repeating: 0, count: 4 * tables.count)
                for (i, table) in tables.enumerated() { patch(at: start + 4 + 4 * i, to: write(table: table)) }
                return start
            case let .int32s(values): return vector(values.count, elementSize: 4) { w in for v in values { w.append(v) } }
            case let .int64s(values): return vector(values.count, elementSize: 8) { w in for v in values { w.append(v) } }
            case let .floats(values): return vector(values.count, elementSize: 4) { w in for v in values { w.append(v.bitPattern) } }
            case let .bytes(values): return vector(values.count, elementSize: 16) { w in w.bytes += values }
            case let .string(text):
                let utf8 = Array(text.utf8)
                return vector(utf8.count, elementSize: 4) { w in w.bytes += utf8 + [0] }
            default: fatalError("not a child field")
            }
        }

        /// A vector whose elements start at a multiple of `elementSize` (at least 4, the count's own alignment).
        mutating func vector(_ count: Int, elementSize: Int, _ body: (inout Writer) -> Void) -> Int {
            align(max(elementSize, 4), after: 4)
            let start = bytes.count
            append(UInt32(count))
            body(&self)
            return start
        }
    }
}
