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
