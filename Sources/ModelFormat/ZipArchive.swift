import CVisionTasksZlib
import Foundation

/// A zip archive read from its central directory, members kept in place.
///
/// Written for `.task` bundles and for the label files TFLite metadata appends to a `.tflite`: both store their
/// members uncompressed, so a member is a slice of the archive's bytes. Deflated members are inflated on request.
/// Data before the archive (a flatbuffer the zip was appended to) is accounted for the way `unzip` does: the
/// difference between where the central directory is and where it says it is shifts every member.
///
/// Every offset and size the directory gives is checked against the bytes before it takes part in any arithmetic,
/// and members whose bytes overlap are refused: an archive whose entries all point at one deflated member would
/// otherwise inflate it once per entry.
public struct ZipArchive: Sendable {
    public struct Entry: Sendable {
        public let name: String
        /// 0 = stored, 8 = deflate.
        public let method: UInt16
        public let crc32: UInt32
        public let compressedSize: Int
        /// As the directory declares it; checked against the data only when the member is inflated.
        public let uncompressedSize: Int
        let flags: UInt16
        /// The member's bytes as stored in the archive.
        let storedBytes: ByteSlice
    }

    public let entries: [Entry]

    /// Largest member we inflate: far above any model, far below what would exhaust memory.
    public static let maximumInflatedSize = 1 << 31

    private static let endOfCentralDirectory: UInt32 = 0x0605_4b50
    private static let zip64EndOfCentralDirectory: UInt32 = 0x0606_4b50
    private static let zip64Locator: UInt32 = 0x0706_4b50
    private static let centralHeader: UInt32 = 0x0201_4b50
    private static let localHeader: UInt32 = 0x0403_4b50
    /// Fixed sizes from APPNOTE.TXT (4.3.7, 4.3.12, 4.3.14, 4.3.15, 4.3.16).
    private static let localHeaderSize = 30
    private static let centralHeaderSize = 46
    private static let endRecordSize = 22
    private static let zip64LocatorSize = 20
    private static let zip64RecordSize = 56

    /// Whether `bytes` end in something that looks like a zip directory (the cheap test, no parsing).
    public static func containsArchive(_ bytes: ByteSlice) -> Bool {
        findEndOfCentralDirectory(bytes) != nil
    }

    private static func findEndOfCentralDirectory(_ bytes: ByteSlice) -> Int? {
        guard bytes.count >= endRecordSize else { return nil }
        // The record is 22 bytes plus a comment of at most 65535 bytes.
        let lowest = max(0, bytes.count - endRecordSize - 65535)
        var position = bytes.count - endRecordSize
        while position >= lowest {
            if bytes.load(UInt32.self, at: position) == endOfCentralDirectory {
                let commentLength = Int(bytes.load(UInt16.self, at: position + 20))
                // position ≤ count − 22 and the comment length < 2^16: no overflow.
                if position + endRecordSize + commentLength == bytes.count { return position }
            }
            position -= 1
        }
        return nil
    }

