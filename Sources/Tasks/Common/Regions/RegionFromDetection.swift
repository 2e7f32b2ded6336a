import Foundation

/// The region a landmark model should see for one detection, before ``RegionTransformation``: MediaPipe's
/// `AlignmentPointsRectsCalculator` (pose) or `DetectionsToRectsCalculator` with rotation (hands, faces).
/// The rotation turns the vector from the `start` keypoint to the `end` keypoint so that it points at `targetAngle`.
package struct RegionFromDetection: Sendable {
    package enum Shape: Sendable {
        /// A square centred on the start keypoint, twice the keypoints' distance on a side (in pixels).
        case alignmentPoints
        /// The detection's box.
        case boundingBox
    }

    var shape: Shape
    /// Indices of the keypoints that set the rotation (and, for `.alignmentPoints`, the centre and size).
    package var startKeypoint: Int
    package var endKeypoint: Int
    /// Radians; 90° (π/2) for pose: the hips-to-head vector points up.
    var targetAngle: Float

    package init(shape: Shape, startKeypoint: Int, endKeypoint: Int, targetAngle: Float) {
        self.shape = shape; self.startKeypoint = startKeypoint; self.endKeypoint = endKeypoint; self.targetAngle = targetAngle
    }

    /// `box` is (xMin, yMin, width, height), normalized; only `.boundingBox` reads it.
    package func rect(start: SIMD2<Float>, end: SIMD2<Float>, box: (Float, Float, Float, Float) = (0, 0, 0, 0),
              imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        let w = Float(imageWidth), h = Float(imageHeight)
        let x0 = start.x * w, y0 = start.y * h, x1 = end.x * w, y1 = end.y * h
        var rect: NormalizedRect
        switch shape {
        case .alignmentPoints:
            let side = ((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0)).squareRoot() * 2
            rect = NormalizedRect(xCenter: x0 / w, yCenter: y0 / h, width: side / w, height: side / h)
        case .boundingBox:
            rect = NormalizedRect(xCenter: box.0 + box.2 / 2, yCenter: box.1 + box.3 / 2, width: box.2, height: box.3)
        }
        rect.rotation = normalizeRadians(targetAngle - atan2f(-(y1 - y0), x1 - x0))
        return rect
    }
}

/// MediaPipe's `RectTransformationCalculator`: shifts a region along its own rotated axes, squares it on its long
/// (or short) side in pixels, then scales it.
package struct RegionTransformation: Sendable {
    var scaleX: Float = 1
    var scaleY: Float = 1
    /// Shifts in units of the region's width and height, along its rotated axes.
    var shiftX: Float = 0
    var shiftY: Float = 0
    var squareLong = false
    var squareShort = false

    package init(scaleX: Float = 1, scaleY: Float = 1, shiftX: Float = 0, shiftY: Float = 0, squareLong: Bool = false, squareShort: Bool = false) {
        self.scaleX = scaleX; self.scaleY = scaleY; self.shiftX = shiftX; self.shiftY = shiftY
        self.squareLong = squareLong; self.squareShort = squareShort
    }

    package func apply(_ input: NormalizedRect, imageWidth: Int, imageHeight: Int) -> NormalizedRect {
        var rect = input
        let w = Float(imageWidth), h = Float(imageHeight)
        var width = rect.width, height = rect.height
        if shiftX != 0 || shiftY != 0 {
            if rect.rotation == 0 {
                rect.xCenter += width * shiftX
                rect.yCenter += height * shiftY
            } else {
                let c = cosf(rect.rotation), s = sinf(rect.rotation)
                rect.xCenter += (w * width * shiftX * c - h * height * shiftY * s) / w
                rect.yCenter += (w * width * shiftX * s + h * height * shiftY * c) / h
            }
        }
        if squareLong {
            let side = max(width * w, height * h)
            width = side / w
            height = side / h
        } else if squareShort {
            let side = min(width * w, height * h)
            width = side / w
            height = side / h
        }
        rect.width = width * scaleX
        rect.height = height * scaleY
        return rect
    }
}
