// What an app brings on Linux in place of UIKit, as the article MediaPipeCode.md says a client does: a stand-in for `UIImage` and the
// `MPImage(uiImage:)` initializers MediaPipe's iOS framework declares, over `MPImage(contentsOfFile:)`. Everything
// else in this target is written against MediaPipe's headers as iOS apps write it, with `import VisionTasks` in
// place of `import MediaPipeTasksVision`.
import VisionTasks

/// A minimal `UIImage`: a picture file and its orientation.
final class UIImage {
    /// UIKit's `UIImage.Orientation` has the same cases as VisionTasks' `ImageOrientation`.
    typealias Orientation = ImageOrientation

    let path: String
    let imageOrientation: Orientation

    init?(contentsOfFile path: String) {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        self.path = path
        imageOrientation = .up
    }
}

extension MPImage {
    /// MediaPipe's `MPImage(uiImage:)`: the image with its own orientation.
    init(uiImage: UIImage) throws {
        try self.init(uiImage: uiImage, orientation: uiImage.imageOrientation)
    }

    /// MediaPipe's `MPImage(uiImage:orientation:)`.
    init(uiImage: UIImage, orientation: UIImage.Orientation) throws {
        try self.init(contentsOfFile: uiImage.path, orientation: orientation)
    }
}

/// A line an overlay draws between two landmarks (the samples' `Line`).
struct Line {
    let from: CGPoint
    let to: CGPoint
}

/// The samples' overlay helpers: dots in view coordinates, and a line per connection of a table.
enum Overlay {
    static func dots(_ landmarks: [NormalizedLandmark], imageSize: CGSize) -> [CGPoint] {
        landmarks.map { CGPoint(x: CGFloat($0.x) * imageSize.width, y: CGFloat($0.y) * imageSize.height) }
    }

    static func lines(_ connections: [Connection], dots: [CGPoint]) -> [Line] {
        connections.map { connection in
            let start = dots[Int(connection.start)]
            let end = dots[Int(connection.end)]
            return Line(from: start, to: end)
        }
    }
}
