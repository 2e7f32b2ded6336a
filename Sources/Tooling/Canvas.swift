import Foundation
import VisionTasksImaging

/// An RGBA picture to draw results on: landmarks, connections, boxes, labels and masks, then PNG.
public struct Canvas: Sendable {
    public let width: Int
    public let height: Int
    /// RGBA8, row-major.
    public private(set) var pixels: [UInt8]

    public struct Color: Sendable, Equatable {
        public var red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8
        public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
            self.red = red; self.green = green; self.blue = blue; self.alpha = alpha
        }
        public static let red = Color(red: 255, green: 48, blue: 48)
        public static let green = Color(red: 48, green: 255, blue: 48)
        public static let blue = Color(red: 48, green: 96, blue: 255)
        public static let white = Color(red: 255, green: 255, blue: 255)
        public static let black = Color(red: 0, green: 0, blue: 0)
    }

    /// A canvas showing `image`.
    public init(image: MPImage) {
        width = image.width
        height = image.height
        pixels = image.rgbaPixels()
    }

    /// A blank canvas of one colour.
    public init(width: Int, height: Int, fill: Color = .black) {
        self.width = max(width, 1)
        self.height = max(height, 1)
        pixels = Array(repeating: 0, count: self.width * self.height * 4)
        for i in 0..<(self.width * self.height) {
            pixels[4 * i] = fill.red; pixels[4 * i + 1] = fill.green; pixels[4 * i + 2] = fill.blue; pixels[4 * i + 3] = fill.alpha
        }
    }

    /// Blends `color` over pixel (x, y) with its alpha scaled by `coverage`; points outside are ignored.
    public mutating func blend(x: Int, y: Int, _ color: Color, coverage: Double = 1) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let a = Double(color.alpha) / 255 * min(max(coverage, 0), 1)
        let at = 4 * (y * width + x)
        for (k, value) in [color.red, color.green, color.blue].enumerated() {
            pixels[at + k] = UInt8((Double(pixels[at + k]) * (1 - a) + Double(value) * a).rounded())
        }
        pixels[at + 3] = max(pixels[at + 3], UInt8((a * 255).rounded()))
    }

    /// A filled disc centred on (x, y) (pixel coordinates; pixel centres at +0.5).
    public mutating func drawPoint(x: Double, y: Double, radius: Double, _ color: Color) {
        // Anything this far off the canvas draws nothing; the bound also keeps Int(_:) from trapping.
        guard x.isFinite, y.isFinite, radius.isFinite, radius > 0, abs(x) < 1e6, abs(y) < 1e6, radius < 1e6 else { return }
        let x0 = Int((x - radius).rounded(.down)), x1 = Int((x + radius).rounded(.up))
        let y0 = Int((y - radius).rounded(.down)), y1 = Int((y + radius).rounded(.up))
        guard x1 >= 0, y1 >= 0, x0 < width, y0 < height else { return }
        for py in max(y0, 0)...min(y1, height - 1) {
            for px in max(x0, 0)...min(x1, width - 1) {
                let distance = hypot(Double(px) + 0.5 - x, Double(py) + 0.5 - y)
                blend(x: px, y: py, color, coverage: radius + 0.5 - distance)
            }
        }
    }

    /// A line of the given thickness from (x0, y0) to (x1, y1), antialiased at its edges.
    public mutating func drawLine(from start: (x: Double, y: Double), to end: (x: Double, y: Double), thickness: Double, _ color: Color) {
        guard [start.x, start.y, end.x, end.y, thickness].allSatisfy({ $0.isFinite && abs($0) < 1e6 }), thickness > 0 else { return }
        let half = thickness / 2
        let minX = Int((min(start.x, end.x) - half - 1).rounded(.down)), maxX = Int((max(start.x, end.x) + half + 1).rounded(.up))
        let minY = Int((min(start.y, end.y) - half - 1).rounded(.down)), maxY = Int((max(start.y, end.y) + half + 1).rounded(.up))
        guard maxX >= 0, maxY >= 0, minX < width, minY < height else { return }
        let dx = end.x - start.x, dy = end.y - start.y
        let lengthSquared = dx * dx + dy * dy
        for py in max(minY, 0)...min(maxY, height - 1) {
            for px in max(minX, 0)...min(maxX, width - 1) {
                let cx = Double(px) + 0.5, cy = Double(py) + 0.5
                let t = lengthSquared > 0 ? min(max(((cx - start.x) * dx + (cy - start.y) * dy) / lengthSquared, 0), 1) : 0
                let distance = hypot(cx - (start.x + t * dx), cy - (start.y + t * dy))
                let coverage = half + 0.5 - distance
                if coverage > 0 { blend(x: px, y: py, color, coverage: coverage) }
            }
        }
    }

    /// The outline of an axis-aligned box in pixels.
    public mutating func drawBox(x: Double, y: Double, width boxWidth: Double, height boxHeight: Double, thickness: Double, _ color: Color) {
        let corners = [(x, y), (x + boxWidth, y), (x + boxWidth, y + boxHeight), (x, y + boxHeight)]
        for i in 0..<4 {
            drawLine(from: corners[i], to: corners[(i + 1) % 4], thickness: thickness, color)
        }
    }

    /// Text in a 5×7 pixel font scaled by `scale`, top-left at (x, y), on a dark backing for legibility.
    public mutating func drawLabel(_ text: String, x: Int, y: Int, scale: Int = 2, _ color: Color) {
        // A label this far off the canvas draws nothing; the bound keeps `x + boxWidth` from overflowing.
        let limit = 1 << 24
        guard (-limit...limit).contains(x), (-limit...limit).contains(y), scale <= 1 << 10 else { return }
        let scale = max(scale, 1)
        let glyphs = text.uppercased().map { BitmapFont.glyph($0) }
        let boxWidth = glyphs.count * 6 * scale + scale, boxHeight = 9 * scale
        for py in y..<(y + boxHeight) { for px in x..<(x + boxWidth) { blend(x: px, y: py, Color(red: 0, green: 0, blue: 0, alpha: 160)) } }
        for (i, glyph) in glyphs.enumerated() {
            for row in 0..<7 {
                for column in 0..<5 where glyph[row] & (0x10 >> UInt8(column)) != 0 {
                    for sy in 0..<scale {
                        for sx in 0..<scale {
                            blend(x: x + scale + (i * 6 + column) * scale + sx, y: y + scale + row * scale + sy, color)
                        }
                    }
                }
            }
        }
    }

    /// Tints the canvas with `color` where `mask` (height × width values in [0, 1], resampled to the canvas by
    /// nearest neighbour) is high, at most `opacity`.
    public mutating func overlay(mask: [Float], maskWidth: Int, maskHeight: Int, _ color: Color, opacity: Double = 0.5) {
        guard maskWidth > 0, maskHeight > 0, mask.count >= maskWidth * maskHeight else { return }
        for py in 0..<height {
            let my = min(py * maskHeight / height, maskHeight - 1)
            for px in 0..<width {
                let mx = min(px * maskWidth / width, maskWidth - 1)
                let value = Double(mask[my * maskWidth + mx])
                if value > 0 { blend(x: px, y: py, color, coverage: opacity * min(value, 1)) }
            }
        }
    }

    /// The canvas as a PNG file's bytes.
    public func pngData() throws(ImageError) -> [UInt8] {
        try PNGEncoder.encode(pixels: pixels, width: width, height: height, channels: 4)
    }

    public func writePNG(to path: String) throws(ImageError) {
        let bytes = try pngData()
        do { try Data(bytes).write(to: URL(fileURLWithPath: path)) } catch {
            throw .fileUnreadable(path: path, reason: "cannot write: \(error.localizedDescription)")
        }
    }

    /// A float mask (values in [0, 1]) as an 8-bit grayscale PNG.
    public static func grayscalePNG(mask: [Float], width: Int, height: Int) throws(ImageError) -> [UInt8] {
        guard width > 0, height > 0, mask.count >= width * height else {
            throw .encodingFailed("mask of \(mask.count) values for \(width)×\(height)")
        }
        let bytes = mask.prefix(width * height).map { UInt8((min(max($0.isFinite ? $0 : 0, 0), 1) * 255).rounded()) }
        return try PNGEncoder.encode(pixels: Array(bytes), width: width, height: height, channels: 1)
    }
}

