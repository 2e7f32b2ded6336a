/// MediaPipe's landmark smoothing for one tracked instance (a pose or a face), as its landmarks-detector graphs
/// wire it in video and live-stream modes: `VisibilitySmoothingCalculator` (a low-pass filter on visibility)
/// followed by `LandmarksSmoothingCalculator` (a 1€ filter per coordinate). Every task that smooths uses this; the
/// constants of each task live in its pipeline.
package struct LandmarksSmoother: Sendable {
    /// How the 1€ filter's speed is scaled (MediaPipe's `OBJECT_SCALE_ROI` input and `disable_value_scaling`).
    package enum ValueScale: Sendable {
        /// Speed in object sizes per second: the object size is the mean of a region's pixel width and height
        /// (pose: the region derived from this frame's landmarks for the next frame).
        case region
        /// The object size is the mean of the landmarks' own pixel extents in x and y (face: no region is wired).
        case landmarkExtent
        /// Speed in the landmarks' own units (world landmarks, metres).
        case none
    }

    /// The 1€ filter's parameters (MediaPipe's `OneEuroFilter` options).
    package struct Parameters: Sendable {
        var minCutoff: Double
        var beta: Double
        var derivativeCutoff: Double
        var valueScale: ValueScale

        package init(minCutoff: Double, beta: Double, derivativeCutoff: Double, valueScale: ValueScale) {
            self.minCutoff = minCutoff; self.beta = beta; self.derivativeCutoff = derivativeCutoff; self.valueScale = valueScale
        }
    }

    let parameters: Parameters
    /// The visibility low-pass filter's alpha, or nil when visibility is left alone (faces).
    let visibilityAlpha: Float?
    private var filters: [OneEuroFilter] = []
    private var visibilityFilters: [LowPassFilter] = []

    /// MediaPipe's `min_allowed_object_scale`: below it, landmarks pass through and no filter state changes.
    static let minimumObjectScale: Float = 1e-6

    package init(_ parameters: Parameters, visibilityAlpha: Float?) {
        self.parameters = parameters
        self.visibilityAlpha = visibilityAlpha
    }

    /// Forgets the 1€ state, as `LandmarksSmoothingCalculator` does on a frame with no landmarks. Visibility state is
    /// kept: MediaPipe's visibility calculator has a single input, so it never sees the empty frame and carries its
    /// state across a tracking loss.
    package mutating func resetCoordinates() {
        filters = []
    }

    /// Smooths landmarks given in image-normalized coordinates: filtered in pixels (x, y by the image's width and
    /// height, z by its width, as MediaPipe does).
    package mutating func smooth(_ landmarks: [NormalizedLandmark], region: NormalizedRect?, imageWidth: Int, imageHeight: Int,
                         timestampMilliseconds: Int) -> [NormalizedLandmark] {
        let w = Float(imageWidth), h = Float(imageHeight)
        var points = landmarks.map { SIMD3($0.x * w, $0.y * h, $0.z * w) }
        var visibilities = landmarks.map(\.visibilityValue)
        smoothVisibility(&visibilities)
        let scale: Float
        switch parameters.valueScale {
        case .region:
            let r = region ?? NormalizedRect(xCenter: 0, yCenter: 0, width: 0, height: 0)
            scale = (r.width * w + r.height * h) / 2
        case .landmarkExtent: scale = Self.extent(points)
        case .none: scale = 1
        }
        smoothCoordinates(&points, objectScale: scale, timestampMilliseconds: timestampMilliseconds)
        return zip(landmarks.indices, points).map { i, p in
            var out = landmarks[i]
            out.x = p.x / w; out.y = p.y / h; out.z = p.z / w
            out.visibilityValue = visibilities[i]
            return out
        }
    }

    /// Smooths world landmarks (metres).
    package mutating func smooth(_ landmarks: [Landmark], timestampMilliseconds: Int) -> [Landmark] {
        var points = landmarks.map { SIMD3($0.x, $0.y, $0.z) }
        var visibilities = landmarks.map(\.visibilityValue)
        smoothVisibility(&visibilities)
        let scale: Float = parameters.valueScale == .landmarkExtent ? Self.extent(points) : 1
        smoothCoordinates(&points, objectScale: scale, timestampMilliseconds: timestampMilliseconds)
        return zip(landmarks.indices, points).map { i, p in
            Landmark(x: p.x, y: p.y, z: p.z, visibility: visibilities[i], presence: landmarks[i].presenceValue)
        }
    }

    private mutating func smoothVisibility(_ values: inout [Float?]) {
        guard let alpha = visibilityAlpha else { return }
        if visibilityFilters.count != values.count { visibilityFilters = Array(repeating: LowPassFilter(), count: values.count) }
        for i in values.indices {
            // MediaPipe filters visibility when the landmark has one and copies it through otherwise.
            if let v = values[i] { values[i] = visibilityFilters[i].apply(v, alpha: alpha) }
        }
    }

    private mutating func smoothCoordinates(_ points: inout [SIMD3<Float>], objectScale: Float, timestampMilliseconds: Int) {
        guard parameters.valueScale == .none || objectScale >= Self.minimumObjectScale else { return }
        let valueScale = parameters.valueScale == .none ? 1 : Double(1 / objectScale)
        if filters.count != points.count * 3 {
            let p = parameters
            filters = Array(repeating: OneEuroFilter(minCutoff: p.minCutoff, beta: p.beta, derivativeCutoff: p.derivativeCutoff),
                            count: points.count * 3)
        }
        // Packet timestamps are microseconds (milliseconds × 1000); the filter counts nanoseconds. Tasks admit only
        // timestamps whose nanoseconds fit (`VisionTaskError.acceptedTimestamps`); beyond them the clock saturates
        // instead of trapping, and a saturated frame passes unfiltered (its time is not after the last).
        let now = Self.nanoseconds(milliseconds: timestampMilliseconds)
        for i in points.indices {
            for axis in 0..<3 {
                points[i][axis] = Float(filters[3 * i + axis].apply(Double(points[i][axis]), timestampNanoseconds: now, valueScale: valueScale))
            }
        }
    }

    /// `milliseconds` in nanoseconds, saturated to `Int64`'s range.
    static func nanoseconds(milliseconds: Int) -> Int64 {
        let (product, overflow) = Int64(clamping: milliseconds).multipliedReportingOverflow(by: 1_000_000)
        guard overflow else { return product }
        return milliseconds < 0 ? .min : .max
    }

    /// The mean of the points' extents in x and y (MediaPipe's `GetObjectScale` from landmarks).
    static func extent(_ points: [SIMD3<Float>]) -> Float {
        guard let first = points.first else { return 0 }
        var lo = SIMD2(first.x, first.y), hi = lo
        for p in points {
            lo = pointwiseMin(lo, SIMD2(p.x, p.y)); hi = pointwiseMax(hi, SIMD2(p.x, p.y))
        }
        return ((hi.x - lo.x) + (hi.y - lo.y)) / 2
    }
}
