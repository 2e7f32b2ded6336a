import CVisionTasksZlib
import Foundation
import VisionTasksModelFormat
import XCTest

/// Crafted zip archives, bundles and model paths from issue #30: each must be a typed `FormatError` naming the
/// problem, never a trap, a hang or an allocation the file's size does not justify.
final class HostileBundleTests: XCTestCase {
    // MARK: ZIP64 values near the integer limits

    /// A central-directory entry whose ZIP64 extra field gives a local-header offset of 2^64 − 1 (read as Int.max,
    /// then shifted by the archive's position: the addition trapped).
    func testZip64LocalHeaderOffsetOfAllOnesIsRefused() throws {
        for offset in [UInt64.max, UInt64(Int64.max), UInt64(Int64.max) - 100, 1 << 40] {
            var zip = ZipWriter()
            zip.add(.stored("labels.txt", Array("a\nb\n".utf8)), centralOffset: 0xFFFF_FFFF, zip64: [offset])
            let bytes = zip.archive()
            XCTAssertThrowsError(try TaskBundle(bytes: storage(bytes)), "offset \(offset)") { error in
                guard case let .notAZipArchive(reason) = error as? FormatError else { return XCTFail("\(error)") }
                XCTAssertTrue(reason.contains("labels.txt") && reason.contains("\(offset)"), reason)
            }
        }
    }

    /// The same entry appended to a `.tflite` as its associated-files zip: the model parses, its label zip is a
    /// typed error when read.
    func testZip64OffsetInZipAppendedToAModelIsRefused() throws {
        var zip = ZipWriter()
        zip.add(.stored("labels.txt", Array("a\nb\n".utf8)), centralOffset: 0xFFFF_FFFF, zip64: [UInt64.max])
        let bytes = Self.minimalModel + zip.archive()
        let model = try TFLiteModel(bytes: storage(bytes))
        XCTAssertThrowsError(try model.associatedFiles()) { error in
            guard case .notAZipArchive = error as? FormatError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try model.labels(named: "labels.txt")) { error in
            guard case .notAZipArchive = error as? FormatError else { return XCTFail("\(error)") }
        }
        // As a bundle it is a bare model: one member, the zip is not looked at until labels are asked for.
        XCTAssertEqual(try TaskBundle(bytes: storage(bytes), name: "m.tflite").memberPaths, ["m.tflite"])
    }

    /// ZIP64 sizes of 2^64 − 1: a compressed size past the file, an uncompressed size no inflation accepts.
    func testZip64SizesOfAllOnesAreRefused() throws {
        var zip = ZipWriter()
        zip.add(.stored("a.bin", [1, 2, 3]), centralCompressed: 0xFFFF_FFFF, zip64: [UInt64.max])
        XCTAssertThrowsError(try TaskBundle(bytes: storage(zip.archive()))) { error in
            guard case .outOfRange(what: "zip member 'a.bin'", _, _, _) = error as? FormatError else { return XCTFail("\(error)") }
        }

        var deflated = ZipWriter()
        deflated.add(.deflated("b.bin", Array(repeating: 7, count: 100)), centralUncompressed: 0xFFFF_FFFF, zip64: [UInt64.max])
        XCTAssertThrowsError(try TaskBundle(bytes: storage(deflated.archive()))) { error in
            guard case .unsupportedZipFeature(member: "b.bin", _) = error as? FormatError else { return XCTFail("\(error)") }
        }
    }

