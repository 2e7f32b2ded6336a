import CVisionTasksPNG
import Foundation
import VisionTasksImaging

/// Lossless PNG output through libpng's simplified write API.
public enum PNGEncoder {
    /// Encodes packed 8-bit pixels: 1 (gray), 3 (RGB) or 4 (RGBA) channels.
    public static func encode(pixels: [UInt8], width: Int, height: Int, channels: Int) throws(ImageError) -> [UInt8] {
        // libpng takes 32-bit sizes and a 32-bit row stride: checked before any conversion could trap.
        let (rowBytes, rowOverflow) = width.multipliedReportingOverflow(by: channels)
        let (needed, neededOverflow) = rowBytes.multipliedReportingOverflow(by: height)
        guard width > 0, height > 0, [1, 3, 4].contains(channels), !rowOverflow, !neededOverflow,
              let width32 = UInt32(exactly: width), let height32 = UInt32(exactly: height), let stride = Int32(exactly: rowBytes),
              pixels.count >= needed else {
            throw .encodingFailed("\(width)×\(height)×\(channels) from \(pixels.count) bytes")
        }
        var image = png_image()
        image.version = UInt32(PNG_IMAGE_VERSION)
        image.width = width32
        image.height = height32
        image.format = channels == 1 ? PNGFormat.gray : channels == 3 ? PNGFormat.rgb : PNGFormat.rgba
        var size: Int = 0
        // First call sizes the output, second writes it.
        guard pixels.withUnsafeBytes({ png_image_write_to_memory(&image, nil, &size, 0, $0.baseAddress, stride, nil) }) != 0 else {
            throw .encodingFailed("libpng could not size the image")
        }
        var output = [UInt8](repeating: 0, count: size)
        let written = output.withUnsafeMutableBytes { out in
            pixels.withUnsafeBytes { png_image_write_to_memory(&image, out.baseAddress, &size, 0, $0.baseAddress, stride, nil) }
        }
        png_image_free(&image)
        guard written != 0 else { throw .encodingFailed("libpng failed to write") }
        return Array(output.prefix(size))
    }

    /// Writes `image` as PNG: RGBA when it has alpha, else RGB.
    public static func write(_ image: MPImage, to path: String) throws(ImageError) {
        let bytes: [UInt8]
        if image.hasAlpha {
            bytes = try encode(pixels: image.rgbaPixels(), width: image.width, height: image.height, channels: 4)
        } else {
            bytes = try encode(pixels: image.rgbPixels(), width: image.width, height: image.height, channels: 3)
        }
        do { try Data(bytes).write(to: URL(fileURLWithPath: path)) } catch {
            throw .fileUnreadable(path: path, reason: "cannot write: \(error.localizedDescription)")
        }
    }
}
