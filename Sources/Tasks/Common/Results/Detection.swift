import Foundation

/// A keypoint of a detection (MediaPipe's `NormalizedKeypoint`): its location normalized to the image, and the
/// label and score when the model gives them.
public struct NormalizedKeypoint: Sendable, Equatable {
    public var location: CGPoint
    public var label: String?
    public var score: Float

    public init(location: CGPoint, label: String? = nil, score: Float = 0) {
        self.location = location; self.label = label; self.score = score
    }
}

/// An object a detector found (MediaPipe's `Detection`): its box in pixels of the input image, its categories best
/// first, and its keypoints when the model has them.
public struct Detection: Sendable, Equatable {
    public var categories: [Category]
    public var boundingBox: CGRect
    public var keypoints: [NormalizedKeypoint]?

    public init(categories: [Category], boundingBox: CGRect, keypoints: [NormalizedKeypoint]? = nil) {
        self.categories = categories; self.boundingBox = boundingBox; self.keypoints = keypoints
    }
}

/// A row-major matrix of floats (MediaPipe's `TransformMatrix`; the face landmarker's facial transformation is 4 × 4).
public struct TransformMatrix: Sendable, Equatable {
    public let rows: Int
    public let columns: Int
    /// `rows × columns` values, row after row.
    public let data: [Float]

    /// Returns nil when `data` does not hold `rows × columns` values.
    public init?(rows: Int, columns: Int, data: [Float]) {
        guard rows >= 0, columns >= 0, rows.multipliedReportingOverflow(by: columns) == (data.count, false) else { return nil }
        self.rows = rows; self.columns = columns; self.data = data
    }

    /// MediaPipe's initializer: the `rows × columns` values at `data`, row after row, copied. `rows` and `columns`
    /// must not be negative.
    public init(data: UnsafePointer<Float>, rows: Int, columns: Int) {
        guard rows >= 0, columns >= 0, case let (count, false) = rows.multipliedReportingOverflow(by: columns) else {
            preconditionFailure("a \(rows) × \(columns) matrix")
        }
        self.rows = rows; self.columns = columns; self.data = Array(UnsafeBufferPointer(start: data, count: count))
    }

    /// The value at (`row`, `column`); both must be in range.
    public func value(atRow row: Int, column: Int) -> Float {
        precondition((0..<rows).contains(row) && (0..<columns).contains(column), "(\(row), \(column)) is outside a \(rows) × \(columns) matrix")
        return data[row * columns + column]
    }

    /// The value at (`row`, `column`), with MediaPipe's `NSUInteger` indices.
    public func value(atRow row: UInt, column: UInt) -> Float {
        value(atRow: Int(row), column: Int(column))
    }
}
