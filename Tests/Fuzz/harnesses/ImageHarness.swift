@testable import VisionTasksImaging

/// The image decoders as a user reaches them: bytes to an `MPImage` (the pixel budget, libpng, libjpeg-turbo's
/// entropy decoding and our stb_image reconstruction), then one conversion that reads every pixel.
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
