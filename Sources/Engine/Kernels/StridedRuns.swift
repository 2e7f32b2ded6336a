/// Copies many short runs of bytes between strided places (DEPTH_TO_SPACE's pixels, CONCATENATION's slices of a
/// pixel): a `memcpy` call per run of 12 or 16 bytes cost more than the copy (ESPCN's DEPTH_TO_SPACE took 7 ×
/// LiteRT's time that way). Runs of up to a few hundred bytes go by vector chunks, the last one overlapping the one
/// before rather than finishing byte by byte; longer runs through `memcpy`. No store reaches past its run, so threads
/// writing neighbouring runs never touch each other's bytes.
enum StridedRuns {
    /// Runs longer than this go through `copyMemory` (its setup is then a small part of the copy).
    static let memcpyBytes = 256

    /// `count` runs of `runBytes` bytes, the i-th from `source + i · sourceStride` to `destination + i · destinationStride`.
    static func copy(count: Int, runBytes: Int, from source: UnsafeRawPointer, sourceStride: Int,
                     to destination: UnsafeMutableRawPointer, destinationStride: Int) {
        switch runBytes {
        case memcpyBytes...:
            for i in 0..<count {
                (destination + i &* destinationStride).copyMemory(from: source + i &* sourceStride, byteCount: runBytes)
            }
        case 16...: copy(SIMD16<UInt8>.self, count, runBytes, source, sourceStride, destination, destinationStride)
        case 8...: copy(UInt64.self, count, runBytes, source, sourceStride, destination, destinationStride)
        case 4...: copy(UInt32.self, count, runBytes, source, sourceStride, destination, destinationStride)
        default: copy(UInt8.self, count, runBytes, source, sourceStride, destination, destinationStride)
        }
    }

    /// Runs of at least one `Chunk`: whole chunks, then one more ending at the run's end.
    @inline(__always)
    private static func copy<Chunk: BitwiseCopyable>(_: Chunk.Type, _ count: Int, _ runBytes: Int, _ source: UnsafeRawPointer,
                                                     _ sourceStride: Int, _ destination: UnsafeMutableRawPointer,
                                                     _ destinationStride: Int) {
        let size = MemoryLayout<Chunk>.size, whole = runBytes / size * size, tail = runBytes &- size
        for i in 0..<count {
            let s = source + i &* sourceStride, d = destination + i &* destinationStride
            var k = 0
            while k < whole {
                d.storeBytes(of: s.loadUnaligned(fromByteOffset: k, as: Chunk.self), toByteOffset: k, as: Chunk.self)
                k &+= size
            }
            if whole < runBytes {
                d.storeBytes(of: s.loadUnaligned(fromByteOffset: tail, as: Chunk.self), toByteOffset: tail, as: Chunk.self)
            }
        }
    }
}
