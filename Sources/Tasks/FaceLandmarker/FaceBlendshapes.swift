import VisionTasksModelFormat

/// MediaPipe's face blendshapes stage (face_blendshapes_graph.cc): 146 of the 478 landmarks, in pixels of the image,
/// through `face_blendshapes.tflite` to 52 scores, reported in the model's order with MediaPipe's names.
final class FaceBlendshapes {
    static let member = "face_blendshapes.tflite"
    let runner: TensorRunner

    init(bundle: TaskBundle, threads: Int?) throws(VisionTaskError) {
        guard (try? bundle.member(Self.member)) != nil else {
            throw .wrongModel("outputFaceBlendshapes needs \(Self.member) in the bundle; this one has \(bundle.memberPaths)")
        }
        runner = try TensorRunner(bundle: bundle, member: Self.member, threads: threads)
        let inputs = runner.interpreter.inputs, outputs = runner.interpreter.outputs
        guard inputs.count == 1, inputs[0].elementCount == Self.landmarkSubset.count * 2, inputs[0].type == .float32,
              outputs.first?.elementCount == Self.names.count else {
            throw .wrongModel("\(Self.member) does not map \(Self.landmarkSubset.count) points to \(Self.names.count) scores")
        }
    }

    /// The 52 scores of one face, categories in the model's order (TensorsToClassificationCalculator with top_k 0
    /// and no threshold keeps them so).
    func scores(_ landmarks: [NormalizedLandmark], imageWidth: Int, imageHeight: Int) throws(VisionTaskError) -> Classifications {
        let w = Float(imageWidth), h = Float(imageHeight)
        // LandmarksToTensorCalculator with attributes X, Y and the image size: x × width, y × height, z dropped.
        try runner.withInputFloats(0) { input in
            for (i, index) in Self.landmarkSubset.enumerated() {
                input[2 * i] = landmarks[index].x * w
                input[2 * i + 1] = landmarks[index].y * h
            }
        }
        runner.invoke()
        let values = try runner.output(0)
        return Classifications(headIndex: 0, categories: values.enumerated().map { i, score in
            Category(index: i, score: score, categoryName: Self.names[i])
        })
    }

    /// `kLandmarksSubsetIdxs` of face_blendshapes_graph.cc: the landmarks the model reads, in its order (the last
    /// ten are the irises).
    static let landmarkSubset = [
        0, 1, 4, 5, 6, 7, 8, 10, 13, 14, 17, 21, 33, 37, 39,
        40, 46, 52, 53, 54, 55, 58, 61, 63, 65, 66, 67, 70, 78, 80,
        81, 82, 84, 87, 88, 91, 93, 95, 103, 105, 107, 109, 127, 132, 133,
        136, 144, 145, 146, 148, 149, 150, 152, 153, 154, 155, 157, 158, 159, 160,
        161, 162, 163, 168, 172, 173, 176, 178, 181, 185, 191, 195, 197, 234, 246,
        249, 251, 263, 267, 269, 270, 276, 282, 283, 284, 285, 288, 291, 293, 295,
        296, 297, 300, 308, 310, 311, 312, 314, 317, 318, 321, 323, 324, 332, 334,
        336, 338, 356, 361, 362, 365, 373, 374, 375, 377, 378, 379, 380, 381, 382,
        384, 385, 386, 387, 388, 389, 390, 397, 398, 400, 402, 405, 409, 415, 454,
        466, 468, 469, 470, 471, 472, 473, 474, 475, 476, 477,
    ]

    /// `kBlendshapeNames` of face_blendshapes_graph.cc, the model's output order.
    static let names = [
        "_neutral", "browDownLeft", "browDownRight", "browInnerUp", "browOuterUpLeft", "browOuterUpRight", "cheekPuff",
        "cheekSquintLeft", "cheekSquintRight", "eyeBlinkLeft", "eyeBlinkRight", "eyeLookDownLeft", "eyeLookDownRight",
        "eyeLookInLeft", "eyeLookInRight", "eyeLookOutLeft", "eyeLookOutRight", "eyeLookUpLeft", "eyeLookUpRight",
        "eyeSquintLeft", "eyeSquintRight", "eyeWideLeft", "eyeWideRight", "jawForward", "jawLeft", "jawOpen", "jawRight",
        "mouthClose", "mouthDimpleLeft", "mouthDimpleRight", "mouthFrownLeft", "mouthFrownRight", "mouthFunnel",
        "mouthLeft", "mouthLowerDownLeft", "mouthLowerDownRight", "mouthPressLeft", "mouthPressRight", "mouthPucker",
        "mouthRight", "mouthRollLower", "mouthRollUpper", "mouthShrugLower", "mouthShrugUpper", "mouthSmileLeft",
        "mouthSmileRight", "mouthStretchLeft", "mouthStretchRight", "mouthUpperUpLeft", "mouthUpperUpRight",
        "noseSneerLeft", "noseSneerRight",
    ]
}
