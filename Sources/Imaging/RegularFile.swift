#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads image files without the ways a path can hang or exhaust a reader: opened with `O_NONBLOCK` (opening a
/// FIFO for reading otherwise blocks until a writer appears, forever), then refused unless `fstat` says it is a
/// regular file (a FIFO, character device such as /dev/zero, socket or directory has no end or no bytes), and
/// refused above a size no image within the pixel budget reaches (a sparse file can claim a terabyte).
enum RegularFile {
    /// The largest file read: an image at ``MPImage/maximumPixelCount`` pixels stored at 8 bytes a pixel (16-bit
    /// RGBA PNG without compression), plus 16 MiB of metadata.
    static let maximumByteCount = MPImage.maximumPixelCount * 8 + (1 << 24)

    static func contents(atPath path: String, maximumByteCount: Int = maximumByteCount) throws(ImageError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw .fileUnreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw .fileUnreadable(path: path, reason: "fstat: \(String(cString: strerror(errno)))")
        }
        let type = status.st_mode & S_IFMT
        guard type == S_IFREG else { throw .fileUnreadable(path: path, reason: "not a regular file (\(kind(type)))") }
        let size = Int(status.st_size)
        guard size <= maximumByteCount else {
            throw .fileUnreadable(path: path, reason: "\(size) bytes is above the \(maximumByteCount)-byte limit for an image file")
        }
        var bytes = [UInt8](repeating: 0, count: size)
        var filled = 0
        // Up to the size fstat gave: a file that grows while it is read is cut there, one that shrinks ends early.
        while filled < size {
            let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, size - filled) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .fileUnreadable(path: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            filled += count
        }
        if filled < size { bytes.removeLast(size - filled) }
        return bytes
    }

    private static func kind(_ type: mode_t) -> String {
        switch type {
        case S_IFIFO: return "a FIFO"
        case S_IFDIR: return "a directory"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "file type \(String(type, radix: 8))"
        }
    }
}