    public init(bytes: ByteSlice) throws(FormatError) {
        guard let eocd = Self.findEndOfCentralDirectory(bytes) else {
            throw .notAZipArchive(reason: "no end-of-central-directory record")
        }
        var entryCount = Int(bytes.load(UInt16.self, at: eocd + 10))
        var directorySize = Int(bytes.load(UInt32.self, at: eocd + 12))
        var directoryOffset = Int(bytes.load(UInt32.self, at: eocd + 16))
        var directoryEnd = eocd
        if entryCount == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF,
           eocd >= Self.zip64LocatorSize, bytes.load(UInt32.self, at: eocd - Self.zip64LocatorSize) == Self.zip64Locator {
            // ZIP64: the locator points at a larger record. Trust its position only relative to the locator.
            let record = eocd - Self.zip64LocatorSize - Self.zip64RecordSize
            guard record >= 0, bytes.load(UInt32.self, at: record) == Self.zip64EndOfCentralDirectory else {
                throw .notAZipArchive(reason: "ZIP64 locator without its record")
            }
            let count = bytes.load(UInt64.self, at: record + 32)
            let size = bytes.load(UInt64.self, at: record + 40)
            let offset = bytes.load(UInt64.self, at: record + 48)
            guard count <= UInt64(bytes.count), size <= UInt64(bytes.count), offset <= UInt64(bytes.count) else {
                throw .notAZipArchive(reason: "ZIP64 directory (\(count) entries, \(size) bytes at offset \(offset)) "
                                      + "larger than the \(bytes.count)-byte file")
            }
            entryCount = Int(count)
            directorySize = Int(size)
            directoryOffset = Int(offset)
            directoryEnd = record
        }
        // From here on every value is in 0...bytes.count, so differences of two cannot overflow.
        guard directorySize <= directoryEnd else {
            throw .notAZipArchive(reason: "central directory of \(directorySize) bytes does not fit")
        }
        let directoryStart = directoryEnd - directorySize
        let shift = directoryStart - directoryOffset
        guard shift >= 0 else {
            throw .notAZipArchive(reason: "central directory offset \(directoryOffset) past its position \(directoryStart)")
        }
        guard entryCount <= directorySize / Self.centralHeaderSize else {
            throw .notAZipArchive(reason: "\(entryCount) entries cannot fit in \(directorySize) bytes")
        }

        var entries: [Entry] = []
        entries.reserveCapacity(entryCount)
        // Each member's extent in `bytes`, local header to end of data, for the overlap check.
        var extents: [(range: Range<Int>, entry: Int)] = []
        extents.reserveCapacity(entryCount)
        var position = directoryStart
        for index in 0..<entryCount {
            guard position <= directoryEnd - Self.centralHeaderSize,
                  bytes.load(UInt32.self, at: position) == Self.centralHeader else {
                throw .notAZipArchive(reason: "central directory entry \(index) is damaged")
            }
            let flags = bytes.load(UInt16.self, at: position + 8)
            let method = bytes.load(UInt16.self, at: position + 10)
            let crc = bytes.load(UInt32.self, at: position + 16)
            // 64-bit so that ZIP64 values (any UInt64) are compared, never converted or added, until checked.
            var compressed = UInt64(bytes.load(UInt32.self, at: position + 20))
            var uncompressed = UInt64(bytes.load(UInt32.self, at: position + 24))
            let nameLength = Int(bytes.load(UInt16.self, at: position + 28))
            let extraLength = Int(bytes.load(UInt16.self, at: position + 30))
            let commentLength = Int(bytes.load(UInt16.self, at: position + 32))
            var localOffset = UInt64(bytes.load(UInt32.self, at: position + 42))
            // position ≤ count and three lengths < 2^16 each: no overflow.
            let variable = position + Self.centralHeaderSize
            guard variable + nameLength + extraLength + commentLength <= directoryEnd else {
                throw .notAZipArchive(reason: "central directory entry \(index) runs past the directory")
            }
            let name = String(decoding: try bytes.slice(at: variable, count: nameLength, what: "zip name").bytes, as: UTF8.self)
            // ZIP64 extra field (id 1) replaces the 32-bit values that read 0xFFFFFFFF, in this order.
            var extra = variable + nameLength
            let extraEnd = extra + extraLength
            while extra + 4 <= extraEnd {
                let id = bytes.load(UInt16.self, at: extra)
                let size = Int(bytes.load(UInt16.self, at: extra + 2))
                guard extra + 4 + size <= extraEnd else { break }
                if id == 1 {
                    var field = extra + 4
                    let fieldEnd = extra + 4 + size
                    func next() -> UInt64? {
                        guard field + 8 <= fieldEnd else { return nil }
                        defer { field += 8 }
                        return bytes.load(UInt64.self, at: field)
                    }
                    if uncompressed == 0xFFFF_FFFF, let v = next() { uncompressed = v }
                    if compressed == 0xFFFF_FFFF, let v = next() { compressed = v }
                    if localOffset == 0xFFFF_FFFF, let v = next() { localOffset = v }
                }
                extra += 4 + size
            }
            position = extraEnd + commentLength

            // The local header lies inside the bytes: offset + shift + 30 ≤ count, checked without overflow
            // (offset is any UInt64; shift and count are in 0...count).
            let room = UInt64(max(0, bytes.count - Self.localHeaderSize))
            guard bytes.count >= Self.localHeaderSize, localOffset <= room, UInt64(shift) <= room - localOffset else {
                throw .notAZipArchive(reason: "local header of '\(name)' at offset \(localOffset) is outside the "
                                      + "\(bytes.count)-byte archive")
            }
            let local = Int(localOffset) + shift
            guard bytes.load(UInt32.self, at: local) == Self.localHeader else {
                throw .notAZipArchive(reason: "local header of '\(name)' is missing")
            }
            let localNameLength = Int(bytes.load(UInt16.self, at: local + 26))
            let localExtraLength = Int(bytes.load(UInt16.self, at: local + 28))
            // local ≤ count − 30 and two lengths < 2^16 each: no overflow.
            let dataStart = local + Self.localHeaderSize + localNameLength + localExtraLength
            guard dataStart <= bytes.count, compressed <= UInt64(bytes.count - dataStart) else {
                throw .outOfRange(what: "zip member '\(name)'", offset: dataStart, length: Int(clamping: compressed),
                                  size: bytes.count)
            }
            let compressedSize = Int(compressed)
            // The declared uncompressed size is only ever compared, never added to; one above Int.max is kept as
            // Int.max, which no inflation accepts.
            let uncompressedSize = Int(clamping: uncompressed)
            extents.append((local..<(dataStart + compressedSize), entries.count))
            entries.append(Entry(
                name: name, method: method, crc32: crc, compressedSize: compressedSize,
                uncompressedSize: uncompressedSize, flags: flags,
                storedBytes: try bytes.slice(at: dataStart, count: compressedSize, what: "zip member '\(name)'")))
        }
        // Ties in directory order, so that the error names the first two entries that share a start.
        extents.sort { ($0.range.lowerBound, $0.entry) < ($1.range.lowerBound, $1.entry) }
        for (earlier, later) in zip(extents, extents.dropFirst()) where later.range.lowerBound < earlier.range.upperBound {
            throw .overlappingZipMembers(first: entries[earlier.entry].name, second: entries[later.entry].name)
        }
        self.entries = entries
    }

