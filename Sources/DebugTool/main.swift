import Foundation
import Format
import Vision
import VisionTasks
let o = PoseLandmarkerOptions()
o.numPoses = 2
let pipeline = try PosePipeline(bundle: try TaskBundle(path: "Models/pose_landmarker_lite.task"), options: o)
let img = try MPImage(contentsOfFile: CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "../shared/images/pose1.jpg")
for r in try pipeline.detect(img) { print("detector rect", r) }
