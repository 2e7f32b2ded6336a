import Foundation

/// The type of a mask's values (MediaPipe's `MPPMaskDataType`, `MaskDataType` in Swift), with its raw values.
public enum MaskDataType: UInt, Sendable, Equatable, CaseIterable {
    /// One byte per pixel, 0 to 255.
    case uInt8 = 0
    /// One float per pixel, 0 to 1.
    case float32 = 1
}

/// A mask the size of the input image (MediaPipe's `MPPMask`, `Mask` in Swift): one value per pixel, row after row.
/// The tasks here produce float masks, values in [0, 1] (``PoseLandmarkerResult/segmentationMasks``).
///
/// As in MediaPipe, ``uint8Data`` and ``float32Data`` point at the values, and reading a mask as the type it is not
/// converts it once (the conversion is kept): a float mask as bytes is each value × 255 truncated toward zero, a byte
/// mask as floats each byte / 255 (MediaPipe's `MPPMask.mm`). Unlike MediaPipe's, whose pointers live only as long as
/// the task that made the mask, the memory belongs to the mask and lives as long as any copy of it does; the pointers
/// must not outlive every copy of the mask. ``float32Values`` and ``uint8Values`` give the values as arrays.
public struct Mask: Sendable, Equatable {
    /// Our earlier name of ``MaskDataType``.
    public typealias DataType = MaskDataType

    public let width: Int
    public let height: Int
    private let storage: MaskStorage

    /// The type the mask's values were produced as.
    public var dataType: MaskDataType { storage.dataType }

    /// The `width × height` values as bytes, 0 to 255 (converted from a float mask on first access).
    public var uint8Data: UnsafePointer<UInt8> { storage.uint8Data }
    /// The `width × height` values as floats, 0 to 1 (converted from a byte mask on first access).
    public var float32Data: UnsafePointer<Float> { storage.float32Data }

    /// The values as an array of floats (``float32Data``, copied).
    public var float32Values: [Float] { Array(UnsafeBufferPointer(start: float32Data, count: storage.count)) }
    /// The values as an array of bytes (``uint8Data``, copied).
    public var uint8Values: [UInt8] { Array(UnsafeBufferPointer(start: uint8Data, count: storage.count)) }

    /// A float mask of `float32Data`'s first `width × height` values (zeros where it holds fewer). `width` and `height`
    /// must not be negative.
    public init(width: Int, height: Int, float32Data: [Float]) {
        self.init(width: width, height: height) { (values: UnsafeMutableBufferPointer<Float>) in
            _ = values.update(fromContentsOf: float32Data.prefix(values.count))
        }
    }

    /// A category mask of `uint8Data`'s first `width × height` values (zeros where it holds fewer). `width` and
    /// `height` must not be negative.
    public init(width: Int, height: Int, uint8Data: [UInt8]) {
        self.init(width: width, height: height) { (values: UnsafeMutableBufferPointer<UInt8>) in
            _ = values.update(fromContentsOf: uint8Data.prefix(values.count))
        }
    }

    /// MediaPipe's initializer: a byte mask of the `width × height` values at `uint8Data`, which are always copied here
    /// (`shouldCopy` is accepted for MediaPipe's signature). Nil when `width` or `height` is negative.
    public init?(uint8Data: UnsafePointer<UInt8>, width: Int, height: Int, shouldCopy: Bool) {
        guard Self.count(width, height) != nil else { return nil }
        self.init(width: width, height: height) { (values: UnsafeMutableBufferPointer<UInt8>) in
            _ = values.update(fromContentsOf: UnsafeBufferPointer(start: uint8Data, count: values.count))
        }
    }

    /// MediaPipe's initializer: a float mask of the `width × height` values at `float32Data`, which are always copied
    /// here (`shouldCopy` is accepted for MediaPipe's signature). Nil when `width` or `height` is negative.
    public init?(float32Data: UnsafePointer<Float>, width: Int, height: Int, shouldCopy: Bool) {
        guard Self.count(width, height) != nil else { return nil }
        self.init(width: width, height: height) { (values: UnsafeMutableBufferPointer<Float>) in
            _ = values.update(fromContentsOf: UnsafeBufferPointer(start: float32Data, count: values.count))
        }
    }

