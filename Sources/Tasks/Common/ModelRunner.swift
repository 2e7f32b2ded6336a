import Dispatch
import Engine
import Format
import Vision

/// Where a task's time goes, accumulated over calls (for `bench`).
package struct StageTimings: Sendable {
    package var preprocessing: Double = 0
    package var inference: Double = 0
    package var postprocessing: Double = 0
    package var calls = 0

    package init() {}
}

@inline(__always) func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// One model of a task: its interpreter, input geometry and the value range its metadata asks for.
final class ModelRunner {
    /// Time spent sampling inputs and running this model.
    var timings = StageTimings()
    let interpreter: Interpreter
    let inputWidth: Int
    let inputHeight: Int
    let range: ClosedRange<Float>

    /// - Parameter defaultRange: used when the model carries no normalization metadata (MediaPipe's legacy graphs'
    ///   value for that model).
    init(bundle: TaskBundle, member: String, defaultRange: ClosedRange<Float>) throws(VisionTaskError) {
        let model: TFLiteModel
        do { model = try bundle.model(member) } catch { throw .model(error) }
        do { interpreter = try Interpreter(model: model) } catch { throw .engine(error) }
        guard let input = interpreter.inputs.first, input.shape.count == 4, input.shape[3] == 3, input.type == .float32 else {
            throw .wrongModel("\(member) does not take one float32 RGB image")
        }
        inputHeight = input.shape[1]
        inputWidth = input.shape[2]
        var range = defaultRange
        if let normalization = (try? model.modelMetadata())??.subgraphs.first?.inputTensors.first?.normalization,
           let mean = normalization.mean.first, let std = normalization.std.first, std != 0 {
            range = ImageToTensorOptions.range(mean: mean, std: std)
        }
        self.range = range
    }

    /// Samples `region` of `image` straight into the model's input and runs the model.
    func run(_ image: MPImage, region: RegionOfInterest, keepAspectRatio: Bool, border: ImageToTensorOptions.Border) throws(VisionTaskError) -> TensorToImageTransform {
        let options = ImageToTensorOptions(width: inputWidth, height: inputHeight, keepAspectRatio: keepAspectRatio, border: border, range: range)
        let transform: TensorToImageTransform
        let start = now()
        do {
            transform = try interpreter.withInputFloats(0) { buffer in
                try ImageToTensor.write(image, region: region, options: options, into: buffer)
            }
        } catch let error as ImageError {
            throw .image(error)
        } catch let error as EngineError {
            throw .engine(error)
        } catch {
            throw .wrongModel("\(error)")
        }
        let sampled = now()
        interpreter.invoke()
        timings.preprocessing += Double(sampled - start) / 1e6
        timings.inference += Double(now() - sampled) / 1e6
        timings.calls += 1
        return transform
    }

    func output(_ index: Int) throws(VisionTaskError) -> [Float] {
        do { return try interpreter.outputFloats(index) } catch { throw .engine(error) }
    }
}
