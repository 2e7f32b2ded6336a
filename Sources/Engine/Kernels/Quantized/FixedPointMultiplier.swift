import Foundation

/// TFLite's fixed-point requantization (`QuantizeMultiplier` + `MultiplyByQuantizedMultiplier`), for the operators
/// LiteRT runs with its builtin kernels because XNNPACK does not take them: a real multiplier as a Q31 integer and a
/// power-of-two shift, applied with gemmlowp's rounding doubling high multiply and rounding right shift (half away
/// from zero), in that order — two roundings, as TFLite builds it by default.
struct FixedPointMultiplier: Sendable {
    let multiplier: Int32
    let shift: Int

    /// `QuantizeMultiplier`: the multiplier in double, frexp's mantissa rounded half away from zero to Q31.
    init(_ real: Double) {
        guard real > 0 else { (multiplier, shift) = (0, 0); return }
        // Ratios of extreme but valid scales: saturate rather than trap on a shift nothing can use.
        guard real.isFinite, real.exponent < 31 else { (multiplier, shift) = (.max, 31); return }
        let (fraction, exponent) = (real.significand / 2, real.exponent + 1)  // frexp: fraction in [0.5, 1)
        var q = Int64((fraction * Double(1 << 31)).rounded())
        var e = Int(exponent)
        if q == 1 << 31 { q /= 2; e += 1 }
        if e < -31 { (q, e) = (0, 0) }
        multiplier = Int32(q)
        shift = e
    }

    /// x × multiplier × 2^shift, rounded as TFLite rounds it.
    @inline(__always) func callAsFunction(_ x: Int32) -> Int32 {
        let left = max(shift, 0), right = max(-shift, 0)
        return Self.roundingDivideByPowerOfTwo(Self.roundingDoublingHighMultiply(x &<< Int32(left), multiplier), right)
    }

    /// The same product as TFLite's x86 build computes it in its vector loops (NEON intrinsics through NEON_2_SSE):
    /// `vqrdmulh` rounds the doubled high product half up, and the rounding shift right rounds half up too.
    @inline(__always) func vectorLoopForm(_ x: Int32) -> Int32 {
        let left = max(shift, 0), right = max(-shift, 0)
        let a = x &<< Int32(left)
        let high: Int32 = a == .min && multiplier == .min ? .max
            : Int32(truncatingIfNeeded: (Int64(a) * Int64(multiplier) + (1 << 30)) >> 31)
        guard right > 0 else { return high }
        return Int32(truncatingIfNeeded: (Int64(high) + (1 << (right - 1))) >> right)
    }

    /// gemmlowp's SaturatingRoundingDoublingHighMul.
    @inline(__always) static func roundingDoublingHighMultiply(_ a: Int32, _ b: Int32) -> Int32 {
        if a == b && a == .min { return .max }
        let product = Int64(a) * Int64(b)
        let nudge: Int64 = product >= 0 ? 1 << 30 : 1 - (1 << 30)
        return Int32(truncatingIfNeeded: (product + nudge) / (1 << 31))
    }

    /// gemmlowp's RoundingDivideByPOT: arithmetic shift right, rounding half away from zero.
    @inline(__always) static func roundingDivideByPowerOfTwo(_ x: Int32, _ exponent: Int) -> Int32 {
        guard exponent > 0 else { return x }
        let mask = Int32((1 << exponent) - 1)
        let remainder = x & mask
        let threshold = (mask >> 1) + (x < 0 ? 1 : 0)
        return (x >> Int32(exponent)) + (remainder > threshold ? 1 : 0)
    }
}