    /// A float mask whose `width × height` values, zero at first, `fill` writes in place.
    package init(width: Int, height: Int, filling fill: (UnsafeMutableBufferPointer<Float>) -> Void) {
        self.width = width
        self.height = height
        storage = MaskStorage(float32Count: Self.validCount(width, height), filling: fill)
    }

    /// A byte mask whose `width × height` values, zero at first, `fill` writes in place.
    package init(width: Int, height: Int, filling fill: (UnsafeMutableBufferPointer<UInt8>) -> Void) {
        self.width = width
        self.height = height
        storage = MaskStorage(uint8Count: Self.validCount(width, height), filling: fill)
    }

    /// The mask itself: its values are never written after it is made, so a copy shares them (MediaPipe's `copy()`
    /// copies, for a mask that must outlive its task; this one needs none).
    public func copy() -> Mask { self }

    /// Same size, same type and equal values.
    public static func == (lhs: Mask, rhs: Mask) -> Bool {
        guard lhs.width == rhs.width, lhs.height == rhs.height, lhs.dataType == rhs.dataType else { return false }
        if lhs.storage === rhs.storage { return true }
        let count = lhs.storage.count
        switch lhs.dataType {
        case .float32:
            return UnsafeBufferPointer(start: lhs.float32Data, count: count).elementsEqual(UnsafeBufferPointer(start: rhs.float32Data, count: count))
        case .uInt8:
            return UnsafeBufferPointer(start: lhs.uint8Data, count: count).elementsEqual(UnsafeBufferPointer(start: rhs.uint8Data, count: count))
        }
    }

    /// `width × height`, or nil when either is negative or the product overflows.
    private static func count(_ width: Int, _ height: Int) -> Int? {
        guard width >= 0, height >= 0 else { return nil }
        let (count, overflow) = width.multipliedReportingOverflow(by: height)
        return overflow ? nil : count
    }

    private static func validCount(_ width: Int, _ height: Int) -> Int {
        guard let count = count(width, height) else { preconditionFailure("a \(width) × \(height) mask") }
        return count
    }
}

/// A mask's values, in memory of its own that never moves (so that ``Mask/float32Data`` can point at it), and the
/// other type's conversion once it has been asked for.
///
/// `@unchecked Sendable`: `native` is written only while the storage is made and only read after; `converted` is
/// made once, under `lock`, and only read after.
private final class MaskStorage: @unchecked Sendable {
    let dataType: MaskDataType
    let count: Int
    private let native: UnsafeMutableRawPointer
    private var converted: UnsafeMutableRawPointer?
    private let lock = NSLock()

    init(float32Count count: Int, filling fill: (UnsafeMutableBufferPointer<Float>) -> Void) {
        dataType = .float32
        self.count = count
        let values = MaskMemory.shared.take(byteCount: max(count, 1) * MemoryLayout<Float>.stride)
            .initializeMemory(as: Float.self, repeating: 0, count: max(count, 1))
        fill(UnsafeMutableBufferPointer(start: values, count: count))
        native = UnsafeMutableRawPointer(values)
    }

    init(uint8Count count: Int, filling fill: (UnsafeMutableBufferPointer<UInt8>) -> Void) {
        dataType = .uInt8
        self.count = count
        let values = MaskMemory.shared.take(byteCount: max(count, 1))
            .initializeMemory(as: UInt8.self, repeating: 0, count: max(count, 1))
        fill(UnsafeMutableBufferPointer(start: values, count: count))
        native = UnsafeMutableRawPointer(values)
    }

    deinit {
        MaskMemory.shared.give(native, byteCount: max(count, 1) * (dataType == .float32 ? MemoryLayout<Float>.stride : 1))
        converted?.deallocate()
    }