    /// An end record that defers to a ZIP64 record whose entry count, size and offset are 2^64 − 1.
    func testZip64DirectoryRecordOfAllOnesIsRefused() throws {
        var zip = ZipWriter()
        zip.add(.stored("a.txt", [1]))
        let bytes = zip.archive(zip64Record: (count: .max, size: .max, offset: .max))
        XCTAssertThrowsError(try ZipArchive(bytes: storage(bytes))) { error in
            guard case let .notAZipArchive(reason) = error as? FormatError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("ZIP64 directory"), reason)
        }
    }

    // MARK: Overlapping entries

    /// Eight directory entries for one deflated member that inflates 1000:1 (issue #30's 131 KB bundle reached
    /// 1.2 GB): refused while reading the directory, before anything is inflated.
    func testEntriesSharingOneMemberAreRefused() throws {
        var zip = ZipWriter()
        let bomb = Member.deflated("m0.bin", Array(repeating: 0, count: 4 << 20))
        XCTAssertLessThan(bomb.data.count, 8 << 10)
        let offset = zip.add(bomb)
        for index in 1..<8 {
            zip.addCentralOnly(bomb.renamed("m\(index).bin"), localOffset: offset)
        }
        let bytes = zip.archive()
        XCTAssertThrowsError(try TaskBundle(bytes: storage(bytes))) { error in
            XCTAssertEqual(error as? FormatError, .overlappingZipMembers(first: "m0.bin", second: "m1.bin"))
            XCTAssertTrue("\(error)".contains("'m0.bin' and 'm1.bin' overlap"), "\(error)")
        }
        XCTAssertThrowsError(try ZipArchive(bytes: storage(bytes))) { error in
            guard case .overlappingZipMembers = error as? FormatError else { return XCTFail("\(error)") }
        }
    }

    /// A second entry whose local header starts inside the first one's data.
    func testEntryInsideAnotherIsRefused() throws {
        var zip = ZipWriter()
        // The second member's local header and data are written inside the first member's data.
        var inner = ZipWriter()
        inner.add(.stored("inner.txt", Array("hidden".utf8)))
        let outer = Member.stored("outer.bin", Array(repeating: 0x20, count: 16) + inner.local)
        let outerOffset = zip.add(outer)
        zip.addCentralOnly(.stored("inner.txt", Array("hidden".utf8)), localOffset: outerOffset + 30 + 9 + 16)
        XCTAssertThrowsError(try TaskBundle(bytes: storage(zip.archive()))) { error in
            XCTAssertEqual(error as? FormatError, .overlappingZipMembers(first: "outer.bin", second: "inner.txt"))
        }
    }

    // MARK: Lazy inflation within a budget

    /// A member that would take the bundle past its inflation budget is harmless until asked for; asking is a
    /// typed error, and the other members still read.
    func testMembersAreInflatedOnlyWhenAskedForWithinTheBudget() throws {
        let small = Array("small member\n".utf8)
        var zip = ZipWriter()
        zip.add(.deflated("small.txt", small))
        zip.add(.deflated("big.bin", Array(repeating: 0, count: 1 << 20)))
        let bundle = try TaskBundle(bytes: storage(zip.archive()), inflationBudget: 64 << 10)
        XCTAssertEqual(bundle.memberPaths, ["small.txt", "big.bin"])
        XCTAssertEqual(bundle.members.map(\.size), [small.count, 1 << 20])
        XCTAssertFalse(try bundle.member("big.bin").isTFLiteModel)
        XCTAssertEqual(try bundle.member("small.txt").bytes.bytes, small)
        XCTAssertThrowsError(try bundle.member("big.bin").bytes) { error in
            XCTAssertEqual(error as? FormatError, .inflationBudgetExceeded(
                member: "big.bin", size: 1 << 20, used: small.count, limit: 64 << 10))
            XCTAssertTrue("\(error)".contains("big.bin"), "\(error)")
        }
        // Listing checks the member through a small buffer, so it is not held to the budget.
        XCTAssertEqual(try BundleSummary(bundle: bundle).members.map(\.size), [small.count, 1 << 20])
    }

    /// The budget is one total over every member, not a per-member cap.
    func testTheBudgetIsSharedByAllMembers() throws {
        var zip = ZipWriter()
        for name in ["a.bin", "b.bin", "c.bin"] { zip.add(.deflated(name, Array(repeating: 1, count: 40_000))) }
        let bundle = try TaskBundle(bytes: storage(zip.archive()), inflationBudget: 100_000)
        XCTAssertEqual(try bundle.member("a.bin").bytes.count, 40_000)
        XCTAssertEqual(try bundle.member("b.bin").bytes.count, 40_000)
        // Asked again, a member is not inflated (nor charged) again.
        XCTAssertTrue(try bundle.member("a.bin").bytes.storage === bundle.member("a.bin").bytes.storage)
        XCTAssertThrowsError(try bundle.member("c.bin").bytes) { error in
            XCTAssertEqual(error as? FormatError, .inflationBudgetExceeded(member: "c.bin", size: 40_000, used: 80_000, limit: 100_000))
        }
    }

    /// Nested bundles are inflated when the bundle is opened (their members must be listed), charged to the
    /// same budget.
    func testNestedBundlesAreChargedToTheBudget() throws {
        var inner = ZipWriter()
        inner.add(.stored("notes.txt", Array(repeating: UInt8(ascii: "n"), count: 50_000)))
        var outer = ZipWriter()
        outer.add(.deflated("inner.task", inner.archive()))
        let bytes = outer.archive()
        XCTAssertEqual(try TaskBundle(bytes: storage(bytes)).memberPaths, ["inner.task/notes.txt"])
        XCTAssertThrowsError(try TaskBundle(bytes: storage(bytes), inflationBudget: 10_000)) { error in
            guard case .inflationBudgetExceeded(member: "inner.task", _, used: 0, limit: 10_000) = error as? FormatError else {
                return XCTFail("\(error)")
            }
        }
    }

    /// A deflated model is told by its identifier without inflating it, and parses when asked for.
    func testDeflatedModelMemberIsRecognized() throws {
        var zip = ZipWriter()
        zip.add(.deflated("model.tflite", Self.minimalModel))
        zip.add(.deflated("labels.txt", Array("a\n".utf8)))
        let bundle = try TaskBundle(bytes: storage(zip.archive()))
        XCTAssertEqual(bundle.members.map(\.isTFLiteModel), [true, false])
        XCTAssertEqual(try bundle.model("model.tflite").version, 3)
    }

    /// A deflated member whose stream is longer than its declared size, or shorter: corrupt, whichever way it is
    /// read (inflated for use, or checked for a listing).
    func testDeclaredSizeThatLiesIsCorrupt() throws {
        for declared in [10, 1000] {
            var zip = ZipWriter()
            zip.add(.deflated("lie.txt", Array(repeating: 9, count: 100)), centralUncompressed: UInt32(declared))
            let bundle = try TaskBundle(bytes: storage(zip.archive()))
            // Checked first: once inflation has failed, the member answers with that failure.
            XCTAssertThrowsError(try bundle.member("lie.txt").verify(), "declared \(declared)") { error in
                guard case .corruptZipMember(member: "lie.txt", _) = error as? FormatError else { return XCTFail("\(error)") }
            }
            XCTAssertThrowsError(try bundle.member("lie.txt").bytes, "declared \(declared)") { error in
                guard case .corruptZipMember(member: "lie.txt", _) = error as? FormatError else { return XCTFail("\(error)") }
            }
        }
    }

    // MARK: Paths that are not regular files

    /// A FIFO blocked `open` until a writer came; now it is refused at once.
    func testFIFOIsRefusedWithoutBlocking() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("model.task").path
        XCTAssertEqual(mkfifo(path, 0o600), 0, String(cString: strerror(errno)))
        let expected = FormatError.fileUnreadable(path: path, reason: "not a regular file")
        XCTAssertThrowsError(try TaskBundle(path: path)) { XCTAssertEqual($0 as? FormatError, expected) }
        XCTAssertThrowsError(try TFLiteModel(path: path)) { XCTAssertEqual($0 as? FormatError, expected) }
        XCTAssertThrowsError(try ByteSlice.mapping(path: path)) { XCTAssertEqual($0 as? FormatError, expected) }
    }

    func testCharacterDeviceIsRefused() throws {
        XCTAssertThrowsError(try TaskBundle(path: "/dev/zero")) { error in
            XCTAssertEqual(error as? FormatError, .fileUnreadable(path: "/dev/zero", reason: "not a regular file"))
        }
    }

    // MARK: Crafting

    private func storage(_ bytes: [UInt8]) -> ByteSlice { ByteStorage(copying: bytes).slice }

    /// The smallest model `TFLiteModel` reads: root offset, `TFL3`, a vtable with one field, a table holding
    /// version 3 (flatbuffers layout: the table's soffset points back at its vtable).
    static let minimalModel: [UInt8] = [
        16, 0, 0, 0, 0x54, 0x46, 0x4C, 0x33,  // root table at 16; identifier
        6, 0, 8, 0, 4, 0, 0, 0,               // vtable at 8: 6 bytes, table of 8 bytes, field 0 at +4; padding
        8, 0, 0, 0, 3, 0, 0, 0,               // table at 16: vtable at 16 − 8; version 3
    ]
}

