// How the runs report what the API gave them: one JSON object on stdout, with the result in the fields of
// ../shared/reference/*.json (MediaPipe's own results), so that HeaderAPITests can compare the two.
import VisionTasks
import Synchronization

enum JSON {
    static func landmark(_ landmark: NormalizedLandmark) -> [String: Any] {
        // The way apps read MediaPipe's `NSNumber?` scores.
        ["x": Double(landmark.x), "y": Double(landmark.y), "z": Double(landmark.z),
         "visibility": Double(landmark.visibility?.floatValue ?? 0), "presence": Double(landmark.presence?.floatValue ?? 0)]
    }

    static func landmark(_ landmark: Landmark) -> [String: Any] {
        ["x": Double(landmark.x), "y": Double(landmark.y), "z": Double(landmark.z),
         "visibility": Double(landmark.visibility?.floatValue ?? 0), "presence": Double(landmark.presence?.floatValue ?? 0)]
    }

    static func category(_ category: ResultCategory) -> [String: Any] {
        ["index": category.index, "score": Double(category.score), "categoryName": category.categoryName ?? NSNull(),
         "displayName": category.displayName ?? NSNull()]
    }

    /// The error a call threw, as apps look at MediaPipe's (`NSError` domain and code, `localizedDescription`).
    static func error(_ error: Error) -> [String: Any] {
        let nsError = error as NSError
        return ["domain": nsError.domain, "code": nsError.code, "message": error.localizedDescription]
    }

    static func print(_ object: [String: Any]) throws {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        Swift.print(String(decoding: data, as: UTF8.self))
    }
}

/// What a live-stream delegate received: timestamp, instances found (nil on error), the error.
final class LiveStreamLog: Sendable {
    private let entries = Mutex<[(timestamp: Int, count: Int?, error: String?)]>([])

    func record(_ timestamp: Int, _ count: Int?, _ error: Error?) {
        entries.withLock { $0.append((timestamp, count, error.map { "\($0)" })) }
    }

    var json: [[String: Any]] {
        entries.withLock { $0 }.map { ["timestamp": $0.timestamp, "count": $0.count ?? -1, "error": $0.error ?? NSNull()] }
    }
}