    /// The entry called `name`, if any.
    public func entry(named name: String) -> Entry? { entries.first { $0.name == name } }

    /// The member's uncompressed bytes: in place when stored, inflated into new storage when deflated.
    ///
    /// Inflation is charged to a budget of its own of ``TaskBundle/defaultInflationBudget`` bytes; a bundle shares
    /// one budget between all its members instead (``TaskBundle``).
    public func contents(of entry: Entry) throws(FormatError) -> ByteSlice {
        try Self.contents(of: entry, budget: InflationBudget(limit: InflationBudget.defaultLimit))
    }

    static func contents(of entry: Entry, budget: InflationBudget) throws(FormatError) -> ByteSlice {
        try checkReadable(entry)
        switch entry.method {
        case 0:
            guard entry.uncompressedSize == entry.compressedSize else {
                throw .corruptZipMember(member: entry.name, reason: "stored member with two different sizes")
            }
            return entry.storedBytes
        default:
            try checkInflatable(entry)
            try budget.reserve(entry.uncompressedSize, for: entry.name)
            do {
                return try inflate(entry)
            } catch {
                budget.release(entry.uncompressedSize)
                throw error
            }
        }
    }

    /// Refuses, from the directory alone, an entry that could never be read (encryption, an unknown method, a
    /// declared size no inflation would accept).
    static func checkEntry(_ entry: Entry) throws(FormatError) {
        try checkReadable(entry)
        if entry.method == 8 { try checkInflatable(entry) }
    }

