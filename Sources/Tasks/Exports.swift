// One import for task users, as `import MediaPipeTasksVision` is on Apple platforms: the image types every task
// takes (MPImage, its pixel formats and orientations, ImageError), and Foundation, which MediaPipe's Objective-C
// module brings along and its guides' snippets rely on (`Bundle.main.path(forResource:ofType:)`, `NSObject`).
// Imaging's public names are those alone; what only our executables and tests use (drawing, PNG output, video
// through ffmpeg, .npy) lives in VisionTasksTooling, which this module never imports (tools/check-layers).
@_exported import Foundation
@_exported import VisionTasksImaging
