#!/usr/bin/env python3
"""MediaPipe 0.10.14's own smoothing calculators on a fixed landmark sequence -> Tests/Fixtures/smoothing_goldens.npy.

The per-calculator truth for our LandmarksSmoother, as LiteRT's per-operator goldens are for the engine: the inputs
are MediaPipe's own unsmoothed pose landmarks on full_body_juggle.mp4 (../shared/reference/pose_video.json, the
first 60 frames; frames 30-32 carry no landmarks, as when a pose is lost), run through the three chains MediaPipe's
graphs build (pose_landmarks_detector_graph.cc, face_landmarks_detector_graph.cc at v0.10.14):
  pose image landmarks: VisibilitySmoothing(alpha 0.1) -> LandmarksSmoothing(NORM_LANDMARKS, IMAGE_SIZE,
                        OBJECT_SCALE_ROI; one-euro 0.05 / 80 / 1)
  pose world landmarks: VisibilitySmoothing(alpha 0.1) -> LandmarksSmoothing(LANDMARKS; 0.1 / 40 / 1,
                        disable_value_scaling)
  face-style:           LandmarksSmoothing(NORM_LANDMARKS, IMAGE_SIZE; 0.05 / 80 / 1), scale from the landmarks
The object-scale region of frame i is the landmarks' own bounding box grown by 25 % (any region will do; the same
one is stored for our test to feed).

Needs mediapipe==0.10.14 (tools/setup puts it in .cache/mediapipe):
    .cache/mediapipe/bin/python tools/mediapipe_smoothing_goldens.py [SHARED_DIR]
Output: float32 array [60, 7 + 33 * 19]; per frame: timestampMs, present (0/1), region (xCenter, yCenter, width,
height, rotation), then per landmark input (x, y, z, visibility), world input (x, y, z, visibility), image output
(x, y, z, visibility), world output (x, y, z, visibility), face-style output (x, y, z). Outputs of absent frames are 0.
"""
import json
import os
import sys

import numpy as np
import mediapipe as mp
from mediapipe.python import packet_creator as pc, packet_getter as pg
from mediapipe.framework.formats import landmark_pb2, rect_pb2
from mediapipe.calculators.util import landmarks_smoothing_calculator_pb2  # noqa: F401 (registers the options)
from mediapipe.calculators.util import visibility_smoothing_calculator_pb2  # noqa: F401

FRAMES = 60
GAP = range(30, 33)
COUNT = 33
GRAPH = '''
input_stream: "image"
input_stream: "landmarks"
input_stream: "world"
input_stream: "roi"
node { calculator: "ImagePropertiesCalculator" input_stream: "IMAGE:image" output_stream: "SIZE:size" }
node { calculator: "VisibilitySmoothingCalculator" input_stream: "NORM_LANDMARKS:landmarks"
  output_stream: "NORM_FILTERED_LANDMARKS:visible"
  options { [mediapipe.VisibilitySmoothingCalculatorOptions.ext] { low_pass_filter { alpha: 0.1 } } } }
node { calculator: "LandmarksSmoothingCalculator" input_stream: "NORM_LANDMARKS:visible" input_stream: "IMAGE_SIZE:size"
  input_stream: "OBJECT_SCALE_ROI:roi" output_stream: "NORM_FILTERED_LANDMARKS:image_out"
  options { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] {
    one_euro_filter { min_cutoff: 0.05 beta: 80 derivate_cutoff: 1 } } } }
node { calculator: "VisibilitySmoothingCalculator" input_stream: "LANDMARKS:world"
  output_stream: "FILTERED_LANDMARKS:world_visible"
  options { [mediapipe.VisibilitySmoothingCalculatorOptions.ext] { low_pass_filter { alpha: 0.1 } } } }
node { calculator: "LandmarksSmoothingCalculator" input_stream: "LANDMARKS:world_visible"
  output_stream: "FILTERED_LANDMARKS:world_out"
  options { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] {
    one_euro_filter { min_cutoff: 0.1 beta: 40 derivate_cutoff: 1 disable_value_scaling: true } } } }
node { calculator: "LandmarksSmoothingCalculator" input_stream: "NORM_LANDMARKS:landmarks" input_stream: "IMAGE_SIZE:size"
  output_stream: "NORM_FILTERED_LANDMARKS:face_out"
  options { [mediapipe.LandmarksSmoothingCalculatorOptions.ext] {
    one_euro_filter { min_cutoff: 0.05 beta: 80 derivate_cutoff: 1 } } } }
output_stream: "image_out"
output_stream: "world_out"
output_stream: "face_out"
'''