/// A zip member as written: its name, method, CRC-32 and the bytes stored for it.
private struct Member {
    var name: String
    var method: UInt16
    var crc: UInt32
    var uncompressedSize: Int
    var data: [UInt8]

    static func stored(_ name: String, _ contents: [UInt8]) -> Member {
        Member(name: name, method: 0, crc: checksum(contents), uncompressedSize: contents.count, data: contents)
    }

    static func deflated(_ name: String, _ contents: [UInt8]) -> Member {
        Member(name: name, method: 8, crc: checksum(contents), uncompressedSize: contents.count, data: rawDeflate(contents))
    }

    func renamed(_ name: String) -> Member {
        var copy = self
        copy.name = name
        return copy
    }

    private static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { UInt32(crc32(0, $0.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt($0.count))) }
    }

    /// Raw deflate (no zlib header), as zip stores it.
    private static func rawDeflate(_ bytes: [UInt8]) -> [UInt8] {
        var input = bytes
        var output = [UInt8](repeating: 0, count: bytes.count + bytes.count / 100 + 1024)
        var stream = z_stream()
        precondition(deflateInit2_(&stream, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                                   Int32(MemoryLayout<z_stream>.size)) == Z_OK)
        let written = input.withUnsafeMutableBytes { inRaw in
            output.withUnsafeMutableBytes { outRaw -> Int in
                stream.next_in = inRaw.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_in = uInt(inRaw.count)
                stream.next_out = outRaw.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(outRaw.count)
                precondition(deflate(&stream, Z_FINISH) == Z_STREAM_END)
                return Int(stream.total_out)
            }
        }
        deflateEnd(&stream)
        return Array(output[0..<written])
    }
}