    var float32Data: UnsafePointer<Float> {
        guard dataType == .uInt8 else { return UnsafePointer(native.assumingMemoryBound(to: Float.self)) }
        return UnsafePointer(conversion(to: Float.self) { (bytes: UnsafePointer<UInt8>, floats: UnsafeMutablePointer<Float>) in
            // MPPMask.mm: `(float)_uint8Data[i] / 255`.
            for i in 0..<count { floats[i] = Float(bytes[i]) / 255 }
        })
    }

    var uint8Data: UnsafePointer<UInt8> {
        guard dataType == .float32 else { return UnsafePointer(native.assumingMemoryBound(to: UInt8.self)) }
        return UnsafePointer(conversion(to: UInt8.self) { (floats: UnsafePointer<Float>, bytes: UnsafeMutablePointer<UInt8>) in
            // MPPMask.mm: `data[i] = _float32Data[i] * 255`, C's float-to-byte conversion (toward zero); a value C
            // leaves undefined (NaN, outside (-1, 256)) is 0 below and 255 above.
            for i in 0..<count {
                let value = floats[i] * 255
                bytes[i] = value > -1 && value < 256 ? UInt8(value) : value >= 256 ? 255 : 0
            }
        })
    }

    /// The values converted to `T` by `convert` (from the native values), made on first use and kept.
    private func conversion<Source, T: BitwiseCopyable>(to _: T.Type, _ convert: (UnsafePointer<Source>, UnsafeMutablePointer<T>) -> Void) -> UnsafeMutablePointer<T> {
        lock.lock()
        defer { lock.unlock() }
        if let converted { return converted.assumingMemoryBound(to: T.self) }
        let values = UnsafeMutablePointer<T>.allocate(capacity: max(count, 1))
        convert(UnsafePointer(native.assumingMemoryBound(to: Source.self)), values)
        converted = UnsafeMutableRawPointer(values)
        return values
    }
}

/// Freed masks' memory, kept for the next mask of the same size. A task that makes masks every frame (the
/// segmenters, the pose landmarker's segmentation) would otherwise take fresh memory from the C allocator each time —
/// glibc maps large blocks afresh and gives them back on free (or trims its per-thread heaps) — and each 4 KiB of it
/// costs a page fault when first written: about 2 ms of the interactive segmenter's 9 ms a frame outside its model
/// (perf, Zen 4; two 640 × 480 float masks). Bounded, so that a burst of masks of many sizes keeps little: at most
/// `blockLimit` blocks and `byteLimit` bytes wait here; the rest is freed as before.
private final class MaskMemory: @unchecked Sendable {
    static let shared = MaskMemory()
    private let blockLimit = 8, byteLimit = 64 << 20
    private let lock = NSLock()
    /// Guarded by `lock`.
    private var blocks: [(byteCount: Int, pointer: UnsafeMutableRawPointer)] = []
    private var bytes = 0

    /// Memory for `byteCount` bytes: a kept block of exactly that size, or new memory.
    func take(byteCount: Int) -> UnsafeMutableRawPointer {
        lock.lock()
        if let index = blocks.lastIndex(where: { $0.byteCount == byteCount }) {
            let pointer = blocks.remove(at: index).pointer
            bytes -= byteCount
            lock.unlock()
            return pointer
        }
        lock.unlock()
        return UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 16)
    }

    /// Keeps `pointer` (from ``take(byteCount:)``) for a later mask, or frees it; the oldest block kept goes first.
    func give(_ pointer: UnsafeMutableRawPointer, byteCount: Int) {
        guard byteCount <= byteLimit else { return pointer.deallocate() }
        lock.lock()
        var freed: [UnsafeMutableRawPointer] = []
        while !blocks.isEmpty && (blocks.count >= blockLimit || bytes + byteCount > byteLimit) {
            let oldest = blocks.removeFirst()
            bytes -= oldest.byteCount
            freed.append(oldest.pointer)
        }
        blocks.append((byteCount, pointer))
        bytes += byteCount
        lock.unlock()
        for block in freed { block.deallocate() }
    }
}
