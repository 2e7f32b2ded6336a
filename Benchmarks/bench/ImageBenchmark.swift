import Foundation
import VisionTasksImaging

/// Decode an image and sample a letterboxed region into a float tensor: the pre-processing every task pays
/// per frame (decode only for files). Beside it, when OpenCV and Pillow are in the project venv, the same work as
/// MediaPipe's CPU path does it (Pillow/libpng decode, cv2.warpPerspective, convertTo).
enum ImageBenchmark {
    static func run(arguments: [String]) throws {
        let path = arguments.first ?? "../shared/images/hand_2hands.png"
        let size = 256, repeats = 20
        var decodeSamples: [Double] = [], tensorSamples: [Double] = []
        var width = 0, height = 0
        var tensor = [Float](repeating: 0, count: size * size * 3)
        for iteration in 0..<(repeats + 2) {
            let start = DispatchTime.now().uptimeNanoseconds
            let image = try MPImage(contentsOfFile: path)
            let decoded = DispatchTime.now().uptimeNanoseconds
            width = image.width
            height = image.height
            _ = try tensor.withUnsafeMutableBufferPointer { buffer in
                try ImageToTensor.write(image, region: .whole(width: image.width, height: image.height),
                                        options: ImageToTensorOptions(width: size, height: size, keepAspectRatio: true), into: buffer)
            }
            let done = DispatchTime.now().uptimeNanoseconds
            if iteration >= 2 {
                decodeSamples.append(Double(decoded - start) / 1e6)
                tensorSamples.append(Double(done - decoded) / 1e6)
            }
        }
        print("image: \(path) (\(width)×\(height)) → \(size)×\(size) letterboxed float tensor, median of \(repeats)")
        print(String(format: "ours:   decode_ms=%.2f tensor_ms=%.2f total_ms=%.2f", median(decodeSamples), median(tensorSamples),
                     median(decodeSamples) + median(tensorSamples)))
        if let reference = LiteRTReference.run(script: "tools/opencv_preprocess_time.py", arguments: [path, "\(size)", "\(repeats)"]) {
            print("opencv: \(reference)")
        }
        // The warp alone, on a picture already in the caches and at each thread count: the tensor figure above is the
        // first write after a decode (a picture fresh from memory), which is what a file's frame costs; this one is
        // the sampling's own arithmetic, what a task's crop of a frame it has just read costs.
        let image = try MPImage(contentsOfFile: path)
        for threads in [1, 2] {
            var samples: [Double] = []
            for _ in 0..<(10 * repeats) {
                let start = DispatchTime.now().uptimeNanoseconds
                _ = try tensor.withUnsafeMutableBufferPointer { buffer in
                    try ImageToTensor.write(image, region: .whole(width: image.width, height: image.height),
                                            options: ImageToTensorOptions(width: size, height: size, keepAspectRatio: true,
                                                                          maximumThreads: threads), into: buffer)
                }
                samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            print(String(format: "ours, the warp alone at %d thread%@ (picture in cache, median of %d): tensor_ms=%.3f",
                         threads, threads == 1 ? "" : "s", samples.count, median(samples)))
        }
    }
}
