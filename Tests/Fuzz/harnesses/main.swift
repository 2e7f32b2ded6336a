// libFuzzer harnesses, one per parser, in one binary: CI builds it once (tools/fuzz, `-sanitize=fuzzer,address`)
// and the harness is picked by VISION_TASKS_FUZZ_HARNESS, since libFuzzer's own flags own the command line.
import CVisionTasksFuzzDriver
import Foundation

/// A harness: parse or drive one thing from arbitrary bytes. Errors are the expected answer; a trap, an
/// out-of-bounds access (under ASan), a leak, a hang or an allocation past libFuzzer's `-malloc_limit_mb` is a finding.
struct Harness: Sendable {
    let name: String
    let summary: String
    let run: @Sendable (UnsafeRawBufferPointer) -> Void
}

/// Names contain what they parse (`tools/fuzz` lists them, one a line).
let harnesses: [Harness] = [
    Harness(name: "model-plan", summary: "a .tflite flatbuffer parsed, planned (every kernel's prepare) and invoked when small",
            run: ModelPlanHarness.run),
    Harness(name: "bundle-zip", summary: "a .task zip bundle: central directory, nested bundles, members inflated",
            run: BundleHarness.run),
    Harness(name: "tflite-metadata", summary: "TFLite metadata (the M001 flatbuffer) and its associated files",
            run: MetadataHarness.run),
    Harness(name: "detector-metadata", summary: "MediaPipe's object detector metadata (the V001 flatbuffer: anchors, decoding options)",
            run: DetectorMetadataHarness.run),
    Harness(name: "flexbuffer", summary: "FlexBuffer custom options", run: FlexBufferHarness.run),
    Harness(name: "face-geometry-protobuf", summary: "the face geometry pipeline metadata protobuf",
            run: FaceGeometryHarness.run),
    Harness(name: "npy", summary: "NumPy .npy arrays", run: NumPyHarness.run),
    Harness(name: "png", summary: "PNG through libpng to MPImage", run: ImageHarness.runPNG),
    Harness(name: "jpeg", summary: "JPEG through libjpeg-turbo's entropy decoder and our stb-exact reconstruction",
            run: ImageHarness.runJPEG),
    Harness(name: "exif", summary: "the EXIF APP1 segment's orientation tag", run: ImageHarness.runEXIF),
    Harness(name: "bmp", summary: "BMP through our stb_image-exact decoder", run: ImageHarness.runBMP),
    Harness(name: "gif", summary: "GIF's first frame through our stb_image-exact LZW decoder", run: ImageHarness.runGIF),
    Harness(name: "pnm", summary: "binary PGM/PPM through our stb_image-exact decoder", run: ImageHarness.runPNM),
    Harness(name: "tiff", summary: "TIFF through libtiff's RGBA interface (its per-file error handlers)", run: ImageHarness.runTIFF),
    Harness(name: "webp", summary: "WebP (still, animated, EXIF chunk) through libwebp's demuxer and animation decoder",
            run: ImageHarness.runWebP),
    Harness(name: "heif", summary: "HEIF/HEIC/AVIF through libheif", run: ImageHarness.runHEIF),
    Harness(name: "running-mode", summary: "the running-mode core (TaskRunner, smoothing) driven by a stream of calls and timestamps",
            run: RunningModeHarness.run),
]

let selectedHarness: Harness? = ProcessInfo.processInfo.environment["VISION_TASKS_FUZZ_HARNESS"].flatMap { name in
    harnesses.first { $0.name == name }
}

guard selectedHarness != nil else {
    let names = harnesses.map { "  \($0.name): \($0.summary)" }.joined(separator: "\n")
    FileHandle.standardError.write(Data("set VISION_TASKS_FUZZ_HARNESS to one of:\n\(names)\n".utf8))
    exit(2)
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
let status = vt_fuzz_run_driver(&argc, &argv) { data, size in
    selectedHarness?.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
if status == -1 {
    FileHandle.standardError.write(Data("this build has no libFuzzer: build and run it with tools/fuzz\n".utf8))
}
exit(status == 0 ? 0 : 1)
