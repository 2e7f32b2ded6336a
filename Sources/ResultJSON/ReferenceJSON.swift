import Foundation
import VisionTasks

/// Results in the schema of the MediaPipe reference results (what MediaPipe's Python results give, field for field):
/// the entries and lines the command line and the service write around each task's result, which its registration
/// (``TaskRegistry``, in VisionTasks) makes.
public enum ReferenceJSON {
    /// The MediaPipe release whose outputs and schema these results mirror.
    public static let mirroredVersion = "0.10.14"

    /// One answered image or frame in the reference schema's per-result form: an element of a `--json` document's
    /// `results`, a `--jsonl` line, the body of the service's image answer. `timestamp` is null for an image.
    public static func entry(image label: String, width: Int, height: Int, timestamp: Int?, result: [String: Any]) -> [String: Any] {
        ["image": label, "width": width, "height": height, "timestampMs": timestamp.map { $0 as Any } ?? NSNull(), "result": result]
    }

    /// A JSON object as the commands write it: keys sorted, so that equal results are equal bytes.
    public static func encoded(_ object: [String: Any]) throws -> Data {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    /// ``encoded(_:)`` followed by a newline: one line of a `--jsonl` file or of an NDJSON stream.
    public static func line(_ object: [String: Any]) throws -> Data {
        var data = try encoded(object)
        data.append(UInt8(ascii: "\n"))
        return data
    }
}

/// Pixel coordinates for drawing and JSON: results of a hostile model may be NaN or huge, and `Int(_:)` traps on
/// those. Non-finite values give nil (nothing is drawn); finite ones are clamped well off any canvas.
public func pixelCoordinate(_ value: Double) -> Int? { AnswerJSON.clampedPixel(value) }

public func pixelCoordinate(_ value: Float) -> Int? { pixelCoordinate(Double(value)) }
