extension PoseLandmarker {
    /// The Pose Landmarker as every surface takes it (`TaskRegistry`): `vision-tasks pose`, the worker's and the
    /// service's `pose`, `bench pose`.
    package static let registration = TaskDescription(
        name: "pose", title: "Pose Landmarker",
        summary: "Detect pose landmarks in images or video frames; write MediaPipe's reference JSON and drawings (skeleton, mask).",
        modelNames: ["pose_landmarker_lite.task", "pose_landmarker_full.task", "pose_landmarker_heavy.task"],
        options: [
            .instances("numPoses", \PoseLandmarkerOptions.numPoses, help: "Most poses to find."),
            TaskOptionDescription.flag("outputSegmentationMasks", \PoseLandmarkerOptions.outputSegmentationMasks, help: "Compute segmentation masks.")
                .spelled("segmentation").defaulting(onCommandLine: .flag(true)),
            .smoothing(\PoseLandmarkerOptions.landmarkSmoothing),
            .serviceConfidence("minPoseDetectionConfidence", \PoseLandmarkerOptions.minPoseDetectionConfidence,
                               help: "Pose detections scoring below this are not used."),
            .serviceConfidence("minPosePresenceConfidence", \PoseLandmarkerOptions.minPosePresenceConfidence,
                               help: "Poses whose presence score is below this are not returned."),
            .serviceConfidence("minTrackingConfidence", \PoseLandmarkerOptions.minTrackingConfidence,
                               help: "Below this, the next frame detects poses afresh instead of tracking them."),
        ],
        mediapipeClass: "PoseLandmarker", mediapipeMethod: "detect", benchImage: "pose4.jpg",
        benchVideo: "full_body_juggle.mp4", task: PoseLandmarker.self
    ) { result in
        PoseAnswer.answer(result)
    }.with {
        $0.documentation = ("`pose_landmarker_lite.task`, `pose_landmarker_full.task`", "BlazePose detector and landmark model (lite or full), segmentation mask")
        $0.bench.members = ["pose_detector.tflite", "pose_landmarks_detector.tflite"]
        $0.bench.stageMembers = ["detector": ["pose_detector.tflite"], "landmarks": ["pose_landmarks_detector.tflite"]]
        $0.bench.script = "pose"
        $0.bench.described = "numPoses 1 (MediaPipe's default)"
        $0.bench.masksOption = "outputSegmentationMasks"
    }
}

/// The JSON (`pose.json`), summary and marks (mask, skeleton) of a pose result.
enum PoseAnswer {
    static func answer(_ result: PoseLandmarkerResult) -> TaskAnswer {
        var json: [String: Any] = [
            "landmarks": result.landmarks.map { $0.map(AnswerJSON.point) },
            "worldLandmarks": result.worldLandmarks.map { $0.map(AnswerJSON.point) },
        ]
        AnswerJSON.identities(result.identities, into: &json)
        json["segmentationMasks"] = result.segmentationMasks.map { mask -> [String: Any] in
            let values = mask.float32Values
            let count = Double(max(values.count, 1))
            return ["width": mask.width, "height": mask.height,
                    "mean": values.reduce(0) { $0 + Double($1) } / count,
                    "fractionAbove0.5": Double(values.filter { $0 > 0.5 }.count) / count]
        }
        return TaskAnswer(json: json, summary: "\(result.landmarks.count) pose(s)", marks: marks(result))
    }

    /// The masks, then each pose's skeleton (MediaPipe's 33-point connections) and its visible points.
    static func marks(_ result: PoseLandmarkerResult) -> [TaskMark] {
        let line = MarkSize(longerSideOver: 300, atLeast: 1.5), dot = MarkSize(longerSideOver: 300, times: 1.5, atLeast: 2)
        var marks = result.segmentationMasks.map { TaskMark.overlay($0, .blue, opacity: 0.4) }
        for pose in result.landmarks {
            let points = pose.map(NormalizedMarkPoint.init)
            for connection in PoseLandmarker.poseLandmarks {
                let a = Int(connection.start), b = Int(connection.end)
                guard a < points.count, b < points.count else { continue }
                marks.append(.segment(from: points[a], to: points[b], width: line, .green))
            }
            for (i, point) in points.enumerated() where (pose[i].visibility?.floatValue ?? 1) > 0.5 {
                marks.append(.dot(point, radius: dot, .red))
            }
        }
        return marks
    }
}
