// Runs ML Kit's guide snippets: mlkit-seed-snippets CLASSIFIER.tflite IMAGE. The class-agnostic detector is found as
// VisionTasksMLKit finds it (VISION_TASKS_OBJECT_DETECTOR_MODEL, else Models/ssd_mobilenet_v1.tflite here).
import VisionTasksMLKit

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: mlkit-seed-snippets CLASSIFIER.tflite IMAGE")
    exit(2)
}
do {
    let image = try MPImage(contentsOfFile: arguments[2])
    let snippets = ObjectDetectionSnippets(localModelFilePath: arguments[1])
    let options = snippets.options()
    for line in snippets.synchronous(image, options: options) { print("single image: \(line)") }
    for line in snippets.asynchronous(image, options: snippets.staticOptions()) { print("async: \(line)") }
    for line in snippets.synchronous(image, options: snippets.liveOptions()) { print("stream: \(line)") }
    for line in snippets.synchronous(image, options: snippets.liveOptions()) { print("stream again: \(line)") }
} catch {
    print("error: \(error)")
    exit(1)
}
