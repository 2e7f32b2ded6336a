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

    /// The task's region of interest for a whole image as MediaPipe's vision task runner makes it from the image's
    /// orientation (`ConvertToNormalizedRect` in base_vision_task_api.h; the iOS runner alike): turned by the
    /// orientation, and for a quarter turn width and height traded, each scaled by the image's aspect ratio, so that
    /// the turned rectangle covers the image again (ImageToTensorCalculator scales a rect's width by the image's width
    /// before turning it). In float, as C++ computes it.
    static func whole(of image: MPImage) -> NormalizedRect {
        region(of: image, regionOfInterest: nil)
    }

    /// ``whole(of:)`` for the part of the image a region of interest (normalized, as MediaPipe's `RectF`/`CGRect`)
    /// covers: centred on it, its size traded for a quarter turn as the whole image's is.
    static func region(of image: MPImage, regionOfInterest roi: CGRect?) -> NormalizedRect {
        let degrees = image.orientation.regionRotationDegrees
        let roi = roi ?? CGRect(x: 0, y: 0, width: 1, height: 1)
        var rect = NormalizedRect(xCenter: Float(roi.midX), yCenter: Float(roi.midY), width: Float(roi.width),
                                  height: Float(roi.height), rotation: Float(degrees * .pi / 180))
        if image.orientation.isQuarterTurn {
            rect.width = Float(roi.height) * Float(image.height) / Float(image.width)
            rect.height = Float(roi.width) * Float(image.width) / Float(image.height)
        }
        return rect
    }

    /// MediaPipe's checks of a region of interest (`ConvertToNormalizedRect`): left < right, top < bottom, all of it
    /// inside [0, 1].
    static func validate(regionOfInterest roi: CGRect) throws(VisionTaskError) {
        let values = [roi.minX, roi.minY, roi.maxX, roi.maxY]
        guard values.allSatisfy(\.isFinite), roi.width > 0, roi.height > 0 else {
            throw .invalidOption(name: "regionOfInterest", reason: "\(roi) is empty: MediaPipe expects left < right and top < bottom")
        }
        guard values.allSatisfy({ (0...1).contains($0) }) else {
            throw .invalidOption(name: "regionOfInterest", reason: "\(roi) is outside [0, 1]: MediaPipe expects normalized values")
        }
    }

    /// The pixel region it covers in an image of the given size (ImageToTensorCalculator's `GetRoi`).
    func region(imageWidth: Int, imageHeight: Int) -> RegionOfInterest {
        RegionOfInterest(centerX: Double(xCenter * Float(imageWidth)), centerY: Double(yCenter * Float(imageHeight)),
                         width: Double(width * Float(imageWidth)), height: Double(height * Float(imageHeight)),
                         rotationDegrees: Double(rotation) * 180 / .pi)
    }

    /// Intersection over union of the unrotated boxes, as MediaPipe's association compares them: the rectangle
    /// `ToRectangle` makes (`mediapipe/util/rectangle_util.cc`: the corner from the center, then the size) is what
    /// its `CalculateIou` measures.
    func mediaPipeIntersectionOverUnion(_ other: NormalizedRect) -> Float {
        VisionTasks.mediaPipeIntersectionOverUnion(rectangle, other.rectangle)
    }

    private var rectangle: (xMin: Float, yMin: Float, width: Float, height: Float) {
        (xCenter - width / 2, yCenter - height / 2, width, height)
    }
}

/// Angle in (−π, π], as MediaPipe's `NormalizeRadians`.
func normalizeRadians(_ angle: Float) -> Float {
    angle - 2 * .pi * ((angle - (-.pi)) / (2 * .pi)).rounded(.down)
}

extension MPImage {
    /// The image with MediaPipe's `regionOfInterest:` (normalized to the image as stored), checked as MediaPipe checks
    /// it; the pixels are shared, not copied. The classifier's and the embedder's `…(image:regionOfInterest:)` forms.
    func with(regionOfInterest roi: CGRect) throws(VisionTaskError) -> MPImage {
        try NormalizedRect.validate(regionOfInterest: roi)
        var image = self
        image.regionOfInterest = roi
        return image
    }
}
