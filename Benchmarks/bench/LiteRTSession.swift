/// LiteRT's interpreter served by `tools/litert_model_time.py --serve`, for `bench models`' turns.
final class LiteRTSession {
    private let script: ServedScript

    /// Starts LiteRT on `spec` (`Models/…task#member`) with `threads` threads and the inputs in `inputFile`;
    /// nil when the reference is not installed or fails to load the model.
    init?(spec: String, threads: Int, inputFile: String) {
        guard let script = ServedScript(pythons: [".cache/venv/bin/python"], script: "tools/litert_model_time.py",
                                        arguments: [spec, "\(threads)", "--serve", inputFile]) else { return nil }
        self.script = script
    }

    /// Milliseconds of `count` invokes, timed inside the Python process around `invoke()` alone.
    func time(_ count: Int) -> [Double]? {
        guard let line = script.request("\(count)") else { return nil }
        let samples = line.split(separator: " ").compactMap { Double($0) }
        return samples.count == count ? samples : nil
    }

    func close() {
        script.close()
    }
}
