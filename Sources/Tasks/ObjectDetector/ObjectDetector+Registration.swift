import Foundation

extension ObjectDetector {
    /// The Object Detector as every surface takes it (`TaskRegistry`): `vision-tasks object`, the worker's and the
    /// service's `object`, `bench objects`.
    package static let registration = TaskDescription(
        name: "object", title: "Object Detector",
        summary: "Detect objects with a TFLite detector with metadata (EfficientDet-Lite, MediaPipe's default; SSD with TFLite_Detection_PostProcess) in images or video frames, as MediaPipe's Object Detector does; write MediaPipe's reference JSON and drawings.",
        modelNames: ["efficientdet_lite0.tflite", "efficientdet_lite2.tflite", "ssd_mobilenet_v2.tflite", "ssd_mobilenet_v1.tflite"],
        options: TaskOptionDescription.classifierOptions(ObjectDetectorOptions.self),
        mediapipeClass: "ObjectDetector", mediapipeMethod: "detect", benchImage: "obj_street_people.jpg",
        benchVideo: "outdoor_person_dog_sam2.mp4", task: ObjectDetector.self
    ) { result in
        ObjectAnswer.answer(result)
    }.with {
        $0.exclusiveOptions = [["categoryAllowlist", "categoryDenylist"]]
        $0.documentation = ("a `.tflite` SSD ending in `TFLite_Detection_PostProcess`, with object-detector metadata (e.g. `ssd_mobilenet_v1.tflite`, COCO, uint8)", "")
        $0.bench.job = "objects"
        $0.bench.model = "ssd_mobilenet_v1.tflite"
        $0.bench.stageMembers = ["detector": [""]]
        $0.bench.script = "object"
    }
}

/// The JSON (`object.json`'s schema), summary and marks of a detection result.
enum ObjectAnswer {
    static func answer(_ result: ObjectDetectorResult) -> TaskAnswer {
        // A model's NaN box is written as null, not converted (Int(_:) traps on it).
        func pixel(_ value: CGFloat) -> Any { AnswerJSON.clampedPixel(Double(value)).map { $0 as Any } ?? NSNull() }
        let detections = result.detections.map { detection -> [String: Any] in
            let box = detection.boundingBox
            // A labelled detection's index and display name as null, as MediaPipe's Python results give them.
            let categories = detection.categories.map { c -> [String: Any] in
                ["index": c.index < 0 ? NSNull() : c.index as Any, "score": Double(c.score),
                 "categoryName": c.categoryName ?? NSNull(), "displayName": c.displayName ?? NSNull()]
            }
            return ["boundingBox": ["originX": pixel(box.minX), "originY": pixel(box.minY), "width": pixel(box.width), "height": pixel(box.height)],
                    "categories": categories]
        }
        let summary = "\(result.detections.count) object(s)" + (result.detections.first.map { ", best \($0.categories.first?.categoryName ?? "?")" } ?? "")
        // Each box labelled with every category it has.
        let marks = result.detections.map { detection in
            TaskMark.box(detection.boundingBox,
                         label: detection.categories.map { String(format: "%@ %.2f", $0.categoryName ?? "\($0.index)", $0.score) }.joined(separator: ", "))
        }
        return TaskAnswer(json: ["detections": detections], summary: summary, marks: marks)
    }
}
