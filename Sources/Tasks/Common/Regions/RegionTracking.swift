import Foundation

/// MediaPipe's `RoiTrackingCalculator` (mediapipe/modules/holistic_landmark/calculators): keeps the region the last
/// frame's landmarks give while this frame's freshly derived ("re-crop") region says the object has not moved much —
/// rotation, translation and size within the augmentations the landmark model was trained with — and the last
/// landmarks still lie inside the re-crop region; otherwise takes the re-crop region. The holistic landmarker's face
/// and hands use it. (Its IoU requirement is not used by any of MediaPipe's graphs, so it is not here.)
struct RegionTracking: Sendable {
    /// Largest change of rotation, in degrees.
    var rotationDegrees: Float
    /// Largest change of the centre along the re-crop region's axes, as a fraction of its width (height).
    var translation: Float
    /// Largest change of width (height), as a fraction of the re-crop region's.
    var scale: Float
    /// The re-crop region grown (or, negative, shrunk) by this fraction must contain the last landmarks.
    var recropMargin: Float

    /// The region to run the landmark model on: nil when there is no re-crop region (the object is not there).
    func region(previousLandmarks: [NormalizedLandmark]?, previousRegion: NormalizedRect?, recrop: NormalizedRect?,
                imageWidth: Int, imageHeight: Int) -> NormalizedRect? {
        guard let recrop else { return nil }
        guard let previousRegion, let previousLandmarks else { return recrop }
        let size = (Float(imageWidth), Float(imageHeight))
        let keep = rectangleRequirements(previousRegion, recrop, size) && landmarkRequirements(previousLandmarks, recrop, size)
        return keep ? previousRegion : recrop
    }

    /// In float, as the calculator: both regions turned so that the re-crop region's edges lie along the axes.
    private func rectangleRequirements(_ previous: NormalizedRect, _ recrop: NormalizedRect, _ size: (Float, Float)) -> Bool {
        let rotation = -recrop.rotation
        let c = cosf(rotation), s = sinf(rotation)
        let px = previous.xCenter * size.0 * c - previous.yCenter * size.1 * s
        let py = previous.xCenter * size.0 * s + previous.yCenter * size.1 * c
        let rx = recrop.xCenter * size.0 * c - recrop.yCenter * size.1 * s
        let ry = recrop.xCenter * size.0 * s + recrop.yCenter * size.1 * c
        let rw = recrop.width * size.0, rh = recrop.height * size.1
        var turn = previous.rotation / .pi * 180 - recrop.rotation / .pi * 180
        if turn > 180 { turn -= 360 }
        if turn < -180 { turn += 360 }
        return abs(turn) <= rotationDegrees && abs(px - rx) <= rw * translation && abs(py - ry) <= rh * translation
            && abs(previous.width * size.0 - rw) <= rw * scale && abs(previous.height * size.1 - rh) <= rh * scale
    }

    private func landmarkRequirements(_ landmarks: [NormalizedLandmark], _ recrop: NormalizedRect, _ size: (Float, Float)) -> Bool {
        let rotation = -recrop.rotation
        let c = cosf(rotation), s = sinf(rotation)
        let x = recrop.xCenter * size.0 * c - recrop.yCenter * size.1 * s
        let y = recrop.xCenter * size.0 * s + recrop.yCenter * size.1 * c
        let w = recrop.width * size.0 * (1 + recropMargin), h = recrop.height * size.1 * (1 + recropMargin)
        let left = x - w * 0.5, right = x + w * 0.5, top = y - h * 0.5, bottom = y + h * 0.5
        return landmarks.allSatisfy { p in
            let lx = p.x * size.0 * c - p.y * size.1 * s
            let ly = p.x * size.0 * s + p.y * size.1 * c
            return left < lx && lx < right && top < ly && ly < bottom
        }
    }
}
