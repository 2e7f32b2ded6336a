extension InteractiveSegmenter {
    /// What the user pointed at (MediaPipe's `RegionOfInterest`): one point on the object, or the points of a
    /// scribble over it, normalized to the image buffer as stored (MediaPipe draws them on the buffer, whatever the
    /// image's orientation). Nested here because the module's image layer has a type of that name.
    public struct RegionOfInterest: Sendable, Equatable {
        /// The point on the object; nil for a scribble.
        public let keypoint: NormalizedKeypoint?
        /// The scribble's points; nil for a single point.
        public let scribbles: [NormalizedKeypoint]?

        public init(normalizedKeyPoint keypoint: NormalizedKeypoint) {
            self.keypoint = keypoint
            scribbles = nil
        }

        public init(scribbles: [NormalizedKeypoint]) {
            keypoint = nil
            self.scribbles = scribbles
        }

        /// The points drawn: the keypoint, or every point of the scribble.
        var points: [NormalizedKeypoint] { keypoint.map { [$0] } ?? scribbles ?? [] }
    }
}

/// The region of interest as MediaPipe's legacy interactive segmenter graph renders it into the model's fourth
/// channel: on a black canvas of the image's size, each point (the keypoint, or each point of a scribble — points,
/// not the lines between them) a filled circle of value 255 whose radius is the graph's "thickness" `max(width / 512,
/// height / 512, 1)` rounded (RegionOfInterestToRenderDataCalculator, then AnnotationRenderer's `DrawPoint`:
/// `cv::circle(…, thickness, color, -1)`, 8-connected, no antialiasing), centred at `round(x · width)`,
/// `round(y · height)` with the coordinates as floats. The canvas is then stretched with the image to the model's
/// input (``FourChannelInput``), which is where its edges soften.
enum RegionRendering {
    static func alpha(_ region: InteractiveSegmenter.RegionOfInterest, width: Int, height: Int) -> [UInt8] {
        var canvas = [UInt8](repeating: 0, count: width * height)
        let thickness = max(max(Double(width) / 512, Double(height) / 512), 1)
        let radius = max(1, Int(thickness.rounded(.toNearestOrAwayFromZero)))
        for point in region.points {
            // The proto's float coordinates; far-off points are clamped (no pixel of theirs is on the canvas).
            let x = (Double(Float(point.location.x)) * Double(width)).rounded(.toNearestOrAwayFromZero)
            let y = (Double(Float(point.location.y)) * Double(height)).rounded(.toNearestOrAwayFromZero)
            let limit = Double(1 << 28)
            drawDisc(&canvas, width: width, height: height, centerX: Int(min(max(x, -limit), limit)),
                     centerY: Int(min(max(y, -limit), limit)), radius: radius)
        }
        return canvas
    }

    /// OpenCV's `Circle` (drawing.cpp) filled: the midpoint circle walk, each step filling the four spans it reaches,
    /// clipped to the canvas. Checked against OpenCV 4.10's `cv2.circle(…, -1)` on 3000 random discs (radius 1–11,
    /// centres on and off canvases of 1–59 pixels): identical.
    static func drawDisc(_ canvas: inout [UInt8], width: Int, height: Int, centerX cx: Int, centerY cy: Int, radius r: Int) {
        var err = 0, dx = r, dy = 0, plus = 1, minus = (r << 1) - 1
        let inside = cx >= r && cx < width - r && cy >= r && cy < height - r
        func span(_ y: Int, _ x1: Int, _ x2: Int) {
            guard y >= 0, y < height else { return }
            let from = max(x1, 0), to = min(x2, width - 1)
            guard from <= to else { return }
            for x in from...to { canvas[y * width + x] = 255 }
        }
        while dx >= dy {
            let y11 = cy - dy, y12 = cy + dy, y21 = cy - dx, y22 = cy + dx
            let x11 = cx - dx, x12 = cx + dx, x21 = cx - dy, x22 = cx + dy
            if inside {
                span(y11, x11, x12); span(y12, x11, x12); span(y21, x21, x22); span(y22, x21, x22)
            } else if x11 < width && x12 >= 0 && y21 < height && y22 >= 0 {
                span(y11, x11, x12); span(y12, x11, x12)
                if x21 < width && x22 >= 0 { span(y21, x21, x22); span(y22, x21, x22) }
            }
            dy += 1
            err += plus
            plus += 2
            let mask = (err <= 0 ? 1 : 0) - 1
            err -= minus & mask
            dx += mask
            minus -= mask & 2
        }
    }
}
