import Foundation
import VisionTasks

/// A task result as MediaPipe's reference JSON: the object under `result` in the `vision-tasks` commands' `--json`
/// and `--jsonl` output and in the service's answers. One implementation for both surfaces, so that the service
/// answers with exactly what the command line writes.
public protocol ReferenceJSONConvertible {
    var referenceJSON: [String: Any] { get }
}

/// Results in the schema of the MediaPipe reference results (what MediaPipe's Python results give, field for field).
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

    /// A normalized or world landmark; MediaPipe's Python results carry visibility and presence on every landmark,
    /// 0 where the model gives none (faces).
    public static func point(_ x: Float, _ y: Float, _ z: Float, _ visibility: Float?, _ presence: Float?) -> [String: Any] {
        ["x": Double(x), "y": Double(y), "z": Double(z), "visibility": Double(visibility ?? 0), "presence": Double(presence ?? 0)]
    }

    public static func category(_ c: ResultCategory) -> [String: Any] {
        ["index": c.index, "score": Double(c.score), "categoryName": c.categoryName ?? "", "displayName": c.displayName ?? ""]
    }

    public static func face(_ result: FaceLandmarkerResult) -> [String: Any] {
        var out: [String: Any] = [
            "faceLandmarks": result.faceLandmarks.map { $0.map { point($0.x, $0.y, $0.z, $0.visibility?.floatValue, $0.presence?.floatValue) } },
            "faceBlendshapes": result.faceBlendshapes.map { $0.categories.map(category) },
            // Rows of the true matrix (translation in the last column), as MediaPipe's Python results give it.
            "facialTransformationMatrixes": result.facialTransformationMatrixes.map { m in
                (0..<m.rows).map { r in (0..<m.columns).map { c in Double(m.value(atRow: r, column: c)) } }
            },
        ]
        identities(result.identities, into: &out)
        return out
    }

    /// Our identities across frames (video and live stream), one per instance in the landmarks' order, under
    /// `identities` — a key MediaPipe's schema does not have, so readers of its JSON are unaffected; absent in image
    /// mode, where there are none.
    static func identities(_ identities: [Int], into object: inout [String: Any]) {
        if !identities.isEmpty { object["identities"] = identities }
    }
}

extension FaceLandmarkerResult: ReferenceJSONConvertible {
    public var referenceJSON: [String: Any] { ReferenceJSON.face(self) }
}

/// Pixel coordinates for drawing and JSON: results of a hostile model may be NaN or huge, and `Int(_:)` traps on
/// those. Non-finite values give nil (nothing is drawn); finite ones are clamped well off any canvas.
public func pixelCoordinate(_ value: Double) -> Int? { AnswerJSON.clampedPixel(value) }

public func pixelCoordinate(_ value: Float) -> Int? { pixelCoordinate(Double(value)) }
