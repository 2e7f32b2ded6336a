import Foundation
import VisionTasks
import VisionTasksResultJSON
import VisionTasksTestSupport
import XCTest

/// The task registry's descriptions are well formed, and the documentation takes every registered task from them: its
/// row in the task table, its types in the catalog's topics, its command in the command-line article.
final class TaskRegistryTests: XCTestCase {
    func testDescriptionsAreWellFormed() throws {
        let tasks = TaskRegistry.tasks
        XCTAssertEqual(Set(tasks.map(\.name)).count, tasks.count, "names are unique")
        // The commands of their own keep their names.
        XCTAssertTrue(Set(tasks.map(\.name)).isDisjoint(with: ["model", "image", "worker", "help"]))
        for task in tasks {
            XCTAssertTrue(task.name.allSatisfy { $0.isLowercase || $0 == "-" }, task.name)
            XCTAssertFalse(task.modelNames.isEmpty, task.name)
            XCTAssertFalse(task.runningModes.isEmpty, task.name)
            XCTAssertEqual(Set(task.options.map(\.name)).count, task.options.count, "\(task.name): option names are unique")
            for option in task.options {
                XCTAssertTrue(option.name.first?.isLowercase == true && option.name.allSatisfy { $0.isLetter || $0.isNumber }, option.name)
                // MediaPipe's default lies in the option's own range, and reads back as itself (a path's default is
                // no file, which no text gives).
                guard option.kind != .path else { continue }
                XCTAssertEqual(try option.value(parsing: option.defaultValue.description, label: option.flag), option.defaultValue,
                               "\(task.name) \(option.name)")
            }
        }
    }

    /// A model file that is not there, or is not a model, is the model's own error (``VisionTaskError/model(_:)``)
    /// for every task, as the surfaces open them — ML Kit's detector included, whose factory does not fail and whose
    /// load failures all came out as "wrong model for this task". A classifier without labels for ML Kit's objects
    /// is the wrong model.
    func testAMissingOrCorruptModelIsTheModelsErrorForEveryTask() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("registry-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("missing.tflite").path
        let corrupt = directory.appendingPathComponent("corrupt.tflite")
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }).write(to: corrupt)
        for task in TaskRegistry.tasks {
            for path in [missing, corrupt.path] {
                XCTAssertThrowsError(try task.open(TaskSetup(modelPath: path, values: [:])), task.name) { error in
                    guard case .model? = error as? VisionTaskError else {
                        return XCTFail("\(task.name), \((path as NSString).lastPathComponent): \(error)")
                    }
                }
            }
        }
        let odt = try XCTUnwrap(TaskRegistry.task(named: "odt"))
        let unlabelled = Repository.root.appendingPathComponent(".cache/fixtures/mobilenet_v1_0.25_128_quant_no_metadata.tflite").path
        XCTAssertThrowsError(try odt.open(TaskSetup(modelPath: Repository.modelPath("ssd_mobilenet_v1.tflite"),
                                                    values: ["localModel": .text(unlabelled)]))) { error in
            guard case .wrongModel? = error as? VisionTaskError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try odt.open(TaskSetup(modelPath: Repository.modelPath("ssd_mobilenet_v1.tflite"),
                                                    values: ["localModel": .text(missing)]))) { error in
            guard case .model? = error as? VisionTaskError else { return XCTFail("\(error)") }
        }
    }

    func testDocumentationListsEveryRegisteredTask() throws {
        let docc = Repository.root.appendingPathComponent("Sources/Tasks/VisionTasks.docc")
        let models = try String(contentsOf: docc.appendingPathComponent("Models.md"), encoding: .utf8)
        let catalog = try String(contentsOf: docc.appendingPathComponent("VisionTasks.md"), encoding: .utf8)
        let commandLine = try String(contentsOf: docc.appendingPathComponent("CommandLine.md"), encoding: .utf8)
        let mlKitArticle = try String(contentsOf: Repository.root.appendingPathComponent("Sources/MLKit/VisionTasksMLKit.docc/DetectingAndTrackingObjects.md"),
                                      encoding: .utf8)
        for task in TaskRegistry.tasks {
            XCTAssertTrue(commandLine.contains("vision-tasks \(task.name) "), "CommandLine.md lacks `vision-tasks \(task.name)`")
            guard task.catalog == .visionTasks else {
                // ML Kit's detector: its article shows the command and every flag of it.
                XCTAssertTrue(mlKitArticle.contains("vision-tasks \(task.name) "), "\(task.name)'s article lacks its command")
                for option in task.options(on: .commandLine) {
                    XCTAssertTrue(mlKitArticle.contains(option.flag + " ") || mlKitArticle.contains(option.flag + "]"),
                                  "\(task.name)'s article lacks \(option.flag)")
                }
                continue
            }
            XCTAssertTrue(models.split(separator: "\n").contains { $0 == task.documentationRow }, "Models.md lacks the row\n\(task.documentationRow)")
            for suffix in ["", "Options", "Result", "LiveStreamDelegate"] where suffix != "LiveStreamDelegate" || task.runningModes.contains(.liveStream) {
                XCTAssertTrue(catalog.contains("- ``\(task.typeName)\(suffix)``"), "VisionTasks.md's topics lack \(task.typeName)\(suffix)")
            }
        }
    }
}