/// A 5×7 pixel font for labels: digits, letters (shown upper case) and a little punctuation. Each glyph is
/// seven rows of five bits, most significant bit leftmost.
enum BitmapFont {
    static func glyph(_ character: Character) -> [UInt8] {
        glyphs[character] ?? glyphs["?"]!
    }

    private static let glyphs: [Character: [UInt8]] = [
        " ": [0, 0, 0, 0, 0, 0, 0],
        "0": [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E], "1": [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        "2": [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F], "3": [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        "4": [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02], "5": [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        "6": [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E], "7": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        "8": [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E], "9": [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
        "A": [0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11], "B": [0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E],
        "C": [0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E], "D": [0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C],
        "E": [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F], "F": [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10],
        "G": [0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F], "H": [0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11],
        "I": [0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E], "J": [0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C],
        "K": [0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11], "L": [0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F],
        "M": [0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11], "N": [0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11],
        "O": [0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E], "P": [0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10],
        "Q": [0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D], "R": [0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11],
        "S": [0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E], "T": [0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04],
        "U": [0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E], "V": [0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04],
        "W": [0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A], "X": [0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11],
        "Y": [0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04], "Z": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F],
        ".": [0, 0, 0, 0, 0, 0x0C, 0x0C], ":": [0, 0x0C, 0x0C, 0, 0x0C, 0x0C, 0], "-": [0, 0, 0, 0x1F, 0, 0, 0],
        "_": [0, 0, 0, 0, 0, 0, 0x1F], "%": [0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03], "/": [0, 0x01, 0x02, 0x04, 0x08, 0x10, 0],
        "(": [0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02], ")": [0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08],
        "?": [0x0E, 0x11, 0x01, 0x02, 0x04, 0, 0x04], "=": [0, 0, 0x1F, 0, 0x1F, 0, 0], "+": [0, 0x04, 0x04, 0x1F, 0x04, 0x04, 0],
    ]
}
