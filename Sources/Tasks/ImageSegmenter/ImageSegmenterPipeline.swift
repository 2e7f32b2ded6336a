import VisionTasksModelFormat

/// MediaPipe's ImageSegmenterGraph, one image at a time (``SegmenterModel``). Nothing is carried from frame to frame
/// — the hair model's previous-mask channel is zeroed in every mode, as MediaPipe zeroes it — so video and
/// live-stream results are image mode's, frame by frame.
final class ImageSegmenterPipeline: TaskPipeline {
    typealias Options = ImageSegmenterOptions
    let model: SegmenterModel
    let options: TaskSettings<ImageSegmenterOptions.Values>

    init(bundle: TaskBundle, options: TaskSettings<ImageSegmenterOptions.Values>) throws(VisionTaskError) {
        model = try SegmenterModel(bundle: bundle, threads: options.baseOptions.numThreads,
                                   displayNamesLocale: options.displayNamesLocale, task: "an image segmenter")
        self.options = options
    }

    func resetVideoState() {}

    var stageTimings: [NamedStageTimings] { [NamedStageTimings("segmenter", model.runner.timings)] }

    func process(_ image: MPImage, timestampMilliseconds: Int?) throws(VisionTaskError) -> ImageSegmenterResult {
        // A four-channel model that is not the hair model takes the image's alpha, as MediaPipe's path without
        // SetAlpha does — and an image without alpha is refused, as MediaPipe 1.2.3 refuses it (its tensor of three
        // channels does not fit the model's four). The hair model's channel is cleared (`is_hair_segmentation`).
        if case .fourChannels = model.input, !model.isHairModel, !image.hasAlpha {
            throw .processingFailed("\(model.runner.member) takes four channels, the fourth from the image's alpha, and this image has none")
        }
        return try model.segment(image, confidenceMasks: options.shouldOutputConfidenceMasks, categoryMask: options.shouldOutputCategoryMask,
                          fourthChannel: model.isHairModel ? .zero : .imageAlpha, timestamp: timestampMilliseconds ?? 0)
    }
}
