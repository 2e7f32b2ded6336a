/// JPEG bytes that carry an EXIF orientation tag: a shared JPEG with one APP1 segment inserted right after its SOI
/// marker. The layout is fixed, byte for byte, because MediaPipe goldens are made from the same bytes
/// (`tools/mediapipe_exif_pixels.py` builds them the same way):
///
///     FF E1, length = 2 + payload length (big-endian), payload:
///     "Exif\0\0", "II" 2A 00 08 00 00 00 (little-endian TIFF, first IFD at 8),
///     01 00 (one entry), 12 01 03 00 01 00 00 00 NN NN 00 00 (tag 0x0112 SHORT ×1 = orientation, little-endian),
///     00 00 00 00 (no next IFD)
public enum EXIFOrientationJPEG {
    /// The APP1 segment, marker included, for `orientation` (any UInt16: hostile values too).
    public static func segment(orientation: UInt16) -> [UInt8] {
        let payload: [UInt8] = Array("Exif\0\0".utf8)
            + [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00]
            + [0x01, 0x00]
            + [0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, UInt8(orientation & 0xFF), UInt8(orientation >> 8), 0x00, 0x00]
            + [0x00, 0x00, 0x00, 0x00]
        let length = payload.count + 2
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// `jpeg` with ``segment(orientation:)`` inserted after its first two bytes (the SOI marker, FF D8).
    public static func tagging(_ jpeg: [UInt8], orientation: UInt16) -> [UInt8] {
        precondition(jpeg.count >= 2 && jpeg[0] == 0xFF && jpeg[1] == 0xD8, "not a JPEG (no SOI marker)")
        return Array(jpeg[0..<2]) + segment(orientation: orientation) + Array(jpeg[2...])
    }
}
