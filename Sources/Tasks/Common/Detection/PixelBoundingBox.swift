import Foundation

/// A detection's box from normalized coordinates to pixels as MediaPipe's `DetectionTransformationCalculator` turns
/// it (the object and face detectors' results): each of x, y, width and height on its own, scaled by the image's side,
/// truncated as C++'s float-to-int conversion and clamped to [0, side] (its `BoundedValue<int>`).
enum PixelBoundingBox {
    static func rect(xMin: Float, yMin: Float, width: Float, height: Float, imageWidth: Int, imageHeight: Int) -> CGRect {
        CGRect(x: bounded(xMin * Float(imageWidth), imageWidth), y: bounded(yMin * Float(imageHeight), imageHeight),
               width: bounded(width * Float(imageWidth), imageWidth), height: bounded(height * Float(imageHeight), imageHeight))
    }

    /// C++'s float-to-int truncation, then clamped to [0, upper].
    static func bounded(_ value: Float, _ upper: Int) -> Int {
        guard value.isFinite else { return value > 0 ? upper : 0 }
        let truncated = value >= Float(Int32.max) ? Int(Int32.max) : (value <= Float(Int32.min) ? Int(Int32.min) : Int(value))
        return max(min(truncated, upper), 0)
    }
}