/// A zip written field by field (APPNOTE.TXT 4.3), so that a test can set any one field to a hostile value.
private struct ZipWriter {
    /// Local headers and data.
    var local: [UInt8] = []
    private var central: [UInt8] = []
    private var entryCount = 0

    /// Writes `member`'s local header and data and its directory entry; returns the local header's offset.
    /// `central…` replace the directory's 32-bit fields; `zip64` values fill a ZIP64 extra field (id 1) in order.
    @discardableResult
    mutating func add(_ member: Member, centralCompressed: UInt32? = nil, centralUncompressed: UInt32? = nil,
                      centralOffset: UInt32? = nil, zip64: [UInt64] = []) -> Int {
        let offset = local.count
        let name = Array(member.name.utf8)
        Self.u32(0x0403_4B50, &local); Self.u16(20, &local); Self.u16(0, &local); Self.u16(Int(member.method), &local)
        Self.u16(0, &local); Self.u16(0, &local); Self.u32(member.crc, &local)
        Self.u32(UInt32(member.data.count), &local); Self.u32(UInt32(member.uncompressedSize), &local)
        Self.u16(name.count, &local); Self.u16(0, &local)
        local += name + member.data
        addCentralOnly(member, localOffset: offset, compressed: centralCompressed, uncompressed: centralUncompressed,
                       offset: centralOffset, zip64: zip64)
        return offset
    }

    /// A directory entry only, for a member whose local header is at `localOffset`.
    mutating func addCentralOnly(_ member: Member, localOffset: Int, compressed: UInt32? = nil,
                                 uncompressed: UInt32? = nil, offset: UInt32? = nil, zip64: [UInt64] = []) {
        let name = Array(member.name.utf8)
        var extra: [UInt8] = []
        if !zip64.isEmpty {
            Self.u16(1, &extra); Self.u16(8 * zip64.count, &extra)
            for value in zip64 { Self.u64(value, &extra) }
        }
        Self.u32(0x0201_4B50, &central); Self.u16(20, &central); Self.u16(20, &central); Self.u16(0, &central)
        Self.u16(Int(member.method), &central); Self.u16(0, &central); Self.u16(0, &central); Self.u32(member.crc, &central)
        Self.u32(compressed ?? UInt32(member.data.count), &central)
        Self.u32(uncompressed ?? UInt32(member.uncompressedSize), &central)
        Self.u16(name.count, &central); Self.u16(extra.count, &central); Self.u16(0, &central)
        Self.u16(0, &central); Self.u16(0, &central); Self.u32(0, &central)
        Self.u32(offset ?? UInt32(localOffset), &central)
        central += name + extra
        entryCount += 1
    }

    /// The whole archive; with `zip64Record`, the end record defers to a ZIP64 record holding those values.
    func archive(zip64Record: (count: UInt64, size: UInt64, offset: UInt64)? = nil) -> [UInt8] {
        var out = local + central
        if let record = zip64Record {
            let recordOffset = out.count
            Self.u32(0x0606_4B50, &out); Self.u64(44, &out); Self.u16(45, &out); Self.u16(45, &out)
            Self.u32(0, &out); Self.u32(0, &out); Self.u64(record.count, &out); Self.u64(record.count, &out)
            Self.u64(record.size, &out); Self.u64(record.offset, &out)
            Self.u32(0x0706_4B50, &out); Self.u32(0, &out); Self.u64(UInt64(recordOffset), &out); Self.u32(1, &out)
            Self.u32(0x0605_4B50, &out); Self.u16(0, &out); Self.u16(0, &out); Self.u16(0xFFFF, &out); Self.u16(0xFFFF, &out)
            Self.u32(0xFFFF_FFFF, &out); Self.u32(0xFFFF_FFFF, &out); Self.u16(0, &out)
        } else {
            Self.u32(0x0605_4B50, &out); Self.u16(0, &out); Self.u16(0, &out)
            Self.u16(entryCount, &out); Self.u16(entryCount, &out)
            Self.u32(UInt32(central.count), &out); Self.u32(UInt32(local.count), &out); Self.u16(0, &out)
        }
        return out
    }

    private static func u16(_ value: Int, _ out: inout [UInt8]) {
        out += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]
    }

    private static func u32(_ value: UInt32, _ out: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(value >> UInt32(shift) & 0xFF)) }
    }

    private static func u64(_ value: UInt64, _ out: inout [UInt8]) {
        for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(value >> UInt64(shift) & 0xFF)) }
    }
}
