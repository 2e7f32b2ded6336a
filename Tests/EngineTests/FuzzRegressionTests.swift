import VisionTasksEngine
import VisionTasksModelFormat
import VisionTasksTestSupport
import XCTest

/// Models libFuzzer's `model-plan` harness found (tools/fuzz, Tests/Fuzz/regressions/model-plan): each once trapped
/// the plan; each must now be refused with a typed error that names the tensor.
final class FuzzRegressionTests: XCTestCase {
    func testModelPlanFindingsAreRefused() throws {
        let inputs = try Repository.fuzzRegressions("model-plan")
        XCTAssertFalse(inputs.isEmpty)
        for (name, bytes) in inputs {
            XCTAssertThrowsError(try ExecutionPlan(model: TFLiteModel(bytes: ByteStorage(copying: bytes).slice)), name) { error in
                guard let error = error as? EngineError else { return XCTFail("\(name): \(error)") }
                XCTAssertTrue("\(error)".contains("tensor"), "\(name): \(error)")
            }
        }
    }
}
