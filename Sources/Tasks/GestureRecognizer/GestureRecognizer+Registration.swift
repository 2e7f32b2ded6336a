extension GestureRecognizer {
    /// The Gesture Recognizer as every surface takes it (`TaskRegistry`): `vision-tasks gesture`, the worker's and
    /// the service's `gesture`, `bench gesture`.
    package static let registration = TaskDescription(
        name: "gesture", title: "Gesture Recognizer",
        summary: "Recognize hand gestures in images or video frames; write MediaPipe's reference JSON and drawings (skeleton, handedness, gesture).",
        modelNames: ["gesture_recognizer.task"],
        options: TaskOptionDescription.handOptions(GestureRecognizerOptions.self),
        mediapipeClass: "GestureRecognizer", mediapipeMethod: "recognize", benchImage: "hand_two_palms.png",
        benchVideo: "hand_gesture_fist_thumbsup.mp4", task: GestureRecognizer.self
    ) { result in
        HandAnswer.answer(handedness: result.handedness, gestures: result.gestures, landmarks: result.landmarks,
                          world: result.worldLandmarks, identities: result.identities)
    }.with {
        $0.documentation = ("`gesture_recognizer.task`", "the hand landmarker bundle, the gesture embedder and the canned 8-gesture classifier; a bundle made with MediaPipe Model Maker carries a custom classifier, used as MediaPipe uses it")
        $0.bench.members = ["hand_landmarker.task/hand_detector.tflite", "hand_landmarker.task/hand_landmarks_detector.tflite",
                            "hand_gesture_recognizer.task/gesture_embedder.tflite",
                            "hand_gesture_recognizer.task/canned_gesture_classifier.tflite"]
        $0.bench.stageMembers = ["detector": ["hand_landmarker.task/hand_detector.tflite"],
                                 "landmarks": ["hand_landmarker.task/hand_landmarks_detector.tflite"],
                                 "gestures": ["hand_gesture_recognizer.task/gesture_embedder.tflite",
                                              "hand_gesture_recognizer.task/canned_gesture_classifier.tflite"]]
        $0.bench.script = "gesture"
        $0.bench.described = "numHands 1 (MediaPipe's default)"
    }
}
