import Foundation

/// The 1€ filter (Casiez et al.) exactly as MediaPipe's `OneEuroFilter` runs it: per value, an exponential
/// smoothing whose cutoff rises with the (scaled, smoothed) speed. Frequency starts at 30 Hz and is re-derived from
/// timestamps once two non-zero ones are seen, as MediaPipe's implementation does.
struct OneEuroFilter {
    var frequency: Double = 30
    let minCutoff: Double
    let beta: Double
    let derivativeCutoff: Double
    private var lastTime: Int64 = .min
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

    mutating func apply(_ value: Double, timestampNanoseconds now: Int64, valueScale: Double) -> Double {
        if lastTime >= now { return value }
        if lastTime != 0, now != 0 { frequency = 1 / (Double(now &- lastTime) * 1e-9) }
        lastTime = now
        let derivative = x.lastRaw.map { (value - $0) * valueScale * frequency } ?? 0
        let smoothedDerivative = dx.apply(derivative, alpha: alpha(derivativeCutoff))
        return x.apply(value, alpha: alpha(minCutoff + beta * abs(smoothedDerivative)))
    }
}

/// MediaPipe's `LowPassFilter`: the first value passes through, later ones blend with the stored one.
struct LowPassFilter {
    private(set) var lastRaw: Double?
    private var stored: Double = 0

    mutating func apply(_ value: Double, alpha: Double) -> Double {
        let result = lastRaw == nil ? value : alpha * value + (1 - alpha) * stored
        lastRaw = value
        stored = result
        return result
    }
}
