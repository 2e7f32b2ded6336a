import ArgumentParser
import Foundation

/// The ranges of the commands' numeric options, checked by the argument parser (each command's `validate()`) so
/// that an extreme value is a usage error naming the option, never an overflow or an allocation further on.
enum OptionRange {
    /// Most instances a landmark task looks for (`--num-poses`, `--num-faces`, `--num-hands`): far above what an
    /// image holds; the tasks' own limit is only "at least 1".
    static let instances = 1...1000
    /// `model run --repeat`: a million timed runs is already days for the largest models.
    static let repeats = 1...1_000_000
    /// `model run --top`: more than any model's operator count.
    static let topOperators = 0...100_000
    /// Threads per model run: the engine's worker pool splits an operator into at most 64 parts.
    static let threads = 1...64
    /// `--fps` of frame images. Above 1000 fps consecutive frames would share a millisecond timestamp; below one
    /// frame in 1000 s the timestamps leave any clip's scale (and, far below, `Int`).
    static let framesPerSecond = 0.001...1000.0

    static func check<T: Comparable>(_ value: T, in range: ClosedRange<T>, option: String) throws {
        guard range.contains(value) else {
            throw ValidationError("\(option) must be between \(range.lowerBound) and \(range.upperBound) (got \(value))")
        }
    }
}

/// `image crop --size WxH`: a tensor's width and height, each within ``sides`` and together within ``pixels``,
/// refused by the parser otherwise (4294967296x4294967296 once overflowed the element count).
struct TensorSize: Sendable {
    /// 8192 is above any vision model's input side.
    static let sides = 1...8192
    /// 2^24 pixels: a 201 MB float32 tensor, the most a crop writes.
    static let pixels = 1 << 24

    let width: Int
    let height: Int

    /// The parser's transform for `--size`.
    static func parse(_ argument: String) throws -> TensorSize {
        let parts = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) else {
            throw ValidationError("--size takes WxH, e.g. 256x256")
        }
        guard sides.contains(width), sides.contains(height) else {
            throw ValidationError("--size: width and height must be between \(sides.lowerBound) and \(sides.upperBound)")
        }
        guard width * height <= pixels else { throw ValidationError("--size: at most \(pixels) pixels") }
        return TensorSize(width: width, height: height)
    }
}
