import Foundation

/// Writes a zip of stored (uncompressed) members, for tests that need a bundle that is damaged or missing a member.
/// (The fixtures under Tests/Fixtures come from Python's zipfile; this builds variants of real bundles at test time
/// without copying models into the repository.)
public enum StoredZip {
    public static func data(_ members: [(name: String, bytes: [UInt8])]) -> Data {
        var out = Data(), central = Data()
        func u16(_ v: Int, _ d: inout Data) { d.append(contentsOf: [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)]) }
        func u32(_ v: UInt32, _ d: inout Data) { for s in stride(from: 0, to: 32, by: 8) { d.append(UInt8(v >> UInt32(s) & 0xFF)) } }
        for member in members {
            let name = Array(member.name.utf8), crc = crc32(member.bytes), offset = UInt32(out.count)
            u32(0x0403_4B50, &out); u16(20, &out); u16(0, &out); u16(0, &out); u16(0, &out); u16(0, &out)
            u32(crc, &out); u32(UInt32(member.bytes.count), &out); u32(UInt32(member.bytes.count), &out)
            u16(name.count, &out); u16(0, &out); out.append(contentsOf: name); out.append(contentsOf: member.bytes)
            u32(0x0201_4B50, &central); u16(20, &central); u16(20, &central); u16(0, &central); u16(0, &central)
            u16(0, &central); u16(0, &central); u32(crc, &central); u32(UInt32(member.bytes.count), &central)
            u32(UInt32(member.bytes.count), &central); u16(name.count, &central); u16(0, &central); u16(0, &central)
            u16(0, &central); u16(0, &central); u32(0, &central); u32(offset, &central); central.append(contentsOf: name)
        }
        let centralOffset = UInt32(out.count)
        out.append(central)
        u32(0x0605_4B50, &out); u16(0, &out); u16(0, &out); u16(members.count, &out); u16(members.count, &out)
        u32(UInt32(central.count), &out); u32(centralOffset, &out); u16(0, &out)
        return out
    }

    /// CRC-32 (IEEE, reflected), as zip stores it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
