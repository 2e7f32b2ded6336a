import Foundation
import VisionTasksModelFormat

/// MediaPipe's legacy InteractiveSegmenterGraph: the region of interest rendered into the fourth channel
/// (``RegionRendering``) beside the image, then the image segmenter graph (``SegmenterModel``).
final class InteractiveSegmenterPipeline: TaskPipeline {
    typealias Options = InteractiveSegmenterOptions
    let model: SegmenterModel
    let options: TaskSettings<ImageSegmenterOptions.Values>
    /// The region of the call in progress, set by ``InteractiveSegmenter`` under its own lock just before the frame.
    var region: InteractiveSegmenter.RegionOfInterest?

    init(bundle: TaskBundle, options: TaskSettings<ImageSegmenterOptions.Values>) throws(VisionTaskError) {
        model = try SegmenterModel(bundle: bundle, threads: options.baseOptions.numThreads,
                                   displayNamesLocale: options.displayNamesLocale, task: "an interactive segmenter")
        guard case .fourChannels = model.input else {
            throw .wrongModel("an interactive segmenter's model takes the region as a fourth input channel; this one takes three")
        }
        self.options = options
    }

    func resetVideoState() {}

    var stageTimings: [NamedStageTimings] { [NamedStageTimings("segmenter", model.runner.timings)] }

    func process(_ image: MPImage, timestampMilliseconds: Int?) throws(VisionTaskError) -> InteractiveSegmenterResult {
        // Our surfaces' calls give no region: the options' keypoint (see InteractiveSegmenterOptions.keypointX).
        let keypoint = NormalizedKeypoint(location: CGPoint(x: Double(options.keypoint.x), y: Double(options.keypoint.y)))
        let region = self.region ?? InteractiveSegmenter.RegionOfInterest(normalizedKeyPoint: keypoint)
        // The image segmenter graph inside clears the channel of MediaPipe's hair model whatever was rendered.
        let alpha = model.isHairModel ? nil : RegionRendering.alpha(region, width: image.width, height: image.height)
        let result = try model.segment(image, confidenceMasks: options.shouldOutputConfidenceMasks,
                                       categoryMask: options.shouldOutputCategoryMask, alpha: alpha, fourthChannel: .zero,
                                       timestamp: 0)
        return InteractiveSegmenterResult(confidenceMasks: result.confidenceMasks, categoryMask: result.categoryMask,
                                          qualityScores: result.qualityScores, timestampInMilliseconds: 0)
    }
}
