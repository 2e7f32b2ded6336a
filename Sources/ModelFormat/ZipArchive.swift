import CVisionTasksZlib

/// A zip archive read from its central directory, members kept in place.
///
/// Written for `.task` bundles and for the label files TFLite metadata appends to a `.tflite`: both store their
/// members uncompressed, so a member is a slice of the archive's bytes. Deflated members are inflated on request.
/// Data before the archive (a flatbuffer the zip was appended to) is accounted for the way `unzip` does: the
/// difference between where the central directory is and where it says it is shifts every member.
public struct ZipArchive: Sendable {
    public struct Entry: Sendable {
        public let name: String
        /// 0 = stored, 8 = deflate.
        public let method: UInt16
        public let crc32: UInt32
        public let compressedSize: Int
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

    /// Whether `bytes` end in something that looks like a zip directory (the cheap test, no parsing).
    public static func containsArchive(_ bytes: ByteSlice) -> Bool {
        findEndOfCentralDirectory(bytes) != nil
    }

    private static func findEndOfCentralDirectory(_ bytes: ByteSlice) -> Int? {
        guard bytes.count >= 22 else { return nil }
        // The record is 22 bytes plus a comment of at most 65535 bytes.
        let lowest = max(0, bytes.count - 22 - 65535)
        var position = bytes.count - 22
        while position >= lowest {
            if bytes.load(UInt32.self, at: position) == endOfCentralDirectory {
                let commentLength = Int(bytes.load(UInt16.self, at: position + 20))
                if position + 22 + commentLength == bytes.count { return position }
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
           eocd >= 20, bytes.load(UInt32.self, at: eocd - 20) == Self.zip64Locator {
            // ZIP64: the locator points at a larger record. Trust its position only relative to the locator.
            let record = eocd - 20 - 56
            guard record >= 0, bytes.load(UInt32.self, at: record) == Self.zip64EndOfCentralDirectory else {
                throw .notAZipArchive(reason: "ZIP64 locator without its record")
            }
            let count = bytes.load(UInt64.self, at: record + 32)
            let size = bytes.load(UInt64.self, at: record + 40)
            let offset = bytes.load(UInt64.self, at: record + 48)
            guard count <= UInt64(bytes.count), size <= UInt64(bytes.count), offset <= UInt64(bytes.count) else {
                throw .notAZipArchive(reason: "ZIP64 directory larger than the file")
            }
            entryCount = Int(count)
            directorySize = Int(size)
            directoryOffset = Int(offset)
            directoryEnd = record
        }
        guard directorySize <= directoryEnd else {
            throw .notAZipArchive(reason: "central directory of \(directorySize) bytes does not fit")
        }
        let directoryStart = directoryEnd - directorySize
        let shift = directoryStart - directoryOffset
        guard shift >= 0 else {
            throw .notAZipArchive(reason: "central directory offset \(directoryOffset) past its position \(directoryStart)")
        }
        guard entryCount <= directorySize / 46 else {
            throw .notAZipArchive(reason: "\(entryCount) entries cannot fit in \(directorySize) bytes")
        }

        var entries: [Entry] = []
        entries.reserveCapacity(entryCount)
        var position = directoryStart
        for index in 0..<entryCount {
            guard position <= directoryEnd - 46, bytes.load(UInt32.self, at: position) == Self.centralHeader else {
                throw .notAZipArchive(reason: "central directory entry \(index) is damaged")
            }
            let flags = bytes.load(UInt16.self, at: position + 8)
            let method = bytes.load(UInt16.self, at: position + 10)
            let crc = bytes.load(UInt32.self, at: position + 16)
            var compressed = Int(bytes.load(UInt32.self, at: position + 20))
            var uncompressed = Int(bytes.load(UInt32.self, at: position + 24))
            let nameLength = Int(bytes.load(UInt16.self, at: position + 28))
            let extraLength = Int(bytes.load(UInt16.self, at: position + 30))
            let commentLength = Int(bytes.load(UInt16.self, at: position + 32))
            var localOffset = Int(bytes.load(UInt32.self, at: position + 42))
            let variable = position + 46
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
                    func next() -> Int? {
                        guard field + 8 <= extra + 4 + size else { return nil }
                        defer { field += 8 }
                        return Int(clamping: bytes.load(UInt64.self, at: field))
                    }
                    if uncompressed == 0xFFFF_FFFF, let v = next() { uncompressed = v }
                    if compressed == 0xFFFF_FFFF, let v = next() { compressed = v }
                    if localOffset == 0xFFFF_FFFF, let v = next() { localOffset = v }
                }
                extra += 4 + size
            }
            position = extraEnd + commentLength

            let local = localOffset + shift
            guard local >= 0, local <= bytes.count - 30, bytes.load(UInt32.self, at: local) == Self.localHeader else {
                throw .notAZipArchive(reason: "local header of '\(name)' is missing")
            }
            let dataStart = local + 30 + Int(bytes.load(UInt16.self, at: local + 26)) + Int(bytes.load(UInt16.self, at: local + 28))
            guard compressed <= bytes.count, dataStart <= bytes.count - compressed else {
                throw .outOfRange(what: "zip member '\(name)'", offset: dataStart, length: compressed, size: bytes.count)
            }
            entries.append(Entry(
                name: name, method: method, crc32: crc, compressedSize: compressed, uncompressedSize: uncompressed,
                flags: flags, storedBytes: try bytes.slice(at: dataStart, count: compressed, what: "zip member '\(name)'")))
        }
        self.entries = entries
    }

