/// Checked access to a flatbuffer laid out in a ``ByteSlice``.
///
/// Written from the flatbuffers binary format (little-endian; tables reach their vtable through a signed 32-bit
/// offset; offsets to tables, vectors and strings are unsigned 32-bit and relative to where they are stored). Every
/// position is checked before it is read, and every element handed out is charged to a shared ``DecodeBudget``
/// so that a file whose offsets alias each other cannot make decoding take more than linear work.
struct FlatBufferTable {
    let buffer: ByteSlice
    let position: Int
    private let vtable: Int
    private let vtableSize: Int
    let budget: DecodeBudget
    let what: String

    /// The root table: a `uoffset` at byte 0, optionally followed by a 4-byte file identifier.
    static func root(of buffer: ByteSlice, identifier: String?, budget: DecodeBudget, what: String) throws(FormatError) -> FlatBufferTable {
        guard buffer.count >= 8 else {
            throw .truncated(what: what, needed: 8, available: buffer.count)
        }
        if let identifier {
            let found = buffer.withUnsafeBytes { Array($0[4..<8]) }
            guard found == Array(identifier.utf8) else {
                let shown = String(decoding: found.map { (32...126).contains($0) ? $0 : UInt8(ascii: "?") }, as: UTF8.self)
                throw .notAFlatBuffer(reason: "\(what): file identifier is '\(shown)', expected '\(identifier)'")
            }
        }
        let rootOffset = try buffer.read(UInt32.self, at: 0, what: "\(what) root offset")
        return try FlatBufferTable(buffer: buffer, position: Int(rootOffset), budget: budget, what: what)
    }

    init(buffer: ByteSlice, position: Int, budget: DecodeBudget, what: String) throws(FormatError) {
        try budget.charge(1, what: what)
        let soffset = try buffer.read(Int32.self, at: position, what: "\(what) table")
        let vtable = position - Int(soffset)
        let vtableSize = Int(try buffer.read(UInt16.self, at: vtable, what: "\(what) vtable"))
        guard vtableSize >= 4, vtableSize % 2 == 0, vtable <= buffer.count - vtableSize else {
            throw .outOfRange(what: "\(what) vtable", offset: vtable, length: vtableSize, size: buffer.count)
        }
        self.buffer = buffer
        self.position = position
        self.vtable = vtable
        self.vtableSize = vtableSize
        self.budget = budget
        self.what = what
    }

    /// Absolute position of field `index`, or nil when the field is absent (defaulted).
    func fieldPosition(_ index: Int) -> Int? {
        let entry = 4 + 2 * index
        guard entry + 2 <= vtableSize else { return nil }
        let relative = Int(buffer.load(UInt16.self, at: vtable + entry))
        return relative == 0 ? nil : position + relative
    }

    func scalar<T: FixedWidthInteger>(_ index: Int, default value: T, _ name: String) throws(FormatError) -> T {
        guard let at = fieldPosition(index) else { return value }
        return try buffer.read(T.self, at: at, what: "\(what).\(name)")
    }

    func float(_ index: Int, default value: Float, _ name: String) throws(FormatError) -> Float {
        guard let at = fieldPosition(index) else { return value }
        return Float(bitPattern: try buffer.read(UInt32.self, at: at, what: "\(what).\(name)"))
    }

    func bool(_ index: Int, default value: Bool = false, _ name: String) throws(FormatError) -> Bool {
        try scalar(index, default: value ? 1 : 0, name) as UInt8 != 0
    }

    /// Follows the `uoffset` stored at `at`.
    private func target(at: Int, _ name: String) throws(FormatError) -> Int {
        let offset = try buffer.read(UInt32.self, at: at, what: "\(what).\(name) offset")
        return at + Int(offset)
    }

    func table(_ index: Int, _ name: String) throws(FormatError) -> FlatBufferTable? {
        guard let at = fieldPosition(index) else { return nil }
        return try FlatBufferTable(buffer: buffer, position: try target(at: at, name), budget: budget, what: "\(what).\(name)")
    }

    func vector(_ index: Int, elementSize: Int, _ name: String) throws(FormatError) -> FlatBufferVector? {
        guard let at = fieldPosition(index) else { return nil }
        return try FlatBufferVector(
            buffer: buffer, position: try target(at: at, name), elementSize: elementSize, budget: budget,
            what: "\(what).\(name)")
    }

