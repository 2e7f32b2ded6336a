#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Immutable bytes that model readers look at in place: a memory-mapped file or an owned copy.
///
/// Everything parsed from a model (tensors' constant data, bundle members, metadata) is a ``ByteSlice`` into one
/// of these, so opening a model copies no weights.
public final class ByteStorage: @unchecked Sendable {
    // @unchecked: the bytes are never written after init, and release happens once in deinit.
    let base: UnsafeRawPointer
    public let count: Int
    private let release: () -> Void

    /// Copies `bytes` into storage of its own.
    public init<Bytes: Collection>(copying bytes: Bytes) where Bytes.Element == UInt8 {
        let count = bytes.count
        // Allocate at least one byte so that `base` is always a valid pointer, and 16-byte aligned as
        // flatbuffers' `force_align: 16` buffers expect.
        let memory = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
        UnsafeMutableRawBufferPointer(start: memory, count: count).copyBytes(from: bytes)
        self.base = UnsafeRawPointer(memory)
        self.count = count
        self.release = { memory.deallocate() }
    }

    /// Wraps memory the caller owns and keeps alive and unchanged for the storage's lifetime.
    ///
    /// Used by tests that mutate one buffer in place between parses instead of copying megabytes per mutant.
    public init(unownedBytes: UnsafeRawBufferPointer) {
        self.base = unownedBytes.baseAddress ?? UnsafeRawPointer(bitPattern: 16)!
        self.count = unownedBytes.count
        self.release = {}
    }

    /// Storage of `count` bytes that `fill` writes once, before anyone else sees them (an inflated zip member).
    /// What `fill` leaves unwritten is zero.
    init<E: Error>(count: Int, fill: (UnsafeMutableRawBufferPointer) throws(E) -> Void) throws(E) {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: max(count, 1))
        do {
            try fill(UnsafeMutableRawBufferPointer(start: memory, count: count))
        } catch {
            memory.deallocate()
            throw error
        }
        self.base = UnsafeRawPointer(memory)
        self.count = count
        self.release = { memory.deallocate() }
    }

    private init(base: UnsafeRawPointer, count: Int, release: @escaping () -> Void) {
        self.base = base
        self.count = count
        self.release = release
    }

    /// Maps the regular file at `path` read-only.
    ///
    /// The one way this package opens a file it reads: anything else (a FIFO, a device, a directory) is refused
    /// with ``FormatError/fileUnreadable(path:reason:)`` before a byte is read. `O_NONBLOCK` is what makes that
    /// refusal possible for a FIFO: without it, `open` waits for a writer that may never come. For a regular file
    /// the flag changes nothing.
    public static func mapping(path: String) throws(FormatError) -> ByteStorage {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            throw .fileUnreadable(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw .fileUnreadable(path: path, reason: String(cString: strerror(errno)))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw .fileUnreadable(path: path, reason: "not a regular file")
        }
        guard let size = Int(exactly: info.st_size), size >= 0 else {
            throw .fileUnreadable(path: path, reason: "size \(info.st_size)")
        }
        if size == 0 { return ByteStorage(copying: [UInt8]()) }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
            throw .fileUnreadable(path: path, reason: String(cString: strerror(errno)))
        }
        return ByteStorage(base: UnsafeRawPointer(mapped), count: size) { munmap(mapped, size) }
    }

    deinit { release() }

    /// The whole storage as a slice.
    public var slice: ByteSlice { ByteSlice(storage: self, offset: 0, count: count) }
}

/// A view of `count` bytes starting at `offset` in a ``ByteStorage``; cheap to copy, keeps its storage alive.
public struct ByteSlice: Sendable {
    public let storage: ByteStorage
    public let offset: Int
    public let count: Int

    init(storage: ByteStorage, offset: Int, count: Int) {
        precondition(offset >= 0 && count >= 0 && offset <= storage.count - count, "ByteSlice bounds are checked by callers")
        self.storage = storage
        self.offset = offset
        self.count = count
    }

    public var isEmpty: Bool { count == 0 }

    /// An empty slice of the same storage.
    var emptySlice: ByteSlice { ByteSlice(storage: storage, offset: offset, count: 0) }

    /// A sub-range, checked against this slice.
    public func slice(at start: Int, count length: Int, what: @autoclosure () -> String) throws(FormatError) -> ByteSlice {
        guard start >= 0, length >= 0, start <= count, length <= count - start else {
            throw .outOfRange(what: what(), offset: start, length: length, size: count)
        }
        return ByteSlice(storage: storage, offset: offset + start, count: length)
    }

    /// Calls `body` with the bytes in place. The pointer must not escape `body`.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: storage.base + offset, count: count))
    }

    /// A copy of the bytes, for small things (names, label files).
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

    /// The bytes as a `Data` copy.
    public var data: Data { withUnsafeBytes { Data($0) } }

    @inline(__always)
    func load<T: FixedWidthInteger>(_: T.Type, at position: Int) -> T {
        T(littleEndian: (storage.base + offset + position).loadUnaligned(as: T.self))
    }

    /// Reads a little-endian integer at `position`, checked.
    @inline(__always)
    func read<T: FixedWidthInteger>(_ type: T.Type, at position: Int, what: @autoclosure () -> String) throws(FormatError) -> T {
        let size = MemoryLayout<T>.size
        guard position >= 0, position <= count - size else {
            throw .outOfRange(what: what(), offset: position, length: size, size: count)
        }
        return load(type, at: position)
    }
}

extension ByteSlice {
    /// Opens `path` by mapping it.
    public static func mapping(path: String) throws(FormatError) -> ByteSlice {
        try ByteStorage.mapping(path: path).slice
    }
}
