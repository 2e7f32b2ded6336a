/// A mask the size of the input image (MediaPipe's `MPMask`). The tasks here produce float masks, values in [0, 1].
public struct Mask: Sendable, Equatable {
    /// The type of a mask's values (MediaPipe's `MPMaskDataType`).
    public enum DataType: Sendable, Equatable { case uInt8, float32 }

    public let width: Int
    public let height: Int
    public let dataType: DataType
    /// Row-major values, `width × height` of them, when `dataType` is `.float32`; empty otherwise.
    public let float32Data: [Float]
    /// Row-major values, `width × height` of them, when `dataType` is `.uInt8`; empty otherwise.
    public let uint8Data: [UInt8]

    /// A float mask; `float32Data` must hold `width × height` values.
    public init(width: Int, height: Int, float32Data: [Float]) {
        self.width = width; self.height = height; self.dataType = .float32
        self.float32Data = float32Data; self.uint8Data = []
    }

    /// A category mask; `uint8Data` must hold `width × height` values.
    public init(width: Int, height: Int, uint8Data: [UInt8]) {
        self.width = width; self.height = height; self.dataType = .uInt8
        self.float32Data = []; self.uint8Data = uint8Data
    }
}
