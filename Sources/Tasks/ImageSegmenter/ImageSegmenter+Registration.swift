extension ImageSegmenter {
    /// The Image Segmenter as every surface takes it (`TaskRegistry`).
    ///
    /// Its answer's JSON summarizes the masks rather than listing their pixels (a 1080p frame is two million values):
    /// `confidenceMasks` is one object per mask — `width`, `height`, `mean` (the mean confidence) and `above05` (the
    /// fraction of pixels above 0.5) — and `categoryMask` is `width`, `height` and `counts`, the number of pixels of
    /// each value present (keys are the values as strings: "0" and "255" for the selfie models), beside `labels` and
    /// `qualityScores`. No marks: ``TaskMark`` has no mask case yet, so a drawing shows the image alone.
    package static let registration = TaskDescription(
        name: "image-segmenter", title: "Image Segmenter",
        summary: "Segment an image into confidence masks per category and a category mask (MediaPipe's selfie or hair models), as MediaPipe's Image Segmenter does.",
        modelNames: ["selfie_segmentation.tflite", "selfie_segmentation_landscape.tflite", "hair_segmentation.tflite"],
        options: [
            .flag("shouldOutputConfidenceMasks", \ImageSegmenterOptions.shouldOutputConfidenceMasks,
                  help: "Return one confidence mask per category."),
            .flag("shouldOutputCategoryMask", \ImageSegmenterOptions.shouldOutputCategoryMask,
                  help: "Return the category mask (one-category models: 0 on the category, 255 elsewhere)."),
        ],
        mediapipeClass: "ImageSegmenter", mediapipeMethod: "segment", benchImage: "pose1.jpg",
        benchVideo: "face_head_turning.mp4", task: ImageSegmenter.self
    ) { result in
        SegmentationAnswer.answer(result)
    }
}

/// The small JSON and the marks of a segmentation result (both segmenters' registrations).
enum SegmentationAnswer {
    static func answer(_ result: ImageSegmenterResult) -> TaskAnswer {
        var json: [String: Any] = ["qualityScores": (result.qualityScores ?? []).map(Double.init)]
        var parts: [String] = []
        if let masks = result.confidenceMasks {
            json["confidenceMasks"] = masks.map(confidenceSummary)
            parts.append("\(masks.count) confidence mask(s)")
        }
        if let mask = result.categoryMask {
            let counts = categoryCounts(mask)
            json["categoryMask"] = ["width": mask.width, "height": mask.height,
                                    "counts": Dictionary(uniqueKeysWithValues: counts.map { ("\($0.key)", $0.value) })]
            parts.append("category mask of \(counts.count) value(s)")
        }
        // The last confidence mask: the foreground of a one-class model, the last class of the others (hair).
        return TaskAnswer(json: json, summary: parts.joined(separator: ", "), marks: result.confidenceMasks?.last.map { [.confidence($0)] } ?? [])
    }

    static func confidenceSummary(_ mask: Mask) -> [String: Any] {
        let count = mask.width * mask.height
        var sum = 0.0, above = 0
        let values = UnsafeBufferPointer(start: mask.float32Data, count: count)
        for v in values {
            sum += Double(v)
            if v > 0.5 { above += 1 }
        }
        return ["width": mask.width, "height": mask.height, "mean": count > 0 ? sum / Double(count) : 0,
                "above05": count > 0 ? Double(above) / Double(count) : 0]
    }

    static func categoryCounts(_ mask: Mask) -> [UInt8: Int] {
        var counts = [Int](repeating: 0, count: 256)
        for v in UnsafeBufferPointer(start: mask.uint8Data, count: mask.width * mask.height) { counts[Int(v)] += 1 }
        var out: [UInt8: Int] = [:]
        for (value, count) in counts.enumerated() where count > 0 { out[UInt8(value)] = count }
        return out
    }
}
