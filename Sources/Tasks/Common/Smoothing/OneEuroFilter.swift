import Foundation

/// The 1€ filter (Casiez et al.) exactly as MediaPipe 0.10.14 runs it (`mediapipe/util/filtering/one_euro_filter.cc`):
/// per value, an exponential smoothing whose cutoff rises with the smoothed speed. The speed is measured against the
/// last *raw* value and multiplied by `valueScale` (the derivative only, never the value).
///
/// Timing follows MediaPipe to the frame: the frequency starts at 30 Hz and is re-derived from a pair of timestamps
/// only when both are non-zero — so a clip that starts at 0 ms filters its second frame at 30 Hz whatever the real
/// interval, and real intervals count from the third frame on. A timestamp not after the last one returns the value
/// unfiltered and leaves the state alone. The first value always passes through, so MediaPipe's first interval
/// (measured from `INT64_MIN`, an overflow that only ever sets a frequency the next frame replaces) needs no copy.
struct OneEuroFilter: Sendable {
    let minCutoff: Double
    let beta: Double
    let derivativeCutoff: Double
    private var frequency: Double = 30
    private var lastTime: Int64?
    private var x = LowPassFilter()
    private var dx = LowPassFilter()

    init(minCutoff: Double, beta: Double, derivativeCutoff: Double) {
        self.minCutoff = minCutoff
        self.beta = beta
        self.derivativeCutoff = derivativeCutoff
    }

    private func alpha(_ cutoff: Double) -> Double {
        let te = 1 / frequency, tau = 1 / (2 * Double.pi * cutoff)
        return 1 / (1 + tau / te)
    }

    ///
    /// A value that is not finite (a model's NaN) passes through and leaves the state alone, so that one bad frame
    /// does not turn every later one into NaN (MediaPipe's filter would keep the NaN in its state until reset).
    mutating func apply(_ value: Double, timestampNanoseconds now: Int64, valueScale: Double) -> Double {
        guard value.isFinite else { return value }
        if let lastTime {
            if lastTime >= now { return value }
            if lastTime != 0, now != 0 {
                // The interval of timestamps on either side of zero can exceed Int64 (both admitted, ±292 years):
                // then measured in doubles, where it only makes the frequency tiny.
                let (interval, overflow) = now.subtractingReportingOverflow(lastTime)
                frequency = 1 / ((overflow ? Double(now) - Double(lastTime) : Double(interval)) * 1e-9)
            }
        }
        lastTime = now
        let derivative = x.lastRaw.map { (value - Double($0)) * valueScale * frequency } ?? 0
        let smoothedDerivative = Double(dx.apply(Float(derivative), alpha: Float(alpha(derivativeCutoff))))
        return Double(x.apply(Float(value), alpha: Float(alpha(minCutoff + beta * abs(smoothedDerivative)))))
    }
}

/// MediaPipe's `LowPassFilter`: the first value passes through, later ones blend with the stored one. It keeps
/// single-precision state, as MediaPipe's does (its 1€ filter's doubles are rounded to float on every pass), and
/// blends as its `alpha_ * value + (1.0 - alpha_) * stored_value_` does: the second product in double precision.
struct LowPassFilter: Sendable {
    private(set) var lastRaw: Float?
    private var stored: Float = 0

    mutating func apply(_ value: Float, alpha: Float) -> Float {
        let result = lastRaw == nil ? value : Float(Double(alpha * value) + (1 - Double(alpha)) * Double(stored))
        lastRaw = value
        stored = result
        return result
    }
}
