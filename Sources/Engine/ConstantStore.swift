import VisionTasksModelFormat

/// Constant tensors, copied out of the model into aligned memory at load, and the results of folding.
///
/// Owned by an ``ExecutionPlan`` and never written after the plan is built, so plans can be shared.
final class ConstantStore: @unchecked Sendable {
    // @unchecked: written only while the plan is built (single-threaded), read-only afterwards.
    struct Entry {
        let pointer: UnsafeMutableRawPointer
        let byteCount: Int
        let type: TensorType
    }

    private(set) var entries: [Int: Entry] = [:]
    private var allocations: [UnsafeMutableRawPointer] = []

    deinit { for allocation in allocations { allocation.deallocate() } }

    /// Allocates zeroed, 64-byte-aligned memory for constant `tensor`.
    @discardableResult
    func allocate(tensor: Int, type: TensorType, byteCount: Int) -> UnsafeMutableRawPointer {
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: max(byteCount, 1), alignment: 64)
        pointer.initializeMemory(as: UInt8.self, repeating: 0, count: max(byteCount, 1))
        allocations.append(pointer)
        entries[tensor] = Entry(pointer: pointer, byteCount: byteCount, type: type)
        return pointer
    }

    func store(tensor: Int, type: TensorType, bytes: ByteSlice) {
        let pointer = allocate(tensor: tensor, type: type, byteCount: bytes.count)
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress { pointer.copyMemory(from: base, byteCount: source.count) }
        }
    }

    func contains(_ tensor: Int) -> Bool { entries[tensor] != nil }

    /// The constant's values as Float (from float32 or float16 storage).
    func floats(_ tensor: Int) -> [Float]? {
        guard let entry = entries[tensor] else { return nil }
        switch entry.type {
        case .float32:
            let count = entry.byteCount / 4
            return Array(UnsafeBufferPointer(start: entry.pointer.assumingMemoryBound(to: Float.self), count: count))
        case .float16:
            let count = entry.byteCount / 2
            let halves = entry.pointer.assumingMemoryBound(to: UInt16.self)
            return (0..<count).map { Float(Float16(bitPattern: halves[$0])) }
        default:
            return nil
        }
    }

    /// The constant's values as Int (from int32 or int64 storage).
    func integers(_ tensor: Int) -> [Int]? {
        guard let entry = entries[tensor] else { return nil }
        switch entry.type {
        case .int32:
            let values = entry.pointer.assumingMemoryBound(to: Int32.self)
            return (0..<(entry.byteCount / 4)).map { Int(values[$0]) }
        case .int64:
            let values = entry.pointer.assumingMemoryBound(to: Int64.self)
            return (0..<(entry.byteCount / 8)).map { Int(values[$0]) }
        default:
            return nil
        }
    }
}
