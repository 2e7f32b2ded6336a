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
