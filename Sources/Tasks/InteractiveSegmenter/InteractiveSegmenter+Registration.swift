extension InteractiveSegmenter {
    /// The Interactive Segmenter as every surface takes it (`TaskRegistry`): image mode only, the region a keypoint
    /// given by `keypointX` and `keypointY` (normalized to the image buffer; the centre by default), since a surface
    /// hands a task an image alone. The answer's JSON is the Image Segmenter's summary of the masks
    /// (``ImageSegmenter/registration``).
    package static let registration = TaskDescription(
        name: "interactive-segmenter", title: "Interactive Segmenter",
        summary: "Segment the object under a point of the image, as MediaPipe's (legacy) Interactive Segmenter does.",
        modelNames: ["interactive_segmenter_standin.tflite", "magic_touch.tflite"],
        options: [
            .number("keypointX", \InteractiveSegmenterOptions.keypointX, in: 0...1,
                    help: "The point on the object, across the image (0 left, 1 right)."),
            .number("keypointY", \InteractiveSegmenterOptions.keypointY, in: 0...1,
                    help: "The point on the object, down the image (0 top, 1 bottom)."),
            .flag("shouldOutputConfidenceMasks", \InteractiveSegmenterOptions.shouldOutputConfidenceMasks,
                  help: "Return one confidence mask per category."),
            .flag("shouldOutputCategoryMask", \InteractiveSegmenterOptions.shouldOutputCategoryMask,
                  help: "Return the category mask."),
        ],
        runningModes: [.image],
        mediapipeClass: "InteractiveSegmenterLegacy", mediapipeMethod: "segment", benchImage: "face_day13.jpg",
        benchVideo: "face_head_turning.mp4",
        task: InteractiveSegmenter.self
    ) { result in
        SegmentationAnswer.answer(ImageSegmenterResult(confidenceMasks: result.confidenceMasks, categoryMask: result.categoryMask,
                                                       qualityScores: result.qualityScores, timestampInMilliseconds: 0))
    }
}
