/// Affine quantization of a tensor: `real = scale × (quantized − zeroPoint)`, per tensor or per channel.
public struct QuantizationParameters: Sendable, Equatable {
    public var scale: [Float]
    public var zeroPoint: [Int64]
    public var min: [Float]
    public var max: [Float]
    /// The axis the scales run along when there is more than one.
    public var quantizedDimension: Int32
    /// Set when the schema's `details` union holds something other than plain affine parameters.
    public var hasCustomDetails: Bool

    public var isEmpty: Bool { scale.isEmpty && zeroPoint.isEmpty && !hasCustomDetails }
}

/// How one dimension of a sparse tensor is stored (TACO-style, schema `DimensionMetadata`).
public enum SparseDimension: Sendable, Equatable {
    case dense(size: Int32)
    /// Compressed: `segments` delimit, per element of the previous dimension, a run of `indices`.
    case compressed(segments: SparseIndices, indices: SparseIndices)
}

/// A sparse index array read in place: the schema stores it as 8-, 16- or 32-bit integers. Index arrays are
/// the bulk of a sparse model's structure (pose_detector's run to megabytes), so they are not copied at parse.
public struct SparseIndices: RandomAccessCollection, Sendable, Equatable {
    let bytes: ByteSlice
    /// Bytes per element: 1, 2 or 4.
    public let width: Int

    public var startIndex: Int { 0 }
    public var endIndex: Int { bytes.count / width }

    public subscript(position: Int) -> Int32 {
        precondition(position >= 0 && position < endIndex, "sparse index out of range")
        switch width {
        case 1: return Int32(bytes.load(UInt8.self, at: position))
        case 2: return Int32(bytes.load(UInt16.self, at: 2 * position))
        default: return bytes.load(Int32.self, at: 4 * position)
        }
    }

    public static func == (lhs: SparseIndices, rhs: SparseIndices) -> Bool { lhs.elementsEqual(rhs) }
}

/// The sparse encoding of a constant tensor, undone by `DENSIFY` at load.
public struct SparsityParameters: Sendable, Equatable {
    public var traversalOrder: [Int32]
    public var blockMap: [Int32]
    public var dimensions: [SparseDimension]
}

/// A tensor of a subgraph.
public struct Tensor: Sendable {
    public var name: String
    public var type: TensorType
    /// Static shape; the schema's `shape`.
    public var shape: [Int32]
    /// Shape with -1 where a dimension is dynamic; equals `shape` when the model does not say.
    public var shapeSignature: [Int32]
    /// Index into the model's buffers; 0 is the empty sentinel.
    public var bufferIndex: Int
    public var quantization: QuantizationParameters?
    public var sparsity: SparsityParameters?
    public var isVariable: Bool

    /// Number of elements the static shape describes, or nil if it overflows or has negative dimensions.
    public var elementCount: Int? {
        var product = 1
        for dimension in shape {
            guard dimension >= 0 else { return nil }
            let (next, overflow) = product.multipliedReportingOverflow(by: Int(dimension))
            if overflow { return nil }
            product = next
        }
        return product
    }
}

extension Tensor {
    // Field numbers of table `Tensor` in schema.fbs.
    static func decode(_ t: FlatBufferTable) throws(FormatError) -> Tensor {
        let shape = try t.scalars(0, as: Int32.self, "shape") ?? []
        let rawType: UInt8 = try t.scalar(1, default: 0, "type")
        guard let type = TensorType(rawValue: rawType) else {
            throw .invalidValue(what: "tensor type", value: Int64(rawType))
        }
        let buffer: UInt32 = try t.scalar(2, default: 0, "buffer")
        return Tensor(
            name: try t.string(3, "name") ?? "",
            type: type,
            shape: shape,
            shapeSignature: try t.scalars(7, as: Int32.self, "shape_signature") ?? shape,
            bufferIndex: Int(buffer),
            quantization: try t.table(4, "quantization").map(QuantizationParameters.decode),
            sparsity: try t.table(6, "sparsity").map(SparsityParameters.decode),
            isVariable: try t.bool(5, "is_variable"))
    }
}

extension QuantizationParameters {
    static func decode(_ t: FlatBufferTable) throws(FormatError) -> QuantizationParameters {
        let detailsTag: UInt8 = try t.scalar(4, default: 0, "details_type")
        return QuantizationParameters(
            scale: try t.floats(2, "scale") ?? [],
            zeroPoint: try t.scalars(3, as: Int64.self, "zero_point") ?? [],
            min: try t.floats(0, "min") ?? [],
            max: try t.floats(1, "max") ?? [],
            quantizedDimension: try t.scalar(6, default: 0, "quantized_dimension"),
            hasCustomDetails: detailsTag != 0)
    }
}

extension SparsityParameters {
    static func decode(_ t: FlatBufferTable) throws(FormatError) -> SparsityParameters {
        var dimensions: [SparseDimension] = []
        for dimension in try t.tables(2, "dim_metadata") {
            let format: UInt8 = try dimension.scalar(0, default: 0, "format")
            switch format {
            case 0:
                dimensions.append(.dense(size: try dimension.scalar(1, default: 0, "dense_size")))
            case 1:
                dimensions.append(.compressed(
                    segments: try indexVector(dimension, tagField: 2, "array_segments"),
                    indices: try indexVector(dimension, tagField: 4, "array_indices")))
            default:
                throw .invalidValue(what: "sparse dimension format", value: Int64(format))
            }
        }
        return SparsityParameters(
            traversalOrder: try t.scalars(0, as: Int32.self, "traversal_order") ?? [],
            blockMap: try t.scalars(1, as: Int32.self, "block_map") ?? [],
            dimensions: dimensions)
    }

    /// Reads a `SparseIndexVector` union (tag 1: Int32Vector, 2: Uint16Vector, 3: Uint8Vector) in place.
    private static func indexVector(_ t: FlatBufferTable, tagField: Int, _ name: String) throws(FormatError) -> SparseIndices {
        let tag: UInt8 = try t.scalar(tagField, default: 0, "\(name)_type")
        let widths: [UInt8: Int] = [1: 4, 2: 2, 3: 1]
        guard let width = widths[tag] else { throw .invalidValue(what: "\(name) index vector type", value: Int64(tag)) }
        guard let values = try t.table(tagField + 1, name) else {
            throw .invalidValue(what: "\(name) missing for sparse dimension, tag", value: Int64(tag))
        }
        let vector = try values.vector(0, elementSize: width, "values")
        return SparseIndices(bytes: vector?.slice ?? values.buffer.emptySlice, width: width)
    }
}
