@testable import VisionTasksEngine
import VisionTasksModelFormat
import XCTest

/// A float convolution drops the taps that read padding for every output (``droppingDeadTaps(_:outputChannels:inputChannels:y:x:)``):
/// which taps, on DeepLab v3's ASPP geometry. The outputs of such convolutions against LiteRT are the kernel sweeps'
/// "dilation past the map" cases (`tools/litert_kernel_sweeps.py`).
final class ConvolutionGeometryTests: XCTestCase {
    func testTapsThatOnlyReadPaddingAreDropped() throws {
        // The ASPP's 3 × 3 filters over a 17 × 17 map, SAME: at rate 18 only the centre tap lands inside; at 12 and 6
        // every tap does for some output.
        func axis(_ input: Int, _ dilation: Int, stride: Int = 1) -> WindowAxis {
            WindowAxis(input: input, filter: 3, stride: stride, dilation: dilation, padding: .same)
        }
        XCTAssertEqual(axis(17, 18).liveTaps, 1..<2)
        XCTAssertNil(axis(17, 12).liveTaps)
        XCTAssertNil(axis(17, 6).liveTaps)
        let centre = try XCTUnwrap(axis(17, 18).keeping(taps: 1..<2))
        XCTAssertEqual([centre.filter, centre.padBefore, centre.output, centre.input], [1, 0, 17, 17])
        // At stride 2 (9 → 5 at rate 10) too: the centre tap alone, no padding left.
        let strided = try XCTUnwrap(axis(9, 10, stride: 2).keeping(taps: try XCTUnwrap(axis(9, 10, stride: 2).liveTaps)))
        XCTAssertEqual([strided.filter, strided.padBefore, strided.output], [1, 0, 5])

        // Weights [2, 3, 3, 2] numbered by position: the centre tap's are 8, 9 (first output) and 26, 27.
        let weights = (0..<36).map(Float.init)
        let dropped = try XCTUnwrap(droppingDeadTaps(weights, outputChannels: 2, inputChannels: 2, y: axis(17, 18), x: axis(17, 18)))
        XCTAssertEqual(dropped.weights, [8, 9, 26, 27])
        XCTAssertEqual([dropped.y.filter, dropped.x.filter], [1, 1])
        // Rows only: a 5-high map at rate 6 keeps the centre row, and every column of a 17-wide one.
        let row = try XCTUnwrap(droppingDeadTaps(weights, outputChannels: 2, inputChannels: 2, y: axis(5, 6), x: axis(17, 6)))
        XCTAssertEqual([row.y.filter, row.x.filter, row.y.padBefore, row.x.padBefore], [1, 3, 0, 6])
        XCTAssertEqual(row.weights, (6..<12).map(Float.init) + (24..<30).map(Float.init))
        // Nothing to drop: nil.
        XCTAssertNil(droppingDeadTaps(weights, outputChannels: 2, inputChannels: 2, y: axis(17, 6), x: axis(17, 12)))
        // A weight that is not finite in a dropped tap keeps the filter whole: 0 · ∞ is NaN, which the sums must show.
        for value in [Float.infinity, -.infinity, .nan] {
            var poisoned = weights
            poisoned[0] = value
            XCTAssertNil(droppingDeadTaps(poisoned, outputChannels: 2, inputChannels: 2, y: axis(17, 18), x: axis(17, 18)))
        }
    }
}
