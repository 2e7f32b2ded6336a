#if arch(x86_64)
import _Builtin_intrinsics.intel
#endif

/// A function of one byte as a 256-entry table, applied to a run of bytes (the quantized LOGISTIC, TANH, RELU and
/// HARD_SWISH: any function of one uint8 or int8 input).
///
/// In a tuned x86-64 build (AVX2) 32 bytes at a time through `vpshufb`, which looks up 16-entry tables: the 256
/// entries are sixteen such slices, XORed together so that the XOR of the lookups that an index reaches is its entry.
/// An index walks down by 16 for each slice (wrapping for the first eight subtractions, saturating at −128 for the
/// other seven); `vpshufb` answers 0 for an index whose top bit is set, so for index 16a + b the slices looked up at
/// b are 0 … a when a < 8 and a − 7 … a otherwise, and the slices are made so that those XOR to entry 16a + b
/// (`slice(k)` below; checked for every byte against the table by EngineTests). LLVM does not form `vpshufb` from a
/// gather of bytes, so the intrinsic. Elsewhere (a portable build, arm64) one lookup per byte: the reference.
public struct ByteLookup: Sendable {
    /// `table[byte]` is the function's value at `byte`.
    public let table: [UInt8]
    /// The sixteen XORed slices, each repeated in both halves of a 32-byte vector.
    private let slices: [SIMD32<UInt8>]

    public init(_ function: (UInt8) -> UInt8) {
        let table = (0...255).map { function(UInt8($0)) }
        self.table = table
        func part(_ k: Int) -> SIMD16<UInt8> {
            var part = SIMD16<UInt8>()
            for b in 0..<16 { part[b] = table[16 * k + b] }
            return part
        }
        var slices = [SIMD16<UInt8>]()
        for k in 0..<16 {
            // Entry 16a + b is the XOR of slices 0 … a (a < 8) or a − 7 … a (a ≥ 8) at b: so slice k is part k
            // XOR part k − 1 (k ≥ 1), and from k = 8 on also XOR slice k − 8, whose lookup has dropped out.
            var slice = part(k)
            if k >= 1 { slice ^= part(k - 1) }
            if k >= 8 { slice ^= slices[k - 8] }
            slices.append(slice)
        }
        self.slices = slices.map { SIMD32(lowHalf: $0, highHalf: $0) }
    }

    /// The slices (sixteen of 32 bytes) and the table (256 bytes), for a C loop of a higher tier than the build's
    /// (Engine's run-time dispatch) to read.
    public func withTables<R>(_ body: (_ slices: UnsafePointer<UInt8>, _ table: UnsafePointer<UInt8>) -> R) -> R {
        slices.withUnsafeBytes { slices in
            table.withUnsafeBufferPointer { table in body(slices.baseAddress!.assumingMemoryBound(to: UInt8.self), table.baseAddress!) }
        }
    }

    /// `output[i] = table[input[i]]` for `i` in `0 ..< count` (the two may be the same run).
    public func apply(_ input: UnsafePointer<UInt8>, _ output: UnsafeMutablePointer<UInt8>, count: Int) {
        var i = 0
        #if VISION_TASKS_FMA && arch(x86_64)
        slices.withUnsafeBufferPointer { slices in
            let s = UnsafeRawPointer(slices.baseAddress!)
            @inline(__always) func slice(_ k: Int) -> __m256i { s.loadUnaligned(fromByteOffset: 32 * k, as: __m256i.self) }
            // Loaded once, before the loop (reloading them in it ran at two thirds of the C loop's speed).
            let s0 = slice(0), s1 = slice(1), s2 = slice(2), s3 = slice(3), s4 = slice(4), s5 = slice(5), s6 = slice(6), s7 = slice(7)
            let s8 = slice(8), s9 = slice(9), s10 = slice(10), s11 = slice(11), s12 = slice(12), s13 = slice(13), s14 = slice(14)
            let s15 = slice(15)
            let sixteen = unsafeBitCast(SIMD32<UInt8>(repeating: 16), to: __m256i.self)
            while i &+ 32 <= count {
                var index = UnsafeRawPointer(input + i).loadUnaligned(as: __m256i.self)
                var y = _mm256_shuffle_epi8(s0, index)
                @inline(__always) func wrapping(_ slice: __m256i) {
                    index = _mm256_sub_epi8(index, sixteen)
                    y = _mm256_xor_si256(y, _mm256_shuffle_epi8(slice, index))
                }
                @inline(__always) func saturating(_ slice: __m256i) {
                    index = _mm256_subs_epi8(index, sixteen)
                    y = _mm256_xor_si256(y, _mm256_shuffle_epi8(slice, index))
                }
                wrapping(s1); wrapping(s2); wrapping(s3); wrapping(s4); wrapping(s5); wrapping(s6); wrapping(s7); wrapping(s8)
                saturating(s9); saturating(s10); saturating(s11); saturating(s12); saturating(s13); saturating(s14); saturating(s15)
                UnsafeMutableRawPointer(output + i).storeBytes(of: y, as: __m256i.self)
                i &+= 32
            }
        }
        #endif
        table.withUnsafeBufferPointer { table in
            while i < count {
                output[i] = table[Int(input[i])]
                i &+= 1
            }
        }
    }
}
