import VisionTasksModelFormat
import Foundation
import VisionTasksModelMutation
import VisionTasksTestSupport
import XCTest

/// Damaged copies of every shipped model and bundle — bit flips, overwritten offsets and lengths, truncations —
/// must each parse to a value or a `FormatError`. A trap would kill the test process, so reaching the end of
/// the loop is the assertion; the counts check that the mutants really were hostile and really were exercised.
final class MutationTests: XCTestCase {
    /// Mutants in all, shared out over the model files (1,200 a file when there were 10; 17 now); the suite's time
    /// stays put as models are added. `format-fuzz` runs as many more as wanted.
    static let mutantsInAll = 12_000

    func testMutatedModelsNeverTrap() throws {
        var total = 0
        var rejected = 0
        var kinds: [String: Int] = [:]
        let files = try Repository.modelFiles()
        let mutantsPerFile = Self.mutantsInAll / max(files.count, 1)
        for (fileIndex, file) in files.enumerated() {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Repository.modelPath(file))))
            let target = try MutableModelFile(name: file, bytes: bytes)
            // The unmutated file must parse, or the mutants prove nothing.
            XCTAssertEqual(
                ModelExercise.run(ByteStorage(copying: bytes).slice, name: file),
                .parsed(members: try TaskBundle(path: Repository.modelPath(file)).members.count), file)
            for mutant in 0..<mutantsPerFile {
                let seed = UInt64(fileIndex) << 32 | UInt64(mutant)
                let outcome = target.withMutant(seed: seed) { ModelExercise.run($0, name: file) }
                total += 1
                if case let .rejected(error) = outcome {
                    rejected += 1
                    kinds[Mirror(reflecting: error).children.first?.label ?? "\(error)", default: 0] += 1
                }
            }
        }
        XCTAssertGreaterThanOrEqual(total, 10_000)
        // Most mutants land in structure and must be caught; some (a flipped name byte, say) still parse.
        XCTAssertGreaterThan(rejected, total / 3, "mutations too mild to test anything: \(kinds)")
        print("mutation test: \(total) mutants, \(rejected) rejected; by error: \(kinds.sorted { $0.value > $1.value })")
    }

    /// The custom options of SSD's `TFLite_Detection_PostProcess`, damaged byte by byte: the FlexBuffer reader
    /// sees far more hostile input here than whole-file mutants can give it.
    func testMutatedFlexBuffersNeverTrap() throws {
        let model = try TFLiteModel(path: Repository.modelPath("ssd_mobilenet_v1.tflite"))
        let op = try XCTUnwrap(model.subgraphs[0].operators.first { model.code(of: $0).builtin == .custom })
        let original = try XCTUnwrap(op.customOptions).bytes
        XCTAssertNotNil(try FlexValue.decode(ByteStorage(copying: original).slice)["max_detections"])
        var rng = SplitMix64(seed: 7)
        var rejected = 0
        for _ in 0..<20_000 {
            var bytes = original
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: bytes.removeLast(Int.random(in: 1...bytes.count, using: &rng))
            case 1:
                for _ in 0..<Int.random(in: 1...3, using: &rng) {
                    bytes[Int.random(in: 0..<bytes.count, using: &rng)] = .random(in: 0...255, using: &rng)
                }
            default:
                // The root's width and type bytes and the offsets just before them steer everything else.
                let at = bytes.count - Int.random(in: 1...min(24, bytes.count), using: &rng)
                bytes[at] = [0, 1, 2, 3, 4, 8, 0x24, 0x25, 0x26, 0x27, 0x7F, 0xFF].randomElement(using: &rng)!
            }
            do {
                _ = try FlexValue.decode(ByteStorage(copying: bytes).slice)
            } catch {
                rejected += 1
            }
        }
        XCTAssertGreaterThan(rejected, 2_000)
    }
}
