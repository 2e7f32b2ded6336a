#!/usr/bin/env python3
"""MediaPipe 0.10.14's own region calculators on synthetic detections -> Tests/Fixtures/region_goldens.json.

The per-calculator truth for RegionFromDetection and RegionTransformation, with the options MediaPipe's graphs use:
  hand: DetectionsToRectsCalculator (box; rotation from keypoint 0 to 2, target 90 degrees) -> RectTransformation
        (scale 2.6, shift_y -0.5, square_long)                       (hand_detector_graph.cc)
  pose: AlignmentPointsRectsCalculator (keypoint 0 to 1, target 90) -> RectTransformation (scale 1.25, square_long)
  face: DetectionsToRectsCalculator (keypoint 0 to 1, target 0) -> RectTransformation (scale 1.5, square_long)
  other: the hand chain's box, then RectTransformation (scale 1.3 x 0.8, shift 0.2 / -0.1, square_short)
Detections: a fixed pseudo-random set (boxes and three keypoints each) on a landscape and a portrait image size.
Needs mediapipe==0.10.14 (.cache/mediapipe):  .cache/mediapipe/bin/python tools/mediapipe_region_goldens.py
"""
import json
import os

import numpy as np
import mediapipe as mp
from mediapipe.python import packet_creator as pc, packet_getter as pg
from mediapipe.framework.formats import detection_pb2, location_data_pb2
from mediapipe.calculators.util import detections_to_rects_calculator_pb2  # noqa: F401 (registers the options)
from mediapipe.calculators.util import rect_transformation_calculator_pb2  # noqa: F401

GRAPH = '''
input_stream: "image"
input_stream: "detection"
node { calculator: "ImagePropertiesCalculator" input_stream: "IMAGE:image" output_stream: "SIZE:size" }
node { calculator: "DetectionsToRectsCalculator" input_stream: "DETECTION:detection" input_stream: "IMAGE_SIZE:size"
  output_stream: "NORM_RECT:hand_raw"
  options { [mediapipe.DetectionsToRectsCalculatorOptions.ext] { rotation_vector_start_keypoint_index: 0
    rotation_vector_end_keypoint_index: 2 rotation_vector_target_angle_degrees: 90 } } }
node { calculator: "RectTransformationCalculator" input_stream: "NORM_RECT:hand_raw" input_stream: "IMAGE_SIZE:size"
  output_stream: "hand"
  options { [mediapipe.RectTransformationCalculatorOptions.ext] { scale_x: 2.6 scale_y: 2.6 shift_y: -0.5 square_long: true } } }
node { calculator: "AlignmentPointsRectsCalculator" input_stream: "DETECTION:detection" input_stream: "IMAGE_SIZE:size"
  output_stream: "NORM_RECT:pose_raw"
  options { [mediapipe.DetectionsToRectsCalculatorOptions.ext] { rotation_vector_start_keypoint_index: 0
    rotation_vector_end_keypoint_index: 1 rotation_vector_target_angle_degrees: 90 } } }
node { calculator: "RectTransformationCalculator" input_stream: "NORM_RECT:pose_raw" input_stream: "IMAGE_SIZE:size"
  output_stream: "pose"
  options { [mediapipe.RectTransformationCalculatorOptions.ext] { scale_x: 1.25 scale_y: 1.25 square_long: true } } }
node { calculator: "DetectionsToRectsCalculator" input_stream: "DETECTION:detection" input_stream: "IMAGE_SIZE:size"
  output_stream: "NORM_RECT:face_raw"
  options { [mediapipe.DetectionsToRectsCalculatorOptions.ext] { rotation_vector_start_keypoint_index: 0
    rotation_vector_end_keypoint_index: 1 rotation_vector_target_angle_degrees: 0 } } }
node { calculator: "RectTransformationCalculator" input_stream: "NORM_RECT:face_raw" input_stream: "IMAGE_SIZE:size"
  output_stream: "face"
  options { [mediapipe.RectTransformationCalculatorOptions.ext] { scale_x: 1.5 scale_y: 1.5 square_long: true } } }
node { calculator: "RectTransformationCalculator" input_stream: "NORM_RECT:hand_raw" input_stream: "IMAGE_SIZE:size"
  output_stream: "other"
  options { [mediapipe.RectTransformationCalculatorOptions.ext] { scale_x: 1.3 scale_y: 0.8 shift_x: 0.2 shift_y: -0.1
    square_short: true } } }
'''
OUTPUTS = ["hand_raw", "hand", "pose_raw", "pose", "face_raw", "face", "other"]


def main():
    rng = np.random.default_rng(13)
    cases = []
    timestamp = 0
    for width, height in [(1280, 720), (480, 640)]:
        graph = mp.CalculatorGraph(graph_config=GRAPH + "".join(f'output_stream: "{o}"\n' for o in OUTPUTS))
        got = {}
        for name in OUTPUTS:
            graph.observe_output_stream(name, lambda stream, packet: got.setdefault(packet.timestamp.value, {}).__setitem__(
                stream, pg.get_proto(packet)))
        graph.start_run()
        image = mp.Image(image_format=mp.ImageFormat.SRGB, data=np.zeros((height, width, 3), np.uint8))
        inputs = {}
        for _ in range(8):
            timestamp += 1
            box = [float(np.float32(v)) for v in (rng.uniform(0, 0.6), rng.uniform(0, 0.6), rng.uniform(0.05, 0.4), rng.uniform(0.05, 0.4))]
            keypoints = [[float(np.float32(v)) for v in rng.uniform(0, 1, 2)] for _ in range(3)]
            detection = detection_pb2.Detection(location_data=location_data_pb2.LocationData(
                format=location_data_pb2.LocationData.RELATIVE_BOUNDING_BOX,
                relative_bounding_box=location_data_pb2.LocationData.RelativeBoundingBox(
                    xmin=box[0], ymin=box[1], width=box[2], height=box[3]),
                relative_keypoints=[location_data_pb2.LocationData.RelativeKeypoint(x=k[0], y=k[1]) for k in keypoints]))
            graph.add_packet_to_input_stream("image", pc.create_image(image).at(timestamp))
            graph.add_packet_to_input_stream("detection", pc.create_proto(detection).at(timestamp))
            inputs[timestamp] = (box, keypoints)
        graph.close()
        for t, (box, keypoints) in inputs.items():
            case = {"imageWidth": width, "imageHeight": height, "box": box, "keypoints": keypoints}
            for name in OUTPUTS:
                r = got[t][name]
                case[name] = [r.x_center, r.y_center, r.width, r.height, r.rotation]
            cases.append(case)
    path = os.path.join(os.path.dirname(__file__), "..", "Tests", "Fixtures", "region_goldens.json")
    with open(path, "w") as f:
        json.dump({"mediapipeVersion": mp.__version__, "cases": cases}, f, indent=1)
    print(f"wrote {os.path.normpath(path)}: {len(cases)} cases")


if __name__ == "__main__":
    main()
