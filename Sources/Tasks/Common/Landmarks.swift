/// A landmark in normalized image coordinates: x and y in [0, 1] of the image width and height, z a depth
/// on the scale of x. Field names as MediaPipe's `NormalizedLandmark`.
public struct NormalizedLandmark: Sendable, Equatable, Codable {
    public var x: Float
    public var y: Float
    public var z: Float
    public var visibility: Float?
    public var presence: Float?

    public init(x: Float, y: Float, z: Float, visibility: Float? = nil, presence: Float? = nil) {
        self.x = x; self.y = y; self.z = z; self.visibility = visibility; self.presence = presence
    }
}

/// A landmark in world coordinates (metres), MediaPipe's `Landmark`.
public struct Landmark: Sendable, Equatable, Codable {
    public var x: Float
    public var y: Float
    public var z: Float
    public var visibility: Float?
    public var presence: Float?

    public init(x: Float, y: Float, z: Float, visibility: Float? = nil, presence: Float? = nil) {
        self.x = x; self.y = y; self.z = z; self.visibility = visibility; self.presence = presence
    }
}

/// A float mask the size of the input image (MediaPipe's `MPMask` with float32 data), values in [0, 1].
public struct Mask: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let float32Data: [Float]
}
