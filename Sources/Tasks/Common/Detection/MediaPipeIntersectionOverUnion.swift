/// MediaPipe's overlap of two axis-aligned boxes, each as its `Rectangle_f` holds one (a corner and a size; the far
/// edges are the corner plus the size): intersection over union, 0 when they do not overlap or the union is empty.
/// MediaPipe computes it twice, alike: `OverlapSimilarity` with `kJaccard` in
/// `mediapipe/calculators/util/non_max_suppression_calculator.cc` (the detectors' non-maximum suppression), and
/// `CalculateIou` in `mediapipe/util/rectangle_util.cc` (the association calculators that join detections to tracked
/// regions). Not the TFLite detection post-processing's IoU (corner coordinates, in the engine), nor the ML Kit
/// tracker's (ours, in Double on pixel boxes).
func mediaPipeIntersectionOverUnion(_ a: (xMin: Float, yMin: Float, width: Float, height: Float),
                                    _ b: (xMin: Float, yMin: Float, width: Float, height: Float)) -> Float {
    let iw = min(a.xMin + a.width, b.xMin + b.width) - max(a.xMin, b.xMin)
    let ih = min(a.yMin + a.height, b.yMin + b.height) - max(a.yMin, b.yMin)
    guard iw > 0, ih > 0 else { return 0 }
    let intersection = iw * ih
    // Each area from the rectangle's corners, as `Rectangle_f::Area()` has it: (xmin + width) − xmin is not always
    // width in float.
    let areaA = (a.xMin + a.width - a.xMin) * (a.yMin + a.height - a.yMin)
    let areaB = (b.xMin + b.width - b.xMin) * (b.yMin + b.height - b.yMin)
    let union = areaA + areaB - intersection
    return union > 0 ? intersection / union : 0
}