def main():
    shared = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "shared")
    reference = json.load(open(os.path.join(shared, "reference", "pose_video.json")))["results"][:FRAMES]
    width, height = reference[0]["width"], reference[0]["height"]
    rows = np.zeros((FRAMES, 7 + COUNT * 19), np.float32)
    outputs = {"image_out": {}, "world_out": {}, "face_out": {}}
    graph = mp.CalculatorGraph(graph_config=GRAPH)
    for name in outputs:
        graph.observe_output_stream(name, lambda stream, packet: outputs[stream].__setitem__(
            packet.timestamp.value, pg.get_proto(packet)))
    graph.start_run()
    image = mp.Image(image_format=mp.ImageFormat.SRGB, data=np.zeros((height, width, 3), np.uint8))
    for i, entry in enumerate(reference):
        ms = entry["timestampMs"]
        us = ms * 1000  # MediaPipe Tasks stamp packets with milliseconds x 1000
        rows[i, 0] = ms
        graph.add_packet_to_input_stream("image", pc.create_image(image).at(us))
        if i in GAP:
            continue
        points = entry["result"]["landmarks"][0]
        world = entry["result"]["worldLandmarks"][0]
        xs = [p["x"] for p in points]
        ys = [p["y"] for p in points]
        roi = (np.float32((min(xs) + max(xs)) / 2), np.float32((min(ys) + max(ys)) / 2),
               np.float32((max(xs) - min(xs)) * 1.25), np.float32((max(ys) - min(ys)) * 1.25), np.float32(0))
        rows[i, 1] = 1
        rows[i, 2:7] = roi
        graph.add_packet_to_input_stream("landmarks", pc.create_proto(landmark_pb2.NormalizedLandmarkList(landmark=[
            landmark_pb2.NormalizedLandmark(x=p["x"], y=p["y"], z=p["z"], visibility=p["visibility"],
                                            presence=p["presence"]) for p in points])).at(us))
        graph.add_packet_to_input_stream("world", pc.create_proto(landmark_pb2.LandmarkList(landmark=[
            landmark_pb2.Landmark(x=p["x"], y=p["y"], z=p["z"], visibility=p["visibility"], presence=p["presence"])
            for p in world])).at(us))
        graph.add_packet_to_input_stream("roi", pc.create_proto(rect_pb2.NormalizedRect(
            x_center=roi[0], y_center=roi[1], width=roi[2], height=roi[3], rotation=roi[4])).at(us))
        for k in range(COUNT):
            base = 7 + k * 19
            rows[i, base:base + 4] = [points[k]["x"], points[k]["y"], points[k]["z"], points[k]["visibility"]]
            rows[i, base + 4:base + 8] = [world[k]["x"], world[k]["y"], world[k]["z"], world[k]["visibility"]]
    graph.close()
    for i, entry in enumerate(reference):
        us = entry["timestampMs"] * 1000
        if i in GAP:
            assert all(us not in outputs[name] for name in outputs), f"frame {i}: output without input"
            continue
        for offset, name, fields in ((8, "image_out", "xyzv"), (12, "world_out", "xyzv"), (16, "face_out", "xyz")):
            for k, p in enumerate(outputs[name][us].landmark):
                values = {"x": p.x, "y": p.y, "z": p.z, "v": p.visibility}
                rows[i, 7 + k * 19 + offset:7 + k * 19 + offset + len(fields)] = [values[f] for f in fields]
    path = os.path.join(os.path.dirname(__file__), "..", "Tests", "Fixtures", "smoothing_goldens.npy")
    np.save(path, rows)
    print(f"wrote {os.path.normpath(path)}: {FRAMES} frames, MediaPipe {mp.__version__}")


if __name__ == "__main__":
    main()
