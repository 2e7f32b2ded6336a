// One import for ML Kit users: the image types (MPImage, which `VisionImage` wraps) and Foundation (NSNumber,
// Progress, NotificationCenter, which ML Kit's API uses). Not VisionTasks itself: its MediaPipe names
// (`ObjectDetector`, `ObjectDetectorOptions`) would make ML Kit's ambiguous; this module uses it internally.
@_exported import Foundation
@_exported import VisionTasksImaging