    /// The entry called `name`, if any.
    public func entry(named name: String) -> Entry? { entries.first { $0.name == name } }

    /// The member's uncompressed bytes: in place when stored, inflated into new storage when deflated.
    public func contents(of entry: Entry) throws(FormatError) -> ByteSlice {
        if entry.flags & 1 != 0 { throw .unsupportedZipFeature(member: entry.name, feature: "encryption") }
        switch entry.method {
        case 0:
            guard entry.uncompressedSize == entry.compressedSize else {
                throw .corruptZipMember(member: entry.name, reason: "stored member with two different sizes")
            }
            return entry.storedBytes
        case 8:
            return try Self.inflate(entry)
        default:
            throw .unsupportedZipFeature(member: entry.name, feature: "compression method \(entry.method)")
        }
    }

    private static func inflate(_ entry: Entry) throws(FormatError) -> ByteSlice {
        // Deflate cannot expand data more than 1032:1, so a larger declared size is a lie we need not allocate for.
        guard entry.uncompressedSize <= maximumInflatedSize,
              entry.uncompressedSize <= entry.compressedSize * 1032 + 1024 else {
            throw .unsupportedZipFeature(member: entry.name, feature: "uncompressed size \(entry.uncompressedSize)")
        }
        var output = [UInt8](repeating: 0, count: entry.uncompressedSize)
        let status: Int32 = entry.storedBytes.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out -> Int32 in
                var stream = z_stream()
                // Negative window bits: raw deflate data, as zip stores it (no zlib header).
                guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
                    return Z_MEM_ERROR
                }
                defer { inflateEnd(&stream) }
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(out.count)
                let result = CVisionTasksZlib.inflate(&stream, Z_FINISH)
                if result == Z_STREAM_END && stream.total_out != UInt(out.count) { return Z_DATA_ERROR }
                return result
            }
        }
        guard status == Z_STREAM_END else {
            throw .corruptZipMember(member: entry.name, reason: "inflate failed (zlib status \(status))")
        }
        let checksum = output.withUnsafeBytes { UInt32(crc32(0, $0.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt($0.count))) }
        guard checksum == entry.crc32 else {
            throw .corruptZipMember(member: entry.name, reason: "CRC-32 mismatch")
        }
        return ByteStorage(copying: output).slice
    }
}
