import Foundation

/// A landmark in normalized image coordinates: x and y in [0, 1] of the image width and height, z a depth
/// on the scale of x. MediaPipe's `NormalizedLandmark`: `visibility` and `presence` are `NSNumber?`, nil when the
/// model does not give them (`landmark.visibility?.floatValue`).
public struct NormalizedLandmark: Sendable, Equatable, Codable {
    public var x: Float
    public var y: Float
    public var z: Float
    /// The model's visibility score (stored as the `Float` it computed; `NSNumber` only when read).
    var visibilityValue: Float?
    /// The model's presence score.
    var presenceValue: Float?

    /// How likely the landmark is visible (not occluded, inside the image); nil when the model gives no such score
    /// (the hand and face models). Read it as `visibility?.floatValue`.
    public var visibility: NSNumber? {
        get { visibilityValue.map { NSNumber(value: $0) } } set { visibilityValue = newValue?.floatValue }
    }
    /// How likely the landmark is inside the image; nil when the model gives no such score.
    public var presence: NSNumber? {
        get { presenceValue.map { NSNumber(value: $0) } } set { presenceValue = newValue?.floatValue }
    }

    /// MediaPipe's initializer.
    public init(x: Float, y: Float, z: Float, visibility: NSNumber?, presence: NSNumber?) {
        self.init(x: x, y: y, z: z, visibility: visibility?.floatValue, presence: presence?.floatValue)
    }

    /// The scores as the `Float`s a model gives them.
    @_disfavoredOverload
    public init(x: Float, y: Float, z: Float, visibility: Float? = nil, presence: Float? = nil) {
        self.x = x; self.y = y; self.z = z; self.visibilityValue = visibility; self.presenceValue = presence
    }

    private enum CodingKeys: String, CodingKey {
        case x, y, z
        case visibilityValue = "visibility"
        case presenceValue = "presence"
    }
}

/// A landmark in world coordinates (metres), MediaPipe's `Landmark`: `visibility` and `presence` are `NSNumber?`, as
/// in ``NormalizedLandmark``.
public struct Landmark: Sendable, Equatable, Codable {
    public var x: Float
    public var y: Float
    public var z: Float
    /// The model's visibility score (stored as the `Float` it computed; `NSNumber` only when read).
    var visibilityValue: Float?
    /// The model's presence score.
    var presenceValue: Float?

    /// How likely the landmark is visible; nil when the model gives no such score. Read it as `visibility?.floatValue`.
    public var visibility: NSNumber? {
        get { visibilityValue.map { NSNumber(value: $0) } } set { visibilityValue = newValue?.floatValue }
    }
    /// How likely the landmark is inside the image; nil when the model gives no such score.
    public var presence: NSNumber? {
        get { presenceValue.map { NSNumber(value: $0) } } set { presenceValue = newValue?.floatValue }
    }

    /// MediaPipe's initializer.
    public init(x: Float, y: Float, z: Float, visibility: NSNumber?, presence: NSNumber?) {
        self.init(x: x, y: y, z: z, visibility: visibility?.floatValue, presence: presence?.floatValue)
    }

    /// The scores as the `Float`s a model gives them.
    @_disfavoredOverload
    public init(x: Float, y: Float, z: Float, visibility: Float? = nil, presence: Float? = nil) {
        self.x = x; self.y = y; self.z = z; self.visibilityValue = visibility; self.presenceValue = presence
    }

    private enum CodingKeys: String, CodingKey {
        case x, y, z
        case visibilityValue = "visibility"
        case presenceValue = "presence"
    }
}
