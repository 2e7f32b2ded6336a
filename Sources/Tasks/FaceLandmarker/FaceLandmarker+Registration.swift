import Foundation

extension FaceLandmarker {
    /// The Face Landmarker as every surface takes it (`TaskRegistry`): `vision-tasks face`, the worker's and the
    /// service's `face`, `bench face`.
    package static let registration = TaskDescription(
        name: "face", title: "Face Landmarker",
        summary: "Detect face landmarks, blendshapes and transformation matrices in images or video frames; write MediaPipe's reference JSON and drawings (contours, irises, top blendshapes).",
        modelNames: ["face_landmarker.task"],
        options: [
            .instances("numFaces", \FaceLandmarkerOptions.numFaces, help: "Most faces to find."),
            TaskOptionDescription.flag("outputFaceBlendshapes", \FaceLandmarkerOptions.outputFaceBlendshapes,
                                       help: "Compute the 52 blendshape scores of each face.")
                .spelled("blendshapes").defaulting(onCommandLine: .flag(true)),
            TaskOptionDescription.flag("outputFacialTransformationMatrixes", \FaceLandmarkerOptions.outputFacialTransformationMatrixes,
                                       help: "Compute each face's transformation from the canonical face model.")
                .spelled("transformation-matrixes").defaulting(onCommandLine: .flag(true)),
            .smoothing(\FaceLandmarkerOptions.landmarkSmoothing),
            .serviceConfidence("minFaceDetectionConfidence", \FaceLandmarkerOptions.minFaceDetectionConfidence,
                               help: "Face detections scoring below this are not used."),
            .serviceConfidence("minFacePresenceConfidence", \FaceLandmarkerOptions.minFacePresenceConfidence,
                               help: "Faces whose presence score is below this are not returned."),
            .serviceConfidence("minTrackingConfidence", \FaceLandmarkerOptions.minTrackingConfidence,
                               help: "Below this, the next frame detects faces afresh instead of tracking them."),
        ],
        mediapipeClass: "FaceLandmarker", mediapipeMethod: "detect", benchImage: "face_landmark_ex1.jpg",
        benchVideo: "face_head_turning.mp4", task: FaceLandmarker.self
    ) { result in
        FaceAnswer.answer(result)
    }.with {
        $0.documentation = ("`face_landmarker.task`", "BlazeFace short-range detector, 478-point face mesh, 52 blendshapes, face-geometry metadata")
        $0.bench.members = ["face_detector.tflite", "face_landmarks_detector.tflite", "face_blendshapes.tflite"]
        $0.bench.stageMembers = ["detector": ["face_detector.tflite"], "landmarks": ["face_landmarks_detector.tflite"],
                                 "blendshapes": ["face_blendshapes.tflite"]]
        $0.bench.script = "face"
        $0.bench.values = ["outputFaceBlendshapes": .flag(true), "outputFacialTransformationMatrixes": .flag(true)]
        $0.bench.described = "numFaces 1 (MediaPipe's default), blendshapes and transformation matrices on"
    }
}

/// The JSON (`face.json`), summary and marks (contours, irises, the strongest blendshapes) of a face result.
enum FaceAnswer {
    static func answer(_ result: FaceLandmarkerResult) -> TaskAnswer {
        var json: [String: Any] = [
            "faceLandmarks": result.faceLandmarks.map { $0.map(AnswerJSON.point) },
            "faceBlendshapes": result.faceBlendshapes.map { $0.categories.map(AnswerJSON.namedCategory) },
            // Rows of the true matrix (translation in the last column), as MediaPipe's Python results give it.
            "facialTransformationMatrixes": result.facialTransformationMatrixes.map { m in
                (0..<m.rows).map { r in (0..<m.columns).map { c in Double(m.value(atRow: r, column: c)) } }
            },
        ]
        AnswerJSON.identities(result.identities, into: &json)
        return TaskAnswer(json: json, summary: "\(result.faceLandmarks.count) face(s)", marks: marks(result))
    }

    static func marks(_ result: FaceLandmarkerResult) -> [TaskMark] {
        let line = MarkSize(longerSideOver: 600, atLeast: 1)
        let irises = Set(FaceLandmarker.leftIrisConnections() + FaceLandmarker.rightIrisConnections())
        var marks: [TaskMark] = []
        for (f, face) in result.faceLandmarks.enumerated() {
            let points = face.map(NormalizedMarkPoint.init)
            for connection in FaceLandmarker.contoursConnections() {
                let a = Int(connection.start), b = Int(connection.end)
                guard a < points.count, b < points.count else { continue }
                marks.append(.segment(from: points[a], to: points[b], width: line, irises.contains(connection) ? .blue : .green))
            }
            guard f < result.faceBlendshapes.count else { continue }
            // The three strongest, beside the face (`_neutral` is a placeholder class, not an expression).
            let top = result.faceBlendshapes[f].categories.filter { $0.categoryName != "_neutral" }.sorted { $0.score > $1.score }.prefix(3)
            // Finite points only: a NaN landmark is not drawn and must not place the text.
            let corner = NormalizedMarkPoint(x: points.map(\.x).filter(\.isFinite).max() ?? 0, y: points.map(\.y).filter(\.isFinite).min() ?? 0)
            for (i, category) in top.enumerated() {
                marks.append(.text(String(format: "%@ %.2f", category.categoryName ?? "?", category.score), at: corner, offset: (4, 0), line: i,
                                   scale: MarkSize(longerSideOver: 600, atLeast: 1)))
            }
        }
        return marks
    }
}