    private static func checkReadable(_ entry: Entry) throws(FormatError) {
        if entry.flags & 1 != 0 { throw .unsupportedZipFeature(member: entry.name, feature: "encryption") }
        guard entry.method == 0 || entry.method == 8 else {
            throw .unsupportedZipFeature(member: entry.name, feature: "compression method \(entry.method)")
        }
    }

    /// Whether a deflated entry may be inflated at all, from the sizes the directory declares.
    private static func checkInflatable(_ entry: Entry) throws(FormatError) {
        // Deflate cannot expand data more than 1032:1, so a larger declared size is a lie we need not allocate for.
        let (ratioBound, overflow) = entry.compressedSize.multipliedReportingOverflow(by: 1032)
        guard entry.uncompressedSize <= maximumInflatedSize, overflow || entry.uncompressedSize - 1024 <= ratioBound else {
            throw .unsupportedZipFeature(member: entry.name, feature: "uncompressed size \(entry.uncompressedSize)")
        }
        // zlib counts input in 32 bits; an honest stream for at most 2 GiB of output is far shorter than 4 GiB.
        guard entry.compressedSize <= Int(UInt32.max) else {
            throw .corruptZipMember(member: entry.name, reason: "compressed size \(entry.compressedSize) for at most "
                                    + "\(entry.uncompressedSize) bytes of output")
        }
    }

