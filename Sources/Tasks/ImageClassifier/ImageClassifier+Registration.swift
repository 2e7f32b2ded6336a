import Foundation

extension ImageClassifier {
    /// The Image Classifier as every surface takes it (`TaskRegistry`): `vision-tasks classify`, the worker's and
    /// the service's `classify`, `bench classify`.
    package static let registration = TaskDescription(
        name: "classify", title: "Image Classifier",
        summary: "Classify images or video frames with a TFLite image classifier (labels from its metadata), as MediaPipe's Image Classifier does; write MediaPipe's reference JSON.",
        modelNames: ["efficientnet_lite0.tflite", "efficientnet_lite2.tflite", "bird_classifier.tflite"],
        options: TaskOptionDescription.classifierOptions(ImageClassifierOptions.self),
        mediapipeClass: "ImageClassifier", mediapipeMethod: "classify", benchImage: "coral_bird.png",
        benchVideo: "outdoor_person_dog_sam2.mp4", task: ImageClassifier.self
    ) { result in
        ClassificationAnswer.answer(result)
    }.with {
        $0.exclusiveOptions = [["categoryAllowlist", "categoryDenylist"]]
        $0.documentation = ("a `.tflite` image classifier with metadata and labels (e.g. `efficientnet_lite0.tflite`, `bird_classifier.tflite`)", "")
        $0.bench.stageMembers = ["classifier": [""]]
        $0.bench.script = "classify"
    }
}

/// The JSON (`classify.json`'s schema: one array of categories per head), summary and marks of a classification.
enum ClassificationAnswer {
    static func answer(_ result: ImageClassifierResult) -> TaskAnswer {
        let heads = result.classificationResult.classifications
        let best = heads.first?.categories.first
        let top = heads.first?.categories.prefix(5) ?? []
        // The five best of the first head, a line each at the top left.
        let marks = top.enumerated().map { i, category in
            TaskMark.text(String(format: "%@ %.3f", category.categoryName ?? "\(category.index)", category.score),
                          at: NormalizedMarkPoint(x: 0, y: 0), offset: (4, 4), line: i, scale: MarkSize(longerSideOver: 600, atLeast: 1))
        }
        return TaskAnswer(json: ["classifications": heads.map { $0.categories.map(AnswerJSON.namedCategory) }],
                          summary: best.map { String(format: "%@ %.3f", $0.categoryName ?? "\($0.index)", $0.score) } ?? "no category",
                          marks: marks)
    }
}
