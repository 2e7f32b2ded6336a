// The exponential of the kernels' activations (LOGISTIC, TANH, SOFTMAX) and of the segmenters' softmax, here so that
// it is `@inlinable` across modules (see Accumulate.swift): the segmenters' per-pixel loop, in the tasks' module,
// vectorizes only with it inlined.

/// e^−z for z ≥ 0 (0 past 87.3), branch-free, within 2 ulp of libm's `expf` (`GatherKernelTests` checks the
/// sigmoid and the tanh made of it against Double).
@inlinable @inline(__always)
public func exponentialOfNegative(_ z: Float) -> Float {
    // e^−z = 2^n · e^r, n = round(−z / ln 2), r = −z − n ln 2 in two parts (Cody–Waite), |r| ≤ ln 2 / 2. Adding
    // 1.5 · 2^23 + 127 rounds −z / ln 2 to an integer and leaves n + 127 in the low bits, whence 2^n by a shift
    // (XNNPACK's magic bias).
    let magic: Float = 12_583_039
    let biased = multiplyAdd(z, -1.442_695_04, magic)
    let n = biased - magic
    var r = multiplyAdd(n, -0.693_145_75, -z)
    r = multiplyAdd(n, -1.428_606_8e-6, r)
    // e^r on [−ln 2 / 2, ln 2 / 2]: degree 7 Taylor, truncation error below 6e-9 there, as 1 + r (1 + r q(r)).
    // q's six terms pairwise (Estrin) and only the last two steps in sequence: a chain of eight dependent steps
    // (Horner's) kept too few values in flight — LOGISTIC ran at 1.2 ns a value, three times XNNPACK's. The two
    // last steps stay sequential because they carry the result's leading bits: the sum of q's terms rounds more
    // often, but its error is scaled down by r².
    let r2 = r * r, r4 = r2 * r2
    var q = multiplyAdd(multiplyAdd(r, 1.0 / 120, 1.0 / 24), r2, multiplyAdd(r, 1.0 / 6, 0.5))
    q = multiplyAdd(multiplyAdd(r, 1.0 / 5040, 1.0 / 720), r4, q)
    let p = multiplyAdd(multiplyAdd(q, r, 1), r, 1)
    let scale = Float(bitPattern: biased.bitPattern &<< 23)
    // Below 2^−126 (z > 87.3) e^−z is taken as 0, as XNNPACK does.
    return z > 87.336_54 ? 0 : p * scale
}
