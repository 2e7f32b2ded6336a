import Foundation
import VisionTasksModelFormat
import XCTest

/// Paths of the checkout the tests run in, and of the shared data beside it.
public enum Repository {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    public static let models = root.appendingPathComponent("Models")
    public static let fixtures = root.appendingPathComponent("Tests/Fixtures")
    /// ../shared beside the checkout: images, videos and MediaPipe's reference outputs.
    public static let shared = root.deletingLastPathComponent().appendingPathComponent("shared")

    /// Every model file the manifest lists, as fetched into Models/ by `tools/fetch-models`.
    public static func modelFiles() throws -> [String] {
        let manifest = try JSONSerialization.jsonObject(
            with: Data(contentsOf: models.appendingPathComponent("manifest.json"))) as! [String: Any]
        let names = (manifest["models"] as! [[String: Any]]).map { $0["file"] as! String }
            .filter { $0.hasSuffix(".task") || $0.hasSuffix(".tflite") }
        for name in names where !FileManager.default.fileExists(atPath: modelPath(name)) {
            XCTFail("Models/\(name) is missing: run tools/fetch-models")
        }
        return names
    }

    public static func modelPath(_ name: String) -> String { models.appendingPathComponent(name).path }

    /// LiteRT's goldens, `name` being one of the folders its tools write (`goldens`, `goldens-quantized`,
    /// `kernel-sweeps`, `goldens-postprocess`): in the cache, or under VISION_TASKS_GOLDENS (a folder, relative to the
    /// checkout), where tools/arm64 keeps what LiteRT answers on arm64.
    public static func goldens(_ name: String) -> URL {
        let folder = ProcessInfo.processInfo.environment["VISION_TASKS_GOLDENS"].flatMap { $0.isEmpty ? nil : $0 } ?? ".cache"
        return URL(fileURLWithPath: folder, relativeTo: root).appendingPathComponent(name)
    }

    /// MediaPipe's answers, file `name` of ../shared/reference (MediaPipe 0.10.14 on x86-64). On arm64 the files the
    /// arm64 tests hold us to are what MediaPipe answers on arm64 instead — its 1.2.3 aarch64 wheel under qemu, same
    /// script, models, inputs and options, made by `tools/arm64 goldens` into `goldens("mediapipe-reference")` —
    /// because XNNPACK's arm64 kernels round otherwise, and so MediaPipe itself answers otherwise there (the bird
    /// photo's second class: 0.0703125 on arm64, 0.078125 on x86-64), and a clip's frames come from that machine's
    /// ffmpeg. That holds for the clips' video-mode files too (`tools/arm64 goldens --all`), whose tracking loops
    /// follow the platform's arithmetic frame after frame (PlatformLibm.videoReference takes them on arm64).
    public static func mediapipeReference(_ name: String) -> URL {
        #if arch(arm64)
        if arm64References.contains(name) { return goldens("mediapipe-reference").appendingPathComponent(name) }
        #endif
        return shared.appendingPathComponent("reference/\(name)")
    }

    /// The files of ../shared/reference that `tools/arm64 goldens` remakes on arm64.
    public static let arm64References: Set<String> = [
        "pose.json", "face.json", "hand.json", "gesture.json", "object.json", "classify.json", "object_video.json",
        "pose_video.json", "pose_video_single.json", "face_video.json", "face_video_single.json", "gesture_video.json",
        "gesture_video_single.json",
    ]

    /// A MediaPipe fixture of Tests/Fixtures (`relativePath` inside it) as this platform's MediaPipe answers it: on
    /// arm64 the file `tools/arm64 goldens --all` remakes with MediaPipe 1.2.3's aarch64 wheel (the quantized models'
    /// scores differ there by a step from x86's), in `goldens("fixtures")`; elsewhere, and for a file not remade,
    /// Tests/Fixtures' own.
    public static func mediapipeFixture(_ relativePath: String) -> URL {
        #if arch(arm64)
        if arm64Fixtures.contains(relativePath) { return goldens("fixtures").appendingPathComponent(relativePath) }
        #endif
        return fixtures.appendingPathComponent(relativePath)
    }

    /// Tests/Fixtures' files that `tools/arm64 goldens --all` remakes on arm64.
    public static let arm64Fixtures: Set<String> = [
        "classifier_roi_reference.json", "orientation/exif_object.json", "orientation/exif_pose.json",
        "orientation/exif_face.json", "orientation/exif_gesture.json", "orientation/turned_object.json",
        "orientation/turned_classify.json", "face_detector_reference.json",
    ]

    /// Tests/Fixtures' own file (MediaPipe 0.10.14's, x86-64) where ``mediapipeFixture(_:)`` is another version's;
    /// nil where it is that file already (as ``otherMediapipeVersion(_:)``).
    public static func otherMediapipeFixture(_ relativePath: String) -> URL? {
        let other = fixtures.appendingPathComponent(relativePath)
        return other == mediapipeFixture(relativePath) ? nil : other
    }

    /// ../shared/reference's own file on every platform, for its JSON schema (shared/README's, MediaPipe 0.10.14's
    /// output, which the CLI's `--json` follows): MediaPipe 1.2.3's answers on arm64 (``mediapipeReference(_:)``)
    /// leave out the face and hand landmarks' `visibility` and `presence`.
    public static func referenceSchema(_ name: String) -> URL { shared.appendingPathComponent("reference/\(name)") }

    /// The same file as MediaPipe 0.10.14 answers on x86-64, where `mediapipeReference(name)` is another version's
    /// (1.2.3's, on arm64); nil where it is that file already. Where the versions differ on what is not arithmetic
    /// (which of many classes tied at score 0 fill a top-5 list), either is MediaPipe's answer.
    public static func otherMediapipeVersion(_ name: String) -> URL? {
        let other = shared.appendingPathComponent("reference/\(name)")
        return other == mediapipeReference(name) ? nil : other
    }

    /// The inputs that once crashed harness `harness` of tools/fuzz (Tests/Fuzz/regressions/HARNESS), with their names.
    public static func fuzzRegressions(_ harness: String) throws -> [(name: String, bytes: [UInt8])] {
        let folder = root.appendingPathComponent("Tests/Fuzz/regressions/\(harness)")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        return try names.map { ($0, Array(try Data(contentsOf: folder.appendingPathComponent($0)))) }
    }

    /// A JSON fixture's bytes. The large ones are kept deflated in a zip beside where the JSON would be
    /// (`NAME.json.zip`, one member `NAME.json`): MediaPipe's and LiteRT's answers, too big to keep in git as text.
    public static func fixtureJSON(_ name: String) throws -> Data {
        let plain = fixtures.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: plain.path) { return try Data(contentsOf: plain) }
        let archive = try ZipArchive(bytes: ByteStorage(copying: [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(name + ".zip")))).slice)
        guard let entry = archive.entry(named: name) else { throw CocoaError(.fileNoSuchFile) }
        return try archive.contents(of: entry).data
    }
}
