import CVisionTasksBLAS
import CVisionTasksHEIF
import CVisionTasksJPEG
import CVisionTasksPNG
import CVisionTasksTIFF
import CVisionTasksWebP
import CVisionTasksZlib
import XCTest

/// The Debian libraries the package links are found and callable (headers via pkg-config, symbols at link).
final class SystemLibraryTests: XCTestCase {
    func testOpenBLASMultiplies() {
        // [1 2; 3 4] × [5 6; 7 8] = [19 22; 43 50]
        let a: [Float] = [1, 2, 3, 4], b: [Float] = [5, 6, 7, 8]
        var c = [Float](repeating: 0, count: 4)
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, 2, 2, 2, 1, a, 2, b, 2, 0, &c, 2)
        XCTAssertEqual(c, [19, 22, 43, 50])
    }

    func testLibPNGIsVersion16() {
        XCTAssertEqual(png_access_version_number() / 100, 106)
    }

    func testLibJPEGCreatesADecompressor() {
        var info = jpeg_decompress_struct()
        var errors = jpeg_error_mgr()
        info.err = jpeg_std_error(&errors)
        jpeg_CreateDecompress(&info, JPEG_LIB_VERSION, MemoryLayout<jpeg_decompress_struct>.size)
        XCTAssertEqual(info.global_state, 200)  // DSTATE_START, libjpeg's jpegint.h
        jpeg_destroy_decompress(&info)
    }

    func testZlibVersion() {
        XCTAssertEqual(String(cString: zlibVersion()).first, "1")
    }

    /// Debian 12's libtiff 4.5 (per-file error handlers, TIFFOpenOptions, need 4.5), libwebp 1.2 and libheif 1.15.
    func testImageFormatLibraries() {
        let tiff = String(cString: TIFFGetVersion())
        XCTAssertTrue(tiff.contains("Version 4."), tiff)
        XCTAssertGreaterThanOrEqual(WebPGetDecoderVersion(), 0x010200)
        XCTAssertGreaterThanOrEqual(heif_get_version_number_major(), 1)
        XCTAssertGreaterThanOrEqual(heif_get_version_number_major() * 100 + heif_get_version_number_minor(), 115)
    }
}