    /// Runs `body` with a raw-deflate stream whose input is the entry's stored bytes.
    private static func withInflateStream<R>(
        _ entry: Entry, _ body: (inout z_stream) throws(FormatError) -> R
    ) throws(FormatError) -> R {
        try entry.storedBytes.withUnsafeBytes { (input) throws(FormatError) -> R in
            var stream = z_stream()
            // Negative window bits: raw deflate data, as zip stores it (no zlib header).
            guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                throw .corruptZipMember(member: entry.name, reason: "zlib could not start (out of memory)")
            }
            defer { inflateEnd(&stream) }
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(input.count)  // ≤ UInt32.max: checkInflatable
            return try body(&stream)
        }
    }

    private static func inflate(_ entry: Entry) throws(FormatError) -> ByteSlice {
        let storage = try ByteStorage(count: entry.uncompressedSize) { (out) throws(FormatError) in
            try withInflateStream(entry) { (stream) throws(FormatError) in
                stream.next_out = out.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(out.count)  // ≤ maximumInflatedSize < 2^32
                let status = CVisionTasksZlib.inflate(&stream, Z_FINISH)
                guard status == Z_STREAM_END else {
                    let reason = status == Z_BUF_ERROR && stream.avail_out == 0
                        ? "inflates to more than its declared \(entry.uncompressedSize) bytes"
                        : "inflate failed (zlib status \(status))"
                    throw .corruptZipMember(member: entry.name, reason: reason)
                }
                guard stream.total_out == UInt(out.count) else {
                    throw .corruptZipMember(member: entry.name, reason: "inflates to \(stream.total_out) bytes, "
                                            + "declared \(entry.uncompressedSize)")
                }
            }
            let checksum = UInt32(crc32(0, out.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(out.count)))
            guard checksum == entry.crc32 else {
                throw .corruptZipMember(member: entry.name, reason: "CRC-32 mismatch")
            }
        }
        return storage.slice
    }

    /// Inflates the member through a small buffer, checking its size and CRC-32 without keeping its bytes: what
    /// listing a bundle needs to vouch for a member it does not otherwise read.
    static func verify(_ entry: Entry) throws(FormatError) {
        try checkReadable(entry)
        guard entry.method == 8 else {
            guard entry.uncompressedSize == entry.compressedSize else {
                throw .corruptZipMember(member: entry.name, reason: "stored member with two different sizes")
            }
            return
        }
        try checkInflatable(entry)
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { chunk.deallocate() }
        let checksum = try withInflateStream(entry) { (stream) throws(FormatError) -> UInt32 in
            var checksum = crc32(0, nil, 0)
            while true {
                stream.next_out = chunk.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(chunk.count)
                let status = CVisionTasksZlib.inflate(&stream, Z_NO_FLUSH)
                let produced = chunk.count - Int(stream.avail_out)
                checksum = crc32(checksum, chunk.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(produced))
                guard stream.total_out <= UInt(entry.uncompressedSize) else {
                    throw .corruptZipMember(member: entry.name, reason: "inflates to more than its declared "
                                            + "\(entry.uncompressedSize) bytes")
                }
                if status == Z_STREAM_END { break }
                // Z_BUF_ERROR with output room left: the input ended before the stream did.
                guard status == Z_OK else {
                    throw .corruptZipMember(member: entry.name, reason: "inflate failed (zlib status \(status))")
                }
            }
            guard stream.total_out == UInt(entry.uncompressedSize) else {
                throw .corruptZipMember(member: entry.name, reason: "inflates to \(stream.total_out) bytes, "
                                        + "declared \(entry.uncompressedSize)")
            }
            return UInt32(checksum)
        }
        guard checksum == entry.crc32 else {
            throw .corruptZipMember(member: entry.name, reason: "CRC-32 mismatch")
        }
    }

    /// Up to `count` bytes from the start of the member's contents, or nil when they cannot be read; inflates no
    /// more than those bytes and charges nothing. For telling a model from other members by its identifier.
    static func prefix(of entry: Entry, count: Int) -> [UInt8]? {
        guard (try? checkReadable(entry)) != nil else { return nil }
        if entry.method == 0 {
            return entry.storedBytes.withUnsafeBytes { Array($0.prefix(count)) }
        }
        guard (try? checkInflatable(entry)) != nil else { return nil }
        var output = [UInt8](repeating: 0, count: count)
        let produced = output.withUnsafeMutableBytes { out -> Int? in
            try? withInflateStream(entry) { (stream) throws(FormatError) -> Int in
                stream.next_out = out.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(out.count)
                // Stops when the output is full, the stream ends or the data is damaged; a short prefix says which.
                _ = CVisionTasksZlib.inflate(&stream, Z_SYNC_FLUSH)
                return out.count - Int(stream.avail_out)
            }
        }
        return produced.map { Array(output.prefix($0)) }
    }
}

/// Bytes that inflating zip members may allocate in total, shared by every member of a bundle (nested bundles
/// included), so that a small archive cannot exhaust memory however its members are asked for.
final class InflationBudget: @unchecked Sendable {
    // @unchecked: `used` is read and written under `lock` only.
    let limit: Int
    private var used = 0
    private let lock = NSLock()

    /// 1 GiB: MediaPipe's bundles store their members (nothing to inflate; the largest in Models/ is 9.4 MB, the
    /// heaviest MediaPipe ships some tens of megabytes), and so do NumPy's `savez` archives; what does come deflated
    /// is small files such as label lists. A gigabyte leaves two orders of magnitude of room for a real deflated
    /// bundle while keeping a hostile one below what exhausts a CI runner or a phone. A member is inflated into
    /// memory (it cannot be mapped), so this is also the memory a bundle's deflated members may hold.
    static let defaultLimit = 1 << 30

    init(limit: Int) { self.limit = max(0, limit) }

    func reserve(_ bytes: Int, for member: String) throws(FormatError) {
        lock.lock()
        defer { lock.unlock() }
        guard bytes <= limit - used else {
            throw .inflationBudgetExceeded(member: member, size: bytes, used: used, limit: limit)
        }
        used += bytes
    }

    func release(_ bytes: Int) {
        lock.lock()
        defer { lock.unlock() }
        used -= bytes
    }
}
