import Foundation

/// The pieces of MediaPipe's reference JSON that registered tasks' results share (the schema of MediaPipe's Python
/// results, field for field; the first six tasks' answers keep their reference files' conventions where those differ).
package enum AnswerJSON {
    /// A category; a missing name is null, as MediaPipe's Python results give it.
    package static func category(_ c: Category) -> [String: Any] {
        ["index": c.index, "score": Double(c.score), "categoryName": c.categoryName ?? NSNull(), "displayName": c.displayName ?? NSNull()]
    }

    /// A detection: its pixel box, categories and normalized keypoints (absent when the model has none).
    package static func detection(_ d: Detection) -> [String: Any] {
        let box = d.boundingBox
        var out: [String: Any] = [
            "boundingBox": ["originX": pixel(box.minX), "originY": pixel(box.minY), "width": pixel(box.width), "height": pixel(box.height)],
            "categories": d.categories.map(category),
        ]
        if let keypoints = d.keypoints {
            out["keypoints"] = keypoints.map { k -> [String: Any] in
                ["x": Double(k.location.x), "y": Double(k.location.y), "label": k.label ?? NSNull(), "score": Double(k.score)]
            }
        }
        return out
    }

    /// A pixel coordinate as an integer; a hostile model's NaN or huge value as null (`Int(_:)` would trap).
    private static func pixel(_ value: CGFloat) -> Any {
        let v = Double(value)
        guard v.isFinite, abs(v) < 1e9 else { return NSNull() }
        return Int(v.rounded(.towardZero))
    }

    /// The marks of detections: each box labelled with its best category and score, and its keypoints.
    package static func marks(_ detections: [Detection]) -> [TaskMark] {
        detections.flatMap { d -> [TaskMark] in
            let best = d.categories.first.map { String(format: "%@ %.2f", $0.categoryName ?? "\($0.index)", $0.score) } ?? ""
            return [.box(d.boundingBox, label: best)] + (d.keypoints ?? []).map { .normalizedPoint(x: Double($0.location.x), y: Double($0.location.y)) }
        }
    }
}

extension AnswerJSON {
    /// A normalized or world landmark as the first six tasks' reference JSON writes it: MediaPipe's Python results
    /// carry visibility and presence on every landmark, 0 where the model gives none (faces).
    package static func point(_ x: Float, _ y: Float, _ z: Float, _ visibility: Float?, _ presence: Float?) -> [String: Any] {
        ["x": Double(x), "y": Double(y), "z": Double(z), "visibility": Double(visibility ?? 0), "presence": Double(presence ?? 0)]
    }

    package static func point(_ p: NormalizedLandmark) -> [String: Any] {
        point(p.x, p.y, p.z, p.visibility?.floatValue, p.presence?.floatValue)
    }

    package static func point(_ p: Landmark) -> [String: Any] {
        point(p.x, p.y, p.z, p.visibility?.floatValue, p.presence?.floatValue)
    }

    /// A category as the first six tasks' reference JSON writes it: a missing name is "" (their reference files'
    /// convention), where ``category(_:)`` writes null.
    package static func namedCategory(_ c: ResultCategory) -> [String: Any] {
        ["index": c.index, "score": Double(c.score), "categoryName": c.categoryName ?? "", "displayName": c.displayName ?? ""]
    }

    /// Our identities across frames (video and live stream), one per instance in the landmarks' order, under
    /// `identities` — a key MediaPipe's schema does not have, so readers of its JSON are unaffected; absent in image
    /// mode, where there are none.
    package static func identities(_ identities: [Int], into object: inout [String: Any]) {
        if !identities.isEmpty { object["identities"] = identities }
    }

    /// A pixel coordinate for JSON and drawing: results of a hostile model may be NaN or huge, and `Int(_:)` traps on
    /// those. Non-finite values give nil; finite ones are clamped well off any canvas.
    package static func clampedPixel(_ value: Double) -> Int? {
        guard value.isFinite else { return nil }
        return Int(min(max(value.rounded(.towardZero), -1_000_000), 1_000_000))
    }
}
