import Foundation
import VisionTasksTestSupport
import XCTest

/// The guides' Swift snippets (Examples/SeedSnippets, built by `swift build` in Swift 6 and Swift 5 language modes)
/// run on a shared image. Each binary is copied beside a `pose_landmarker.task`, where the snippets'
/// `Bundle.main.path(forResource: "pose_landmarker", ofType: "task")` looks on Linux: the executable's directory.
final class SeedSnippetTests: XCTestCase {
    func testPoseSnippetsRunInBothLanguageModes() throws {
        let built = ChildProcess.buildDirectory
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seed-snippets-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createSymbolicLink(
            at: directory.appendingPathComponent("pose_landmarker.task"),
            withDestinationURL: URL(fileURLWithPath: Repository.modelPath("pose_landmarker_lite.task")))
        for name in ["seed-snippets", "seed-snippets-swift5"] {
            let source = built.appendingPathComponent(name)
            guard FileManager.default.isExecutableFile(atPath: source.path) else {
                return XCTFail("\(source.path) is not built: run `swift build` before `swift test` (tools/run-tests does)")
            }
            let binary = directory.appendingPathComponent(name)
            try FileManager.default.copyItem(at: source, to: binary)
            let outcome = try ChildProcess.run(binary, [Repository.shared.appendingPathComponent("images/pose1.jpg").path, "3"])
            let output = outcome.output
            let status = outcome.status
            print("\(name):\n\(output)")
            XCTAssertEqual(status, 0, "\(name): \(output) \(outcome.stderr)")
            XCTAssertEqual(output.split(separator: "\n"), [
                "image: 1 pose(s), 33 landmarks",
                "video: 3 frames, poses [1, 1, 1]",
                "live stream: 3 results, timestamps [0, 33, 66], poses [1, 1, 1], errors []",
            ], name)
        }
    }
}
