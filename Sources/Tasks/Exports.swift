// One import for task users, as `import MediaPipeTasksVision` is on Apple platforms: the image types every task
// takes (MPImage, its pixel formats and orientations, ImageError), and Foundation, which MediaPipe's Objective-C
// module brings along and its guides' snippets rely on (`Bundle.main.path(forResource:ofType:)`, `NSObject`).
@_exported import Foundation
@_exported import VisionTasksImaging
