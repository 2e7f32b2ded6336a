// The multiply-add of every convolution kernel, in a module of its own so that it is `@inlinable`: debug builds
// compile one file at a time, and a generic helper from another file of the same module is then neither inlined nor
// specialized — every SIMD8 multiply-add became a generic call, some two thousand times slower. Across modules an
// inlinable body is available to every file.

extension SIMD where Scalar == Float {
    /// `self += a × b`, the multiply-add every convolution kernel is made of.
    ///
    /// Fused (one rounding, one instruction) where the build targets hardware FMA: arm64 always, x86-64 when built
    /// with `VISION_TASKS_CPU=haswell` (README), which defines VISION_TASKS_FMA. Without FMA in the target a fused
    /// multiply-add is a library call per lane (`fmaf`), a hundred times slower; a multiply and an add are two
    /// instructions, which is what LiteRT's reference kernels compute too.
    @inlinable @inline(__always)
    public mutating func accumulate(_ a: Self, _ b: Self) {
        #if VISION_TASKS_FMA || arch(arm64)
        addProduct(a, b)
        #else
        self += a * b
        #endif
    }
}

/// `a × b + c`: fused where the build targets hardware FMA (as ``SIMD/accumulate(_:_:)``), else a multiply and an add.
/// For the kernels' polynomials, where a fused step halves the latency of each link of the chain.
@inlinable @inline(__always)
public func multiplyAdd(_ a: Float, _ b: Float, _ c: Float) -> Float {
    #if VISION_TASKS_FMA || arch(arm64)
    return c.addingProduct(a, b)
    #else
    return a * b + c
    #endif
}
