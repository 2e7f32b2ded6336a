/// A line between two landmarks, by their indices (MediaPipe's `MPPConnection`, `Connection` in Swift): the tables
/// overlays draw, such as ``PoseLandmarker/poseLandmarks`` and ``HandLandmarker/handConnections``
/// (`dots[Int(connection.start)]` to `dots[Int(connection.end)]`).
public struct Connection: Sendable, Hashable, CustomStringConvertible {
    /// The index of the landmark the line starts at.
    public let start: UInt
    /// The index of the landmark the line ends at.
    public let end: UInt

    public init(start: UInt, end: UInt) {
        self.start = start
        self.end = end
    }

    public var description: String { "\(start)–\(end)" }
}

extension Array where Element == Connection {
    /// A table from landmark index pairs, flattened: start, end, start, end, ….
    init(pairs: [UInt16]) {
        self = stride(from: 0, to: pairs.count - 1, by: 2).map { Connection(start: UInt(pairs[$0]), end: UInt(pairs[$0 + 1])) }
    }
}
