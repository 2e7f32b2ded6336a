import Foundation

/// A rotated rectangle of an image, in pixels: what a model's input is cut from.
///
/// `rotationDegrees` turns the rectangle clockwise on screen (image y points down), the sense of OpenCV's
/// `RotatedRect` and of MediaPipe's `NormalizedRect.rotation` (there in radians).
package struct RegionOfInterest: Sendable, Equatable {
    package var centerX: Double
    package var centerY: Double
    package var width: Double
    package var height: Double
    package var rotationDegrees: Double

    package init(centerX: Double, centerY: Double, width: Double, height: Double, rotationDegrees: Double = 0) {
        self.centerX = centerX
        self.centerY = centerY
        self.width = width
        self.height = height
        self.rotationDegrees = rotationDegrees
    }

    /// The whole image.
    package static func whole(width: Int, height: Int) -> RegionOfInterest {
        RegionOfInterest(centerX: Double(width) / 2, centerY: Double(height) / 2, width: Double(width), height: Double(height))
    }

    /// From MediaPipe's normalized rectangle (centre and size as fractions of the image, rotation in radians).
    package static func normalized(xCenter: Double, yCenter: Double, width: Double, height: Double, rotation: Double,
                                  imageWidth: Int, imageHeight: Int) -> RegionOfInterest {
        RegionOfInterest(centerX: xCenter * Double(imageWidth), centerY: yCenter * Double(imageHeight),
                         width: width * Double(imageWidth), height: height * Double(imageHeight),
                         rotationDegrees: rotation * 180 / .pi)
    }

    var isValid: Bool {
        [centerX, centerY, width, height, rotationDegrees].allSatisfy(\.isFinite) && width > 0 && height > 0
    }
}

/// Where a tensor's pixels came from: maps points in the tensor (normalized to [0, 1]) back to image pixels,
/// undoing the letterbox and the rotated crop.
package struct TensorToImageTransform: Sendable, Equatable {
    /// The region actually sampled (grown by the letterbox, when there is one).
    package let region: RegionOfInterest
    /// Letterbox padding as fractions of the tensor: left, top, right, bottom.
    package let padding: (left: Double, top: Double, right: Double, bottom: Double)

    package static func == (a: Self, b: Self) -> Bool {
        a.region == b.region && a.padding == b.padding
    }

    /// A point of the tensor (x, y in [0, 1] of its width and height) in image pixels.
    package func imagePoint(tensorX: Double, tensorY: Double) -> (x: Double, y: Double) {
        let angle = region.rotationDegrees * .pi / 180
        let u = tensorX - 0.5, v = tensorY - 0.5
        let dx = u * region.width, dy = v * region.height
        return (region.centerX + cos(angle) * dx - sin(angle) * dy, region.centerY + sin(angle) * dx + cos(angle) * dy)
    }

    /// The inverse of ``imagePoint(tensorX:tensorY:)``: where an image pixel position lies in the tensor, in [0, 1]
    /// of its width and height (outside that range when the point is outside the region).
    package func tensorPoint(imageX: Double, imageY: Double) -> (x: Double, y: Double) {
        inverse.tensorPoint(imageX: imageX, imageY: imageY)
    }

    /// ``tensorPoint(imageX:imageY:)`` with the rotation's cosine and sine taken once, for a point per image pixel
    /// (segmentation masks: taking them per pixel cost ~45 ms of a 1280 × 720 frame).
    package var inverse: ImageToTensorMap { ImageToTensorMap(region) }
}

/// Image pixel positions to tensor positions (in [0, 1] of its width and height) for one region.
package struct ImageToTensorMap: Sendable {
    @usableFromInline let centerX, centerY, width, height, cosine, sine: Double

    init(_ region: RegionOfInterest) {
        let angle = region.rotationDegrees * .pi / 180
        (centerX, centerY, width, height) = (region.centerX, region.centerY, region.width, region.height)
        (cosine, sine) = (cos(angle), sin(angle))
    }

    @inlinable
    package func tensorPoint(imageX: Double, imageY: Double) -> (x: Double, y: Double) {
        let dx = imageX - centerX, dy = imageY - centerY
        let u = cosine * dx + sine * dy, v = -sine * dx + cosine * dy
        return (u / width + 0.5, v / height + 0.5)
    }

    /// How far the tensor position moves for one pixel to the right in the image (the map is affine).
    package var stepPerImageColumn: (x: Double, y: Double) { (cosine / width, -sine / height) }
}
