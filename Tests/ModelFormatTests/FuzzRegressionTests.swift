import VisionTasksModelFormat
import VisionTasksTestSupport
import XCTest

/// Inputs libFuzzer found (tools/fuzz, Tests/Fuzz/regressions): each once trapped; each must now be a typed error
/// that names what is wrong.
final class FuzzRegressionTests: XCTestCase {
    func testFlexBufferFindings() throws {
        let inputs = try Repository.fuzzRegressions("flexbuffer")
        XCTAssertFalse(inputs.isEmpty)
        for (name, bytes) in inputs {
            XCTAssertThrowsError(try FlexValue.decode(ByteStorage(copying: bytes).slice), name) { error in
                guard case .invalidFlexBuffer = error as? FormatError else { return XCTFail("\(name): \(error)") }
            }
        }
    }
}