    func string(_ index: Int, _ name: String) throws(FormatError) -> String? {
        guard let bytes = try vector(index, elementSize: 1, name) else { return nil }
        return bytes.slice.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Bytes of a `[ubyte]` field, in place.
    func bytes(_ index: Int, _ name: String) throws(FormatError) -> ByteSlice? {
        try vector(index, elementSize: 1, name)?.slice
    }

    func scalars<T: FixedWidthInteger>(_ index: Int, as _: T.Type, _ name: String) throws(FormatError) -> [T]? {
        guard let vector = try vector(index, elementSize: MemoryLayout<T>.size, name) else { return nil }
        return vector.slice.withUnsafeBytes { raw in
            Array(unsafeUninitializedCapacity: vector.count) { elements, initialized in
                // Flatbuffers are little-endian, like every platform we build for; the copy needs no alignment.
                UnsafeMutableRawBufferPointer(elements).copyMemory(from: raw)
                initialized = vector.count
            }.map { T(littleEndian: $0) }
        }
    }

    func floats(_ index: Int, _ name: String) throws(FormatError) -> [Float]? {
        try scalars(index, as: UInt32.self, name).map { $0.map(Float.init(bitPattern:)) }
    }

    func tables(_ index: Int, _ name: String) throws(FormatError) -> [FlatBufferTable] {
        guard let vector = try vector(index, elementSize: 4, name) else { return [] }
        var result: [FlatBufferTable] = []
        result.reserveCapacity(vector.count)
        for element in 0..<vector.count {
            result.append(try vector.table(at: element))
        }
        return result
    }

    func strings(_ index: Int, _ name: String) throws(FormatError) -> [String] {
        guard let vector = try vector(index, elementSize: 4, name) else { return [] }
        var result: [String] = []
        for element in 0..<vector.count {
            let at = vector.start + element * 4
            let string = try FlatBufferVector(
                buffer: buffer, position: at + Int(buffer.load(UInt32.self, at: at)), elementSize: 1, budget: budget,
                what: "\(what).\(name)[\(element)]")
            result.append(string.slice.withUnsafeBytes { String(decoding: $0, as: UTF8.self) })
        }
        return result
    }
}

/// A vector: a `UInt32` element count followed by the elements.
struct FlatBufferVector {
    let buffer: ByteSlice
    let start: Int
    let count: Int
    let elementSize: Int
    let budget: DecodeBudget
    let what: String

    init(buffer: ByteSlice, position: Int, elementSize: Int, budget: DecodeBudget, what: String) throws(FormatError) {
        let count = Int(try buffer.read(UInt32.self, at: position, what: "\(what) length"))
        let start = position + 4
        // Int is 64-bit: count (< 2^32) × elementSize (≤ 8) cannot overflow.
        guard count * elementSize <= buffer.count - start else {
            throw .outOfRange(what: what, offset: start, length: count * elementSize, size: buffer.count)
        }
        try budget.charge(count * elementSize, what: what)
        self.buffer = buffer
        self.start = start
        self.count = count
        self.elementSize = elementSize
        self.budget = budget
        self.what = what
    }

    var slice: ByteSlice { ByteSlice(storage: buffer.storage, offset: buffer.offset + start, count: count * elementSize) }

    func table(at index: Int) throws(FormatError) -> FlatBufferTable {
        let at = start + index * 4
        return try FlatBufferTable(
            buffer: buffer, position: at + Int(buffer.load(UInt32.self, at: at)), budget: budget, what: "\(what)[\(index)]")
    }
}

/// Work allowed for decoding one file: a table costs one unit, a vector one unit per byte of its elements.
///
/// A well-formed flatbuffer decodes each of its bytes about once; shared offsets could make a hostile file
/// decode the same large vector over and over, so the budget is twice the file size.
final class DecodeBudget {
    private var remaining: Int

    init(bytes: Int) { remaining = 2 * bytes + 4096 }

    func charge(_ units: Int, what: @autoclosure () -> String) throws(FormatError) {
        remaining -= units
        if remaining < 0 { throw .tooComplex(what: what()) }
    }
}
