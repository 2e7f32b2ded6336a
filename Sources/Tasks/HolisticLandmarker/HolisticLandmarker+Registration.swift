import Foundation

extension HolisticLandmarker {
    /// The Holistic Landmarker as every surface takes it (`TaskRegistry`).
    ///
    /// Its answer's JSON has MediaPipe's result fields: `poseLandmarks` and `poseWorldLandmarks` (33 each, with
    /// visibility and presence), `faceLandmarks` (478), `faceBlendshapes` (52 categories, when asked for),
    /// `leftHandLandmarks`, `leftHandWorldLandmarks`, `rightHandLandmarks`, `rightHandWorldLandmarks` (21 each) — an
    /// empty list for a part not found — and `segmentationMask` summarized as the segmenter's masks are (`width`,
    /// `height`, `mean`, `above05`) or null. When `numPeople` finds more than one person, `people` lists every person
    /// with the same fields (the first is the one the top-level fields describe).
    package static let registration = TaskDescription(
        name: "holistic-landmarker", title: "Holistic Landmarker",
        summary: "Find one person's pose, face and both hands in one pass (33 + 478 + 2 × 21 landmarks, blendshapes, the pose mask), as MediaPipe's Holistic Landmarker does.",
        modelNames: ["holistic_landmarker.task"],
        options: [
            .number("minFaceDetectionConfidence", \HolisticLandmarkerOptions.minFaceDetectionConfidence, in: 0...1,
                    help: "Face detections scoring below this are not used."),
            .number("minFaceSuppressionThreshold", \HolisticLandmarkerOptions.minFaceSuppressionThreshold, in: 0...1,
                    help: "Overlap (IoU) above which two face detections are merged."),
            .number("minFacePresenceConfidence", \HolisticLandmarkerOptions.minFacePresenceConfidence, in: 0...1,
                    help: "Face landmarks whose presence score is below this are not returned."),
            .number("minPoseDetectionConfidence", \HolisticLandmarkerOptions.minPoseDetectionConfidence, in: 0...1,
                    help: "Pose detections scoring below this are not used."),
            .number("minPoseSuppressionThreshold", \HolisticLandmarkerOptions.minPoseSuppressionThreshold, in: 0...1,
                    help: "Overlap (IoU) above which two pose detections are merged."),
            .number("minPosePresenceConfidence", \HolisticLandmarkerOptions.minPosePresenceConfidence, in: 0...1,
                    help: "Pose landmarks whose presence score is below this are not returned."),
            .number("minHandLandmarksConfidence", \HolisticLandmarkerOptions.minHandLandmarksConfidence, in: 0...1,
                    help: "Hand landmarks whose presence score is below this are not returned."),
            .flag("outputFaceBlendshapes", \HolisticLandmarkerOptions.outputFaceBlendshapes,
                  help: "Return the face's 52 blendshape scores."),
            .flag("outputPoseSegmentationMasks", \HolisticLandmarkerOptions.outputPoseSegmentationMasks,
                  help: "Return the pose's segmentation mask."),
            .integer("numPeople", \HolisticLandmarkerOptions.numPeople, in: 1...100,
                     help: "The most people to find, each with their own face and hands (not a MediaPipe option: 1 is MediaPipe's landmarker)."),
        ],
        mediapipeClass: "HolisticLandmarker", mediapipeMethod: "detect", benchImage: "pose1.jpg",
        benchVideo: "full_body_juggle.mp4", task: HolisticLandmarker.self
    ) { result in
        HolisticAnswer.answer(result)
    }.with {
        $0.bench.members = ["pose_detector.tflite", "pose_landmarks_detector.tflite", "face_detector.tflite",
                            "face_landmarks_detector.tflite", "hand_roi_refinement.tflite", "hand_landmarks_detector.tflite"]
        $0.bench.stageMembers = ["pose detector": ["pose_detector.tflite"], "pose landmarks": ["pose_landmarks_detector.tflite"],
                                 "face detector": ["face_detector.tflite"], "face landmarks": ["face_landmarks_detector.tflite"],
                                 "hand region": ["hand_roi_refinement.tflite"], "hand landmarks": ["hand_landmarks_detector.tflite"],
                                 "blendshapes": ["face_blendshapes.tflite"]]
        // TrackHolisticPoseUsingCustomPoseDetection (holistic_pose_tracking.cc) runs the pose detector only when no
        // region came back from the previous call, in image mode too.
        $0.bench.mediapipeImageModeTracks = true
    }
}

/// The JSON, summary and marks of a holistic result.
enum HolisticAnswer {
    static func answer(_ result: HolisticLandmarkerResult) -> TaskAnswer {
        var json = fields(result.people.first ?? HolisticPerson())
        if result.people.count > 1 { json["people"] = result.people.map(fields) }
        let parts = [("pose", result.poseLandmarks.isEmpty), ("face", result.faceLandmarks.isEmpty),
                     ("left hand", result.leftHandLandmarks.isEmpty), ("right hand", result.rightHandLandmarks.isEmpty)]
        let found = parts.filter { !$0.1 }.map(\.0)
        let all = result.people.flatMap { $0.poseLandmarks + $0.faceLandmarks + $0.leftHandLandmarks + $0.rightHandLandmarks }
        let summary = found.isEmpty ? "no person" : found.joined(separator: ", ") + (result.people.count > 1 ? " (\(result.people.count) people)" : "")
        return TaskAnswer(json: json, summary: summary, marks: all.map { .normalizedPoint(x: Double($0.x), y: Double($0.y)) })
    }

    /// MediaPipe's result fields for one person.
    static func fields(_ person: HolisticPerson) -> [String: Any] {
        func points(_ landmarks: [NormalizedLandmark]) -> [[String: Any]] {
            landmarks.map { p in
                var out: [String: Any] = ["x": Double(p.x), "y": Double(p.y), "z": Double(p.z)]
                if let v = p.visibilityValue { out["visibility"] = Double(v) }
                if let v = p.presenceValue { out["presence"] = Double(v) }
                return out
            }
        }
        func points(_ landmarks: [Landmark]) -> [[String: Any]] {
            landmarks.map { p in
                var out: [String: Any] = ["x": Double(p.x), "y": Double(p.y), "z": Double(p.z)]
                if let v = p.visibilityValue { out["visibility"] = Double(v) }
                if let v = p.presenceValue { out["presence"] = Double(v) }
                return out
            }
        }
        return [
            "poseLandmarks": points(person.poseLandmarks), "poseWorldLandmarks": points(person.poseWorldLandmarks),
            "faceLandmarks": points(person.faceLandmarks),
            "faceBlendshapes": (person.faceBlendshapes?.categories ?? []).map(AnswerJSON.category),
            "leftHandLandmarks": points(person.leftHandLandmarks), "leftHandWorldLandmarks": points(person.leftHandWorldLandmarks),
            "rightHandLandmarks": points(person.rightHandLandmarks), "rightHandWorldLandmarks": points(person.rightHandWorldLandmarks),
            "segmentationMask": person.poseSegmentationMask.map(SegmentationAnswer.confidenceSummary) ?? NSNull(),
        ]
    }
}
