// Runs one task's header-style code on one image: header-api pose|face|hand|gesture|object|classify|face-detector|holistic IMAGE.
// Each service finds its model where an app's bundle has it, `Bundle.main.path(forResource:ofType:)`: beside the binary.
// This target builds twice: in Swift 6 language mode (header-api) and Swift 5 (header-api-swift5).
import VisionTasks

let arguments = CommandLine.arguments
let runs: [String: (String) throws -> [String: Any]] = [
    "pose": runPoseLandmarker, "face": runFaceLandmarker, "hand": runHandLandmarker,
    "gesture": runGestureRecognizer, "object": runObjectDetector, "classify": runImageClassifier,
    "face-detector": runFaceDetector, "holistic": runHolisticLandmarker,
]
guard arguments.count == 3, let run = runs[arguments[1]] else {
    print("usage: header-api pose|face|hand|gesture|object|classify|face-detector|holistic IMAGE")
    exit(2)
}
do {
    try JSON.print(try run(arguments[2]))
} catch {
    print("error: \(error)")
    exit(1)
}
