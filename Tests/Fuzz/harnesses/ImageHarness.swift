@testable import VisionTasksImaging

/// The image decoders as a user reaches them: bytes to an `MPImage` (the pixel budget, libpng, libjpeg-turbo's
/// entropy decoding and our stb_image reconstruction, our BMP/GIF/PNM decoders, libtiff, libwebp, libheif), then one
/// conversion that reads every pixel.
enum ImageHarness {
    static func runPNG(_ bytes: UnsafeRawBufferPointer) {
        // Only PNGs: the JPEG harness owns JPEG (the decoder picks by signature, so a mutated signature is a dead end).
        guard bytes.count >= 8, bytes.prefix(8).elementsEqual(ImageDecoder.pngSignature) else { return }
        decode(bytes)
    }

    static func runJPEG(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 3, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF else { return }
        decode(bytes)
    }

    // One harness per decoder added for issue #42, each fed only its own format (the decoder picks by content, so a
    // mutation that changes the signature leaves that harness's decoder). BMP, GIF and PNM are ours (stb_image's
    // rules in Swift); TIFF, WebP and HEIF go through libtiff, libwebp and libheif behind the C shims.
    static func runBMP(_ bytes: UnsafeRawBufferPointer) { decode(bytes, only: .bmp) }
    static func runGIF(_ bytes: UnsafeRawBufferPointer) { decode(bytes, only: .gif) }
    static func runPNM(_ bytes: UnsafeRawBufferPointer) { decode(bytes, only: .pnm) }
    static func runTIFF(_ bytes: UnsafeRawBufferPointer) { decode(bytes, only: .tiff) }
    static func runWebP(_ bytes: UnsafeRawBufferPointer) { decode(bytes, only: .webp) }
    static func runHEIF(_ bytes: UnsafeRawBufferPointer) { decode(bytes, only: .heif) }

    private static func decode(_ bytes: UnsafeRawBufferPointer, only format: ImageFormat) {
        guard (try? ImageFormat.sniff(Array(bytes.prefix(256)))) == format else { return }
        decode(bytes)
    }

    static func runEXIF(_ bytes: UnsafeRawBufferPointer) {
        _ = EXIF.orientation(Array(bytes))
    }

    private static func decode(_ bytes: UnsafeRawBufferPointer) {
        guard let image = try? MPImage(encoded: Array(bytes)) else { return }
        _ = image.exifOrientation
        var sum = 0
        for byte in image.rgbPixels() { sum &+= Int(byte) }
        blackHole(sum)
    }
}

@inline(never)
func blackHole(_ value: Int) {
    if value == .min { print("") }
}
