extension HandLandmarker {
    /// The Hand Landmarker as every surface takes it (`TaskRegistry`): `vision-tasks hand`, the worker's and the
    /// service's `hand`, `bench hand`.
    package static let registration = TaskDescription(
        name: "hand", title: "Hand Landmarker",
        summary: "Detect hand landmarks and handedness in images or video frames; write MediaPipe's reference JSON and drawings (skeleton, handedness).",
        modelNames: ["hand_landmarker.task"],
        options: TaskOptionDescription.handOptions(HandLandmarkerOptions.self),
        mediapipeClass: "HandLandmarker", mediapipeMethod: "detect", benchImage: "hand_two_palms.png",
        benchVideo: "hand_gesture_fist_thumbsup.mp4", task: HandLandmarker.self
    ) { result in
        HandAnswer.answer(handedness: result.handedness, gestures: nil, landmarks: result.landmarks, world: result.worldLandmarks,
                          identities: result.identities)
    }.with {
        $0.documentation = ("`hand_landmarker.task`", "palm detector and 21-point hand landmark model")
        $0.bench.members = ["hand_detector.tflite", "hand_landmarks_detector.tflite"]
        $0.bench.stageMembers = ["detector": ["hand_detector.tflite"], "landmarks": ["hand_landmarks_detector.tflite"]]
        $0.bench.script = "hand"
        // numHands 1, MediaPipe's default, as the MediaPipe side runs.
        $0.bench.described = "numHands 1 (MediaPipe's default)"
    }
}

/// The JSON (`hand.json` / `gesture.json`: handedness, gestures for the recognizer, landmarks, world landmarks),
/// summary and marks (skeleton, a label per hand) of the hand landmarker's and the gesture recognizer's results.
enum HandAnswer {
    static func answer(handedness: [[Category]], gestures: [[Category]]?, landmarks: [[NormalizedLandmark]], world: [[Landmark]],
                       identities: [Int]) -> TaskAnswer {
        var json: [String: Any] = [
            "handedness": handedness.map { $0.map(AnswerJSON.namedCategory) },
            "landmarks": landmarks.map { $0.map(AnswerJSON.point) },
            "worldLandmarks": world.map { $0.map(AnswerJSON.point) },
        ]
        if let gestures { json["gestures"] = gestures.map { $0.map(AnswerJSON.namedCategory) } }
        AnswerJSON.identities(identities, into: &json)
        var summary = "\(landmarks.count) hand(s)"
        let labels: [String]
        if let gestures {
            if !gestures.isEmpty { summary += ": " + gestures.map { $0.first?.categoryName ?? "-" }.joined(separator: ", ") }
            labels = zip(handedness, gestures).map { handedness, gestures in
                [handedness.first?.categoryName, gestures.first?.categoryName].compactMap { $0 }.joined(separator: " ")
            }
        } else {
            labels = handedness.map { $0.first?.categoryName ?? "" }
        }
        return TaskAnswer(json: json, summary: summary, marks: marks(landmarks: landmarks, labels: labels))
    }

    /// The hand skeleton (MediaPipe's hand connections), the points, and each hand's label at its wrist.
    static func marks(landmarks: [[NormalizedLandmark]], labels: [String]) -> [TaskMark] {
        let line = MarkSize(longerSideOver: 400, atLeast: 1.5), dot = MarkSize(longerSideOver: 400, times: 1.5, atLeast: 2)
        var marks: [TaskMark] = []
        for (h, hand) in landmarks.enumerated() {
            let points = hand.map(NormalizedMarkPoint.init)
            for connection in HandLandmarker.handConnections {
                let a = Int(connection.start), b = Int(connection.end)
                guard a < points.count, b < points.count else { continue }
                marks.append(.segment(from: points[a], to: points[b], width: line, .green))
            }
            marks += points.map { TaskMark.dot($0, radius: dot, .red) }
            if h < labels.count, let wrist = points.first {
                marks.append(.text(labels[h], at: wrist, offset: (0, 6), line: 0, scale: MarkSize(longerSideOver: 400, atLeast: 1)))
            }
        }
        return marks
    }
}
