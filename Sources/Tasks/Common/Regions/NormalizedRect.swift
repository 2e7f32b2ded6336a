import Foundation
import VisionTasksImaging

/// A rotated rectangle in normalized image coordinates (MediaPipe's `NormalizedRect`); rotation in radians,
/// clockwise on screen.
public struct NormalizedRect: Sendable, Equatable {
    public var xCenter: Float
    public var yCenter: Float
    public var width: Float
    public var height: Float
    public var rotation: Float

    public init(xCenter: Float, yCenter: Float, width: Float, height: Float, rotation: Float = 0) {
        self.xCenter = xCenter; self.yCenter = yCenter; self.width = width; self.height = height; self.rotation = rotation
    }

    /// The whole image, turned by `rotation`.
    public static func whole(rotation: Float = 0) -> NormalizedRect {
        NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1, rotation: rotation)
    }

    /// The pixel region it covers in an image of the given size (ImageToTensorCalculator's `GetRoi`).
    func region(imageWidth: Int, imageHeight: Int) -> RegionOfInterest {
        RegionOfInterest(centerX: Double(xCenter * Float(imageWidth)), centerY: Double(yCenter * Float(imageHeight)),
                         width: Double(width * Float(imageWidth)), height: Double(height * Float(imageHeight)),
                         rotationDegrees: Double(rotation) * 180 / .pi)
    }

    /// Intersection over union of the unrotated boxes (what MediaPipe's association compares).
    func intersectionOverUnion(_ other: NormalizedRect) -> Float {
        let a = (x0: xCenter - width / 2, y0: yCenter - height / 2, x1: xCenter + width / 2, y1: yCenter + height / 2)
        let b = (x0: other.xCenter - other.width / 2, y0: other.yCenter - other.height / 2,
                 x1: other.xCenter + other.width / 2, y1: other.yCenter + other.height / 2)
        let iw = min(a.x1, b.x1) - max(a.x0, b.x0), ih = min(a.y1, b.y1) - max(a.y0, b.y0)
        guard iw > 0, ih > 0 else { return 0 }
        let intersection = iw * ih
        let union = width * height + other.width * other.height - intersection
        return union > 0 ? intersection / union : 0
    }
}

/// Angle in (−π, π], as MediaPipe's `NormalizeRadians`.
func normalizeRadians(_ angle: Float) -> Float {
    angle - 2 * .pi * ((angle - (-.pi)) / (2 * .pi)).rounded(.down)
}
