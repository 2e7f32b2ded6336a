extension ImageOrientation {
    /// The orientation that stands for MediaPipe's `ImageProcessingOptions.rotation_degrees`: clockwise, a multiple
    /// of 90, negative allowed, any number of turns (450 is 90). Nil when `rotationDegrees` is not a multiple of 90
    /// (MediaPipe refuses those too).
    ///
    /// Defined through the region rotation both sides give: MediaPipe's C++ tasks set the region's rotation to
    /// −rotation_degrees·π/180, and its iOS task runner gives each orientation the rotation
    /// `regionRotationDegrees` reproduces; this is the non-mirrored orientation whose `regionRotationDegrees` is
    /// −`rotationDegrees` modulo 360, computed from that property.
    public init?(rotationDegrees: Int) {
        // `%` keeps the sign and never overflows (Int.min % 90 is fine), so the sums below stay small.
        guard rotationDegrees % 90 == 0 else { return nil }
        let turn = rotationDegrees % 360
        let match = [ImageOrientation.up, .right, .down, .left].first { orientation in
            guard let region = Int(exactly: orientation.regionRotationDegrees.rounded()) else { return false }
            return (region % 360 + turn) % 360 == 0
        }
        guard let match else { return nil }
        self = match
    }
}
