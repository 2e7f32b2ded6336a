/// Turned inputs rebuilt byte for byte as tools/mediapipe_orientation_goldens.py builds them for MediaPipe:
/// `numpy.rot90(rgb, k)` (k quarter turns counter-clockwise), and the map that carries an upright point into such a
/// buffer's frame.
public enum TurnedPixels {
    /// `numpy.rot90(pixels, k)` of tightly packed RGB8 pixels: k quarter turns counter-clockwise.
    public static func rot90(_ source: [UInt8], width w: Int, height h: Int, _ k: Int) -> (pixels: [UInt8], width: Int, height: Int) {
        let turns = ((k % 4) + 4) % 4
        let (outW, outH) = turns % 2 == 0 ? (w, h) : (h, w)
        var out = [UInt8](repeating: 0, count: w * h * 3)
        for row in 0..<outH {
            for column in 0..<outW {
                // The source pixel that lands at (row, column) after `turns` counter-clockwise quarter turns.
                let (sourceRow, sourceColumn): (Int, Int)
                switch turns {
                case 0: (sourceRow, sourceColumn) = (row, column)
                case 1: (sourceRow, sourceColumn) = (column, w - 1 - row)
                case 2: (sourceRow, sourceColumn) = (h - 1 - row, w - 1 - column)
                default: (sourceRow, sourceColumn) = (h - 1 - column, row)
                }
                for c in 0..<3 { out[(row * outW + column) * 3 + c] = source[(sourceRow * w + sourceColumn) * 3 + c] }
            }
        }
        return (out, outW, outH)
    }

    /// A point of the upright image (normalized x, y) in the frame of `rot90(upright, k)`, normalized to it.
    public static func turned(_ x: Float, _ y: Float, k: Int) -> (x: Float, y: Float) {
        switch ((k % 4) + 4) % 4 {
        case 0: return (x, y)
        case 1: return (y, 1 - x)
        case 2: return (1 - x, 1 - y)
        default: return (1 - y, x)
        }
    }
}
