extension ImageOrientation {
    /// The orientation an EXIF orientation tag names, by Apple's mapping (`UIImage.Orientation` from
    /// `kCGImagePropertyOrientation`): 1 up, 2 upMirrored, 3 down, 4 downMirrored, 5 leftMirrored, 6 right,
    /// 7 rightMirrored, 8 left. Nil for any other value.
    ///
    /// For a buffer whose pixels are stored as a camera wrote them and described by such a tag. Decoding a JPEG
    /// from a file or bytes already turns the pixels upright by their tag (``ImageDecodingOptions/appliesExifOrientation``),
    /// so its image is `.up`.
    public init?(exifOrientation: Int) {
        switch exifOrientation {
        case 1: self = .up
        case 2: self = .upMirrored
        case 3: self = .down
        case 4: self = .downMirrored
        case 5: self = .leftMirrored
        case 6: self = .right
        case 7: self = .rightMirrored
        case 8: self = .left
        default: return nil
        }
    }

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
