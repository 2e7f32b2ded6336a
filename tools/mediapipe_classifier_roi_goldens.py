#!/usr/bin/env python3
"""MediaPipe 0.10.14's (or, on arm64, 1.2.3's) Image Classifier with a region of interest (ImageProcessingOptions.region_of_interest), alone
and with a rotation on a turned buffer: the truth for ImageClassifier.classify(image:regionOfInterest:).

    .cache/mediapipe/bin/python tools/mediapipe_classifier_roi_goldens.py [--shared ../shared] [--models Models] \
        [--out Tests/Fixtures/classifier_roi_reference.json]

IMAGE mode, Python API, CPU, maxResults 5. Images: ../shared/images photos read with mp.Image.create_from_file; a
turned buffer is numpy.rot90(pixels, k) (k = 1: counter-clockwise) run with rotation_degrees 90·k, as
tests/Fixtures/orientation. The region is MediaPipe's Rect (left, top, right, bottom, normalized to the buffer as
given). Scores are MediaPipe's float32 values written as Python floats (exact).
"""
import argparse
import json
import os

import mediapipe as mp
import numpy as np
from mediapipe.tasks import python as mpt
from mediapipe.tasks.python import vision
from mediapipe.tasks.python.components.containers import rect as rect_module

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
CASES = [  # image, model, region (left, top, right, bottom), rot90 k
    ("coral_bird.png", "bird_classifier.tflite", (0.2, 0.1, 0.8, 0.9), 0),
    ("coral_bird.png", "bird_classifier.tflite", (0.0, 0.0, 0.5, 0.5), 0),
    ("obj_cat.jpg", "efficientnet_lite0.tflite", (0.05, 0.1, 0.6, 0.95), 0),
    ("obj_cat.jpg", "efficientnet_lite0.tflite", (0.1, 0.05, 0.95, 0.6), 1),
    ("coral_bird.png", "bird_classifier.tflite", (0.2, 0.2, 0.9, 0.8), 3),
    ("coral_bird.png", "bird_classifier.tflite", (0.2, 0.1, 0.8, 0.9), 2),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--models", default=os.path.join(ROOT, "Models"))
    ap.add_argument("--out", default=os.path.join(ROOT, "Tests", "Fixtures", "classifier_roi_reference.json"))
    a = ap.parse_args()
    entries = []
    for image_name, model, (left, top, right, bottom), k in CASES:
        options = vision.ImageClassifierOptions(
            base_options=mpt.BaseOptions(model_asset_path=os.path.join(a.models, model)), max_results=5)
        upright = mp.Image.create_from_file(os.path.join(a.shared, "images", image_name))
        pixels = np.ascontiguousarray(np.rot90(upright.numpy_view().copy(), k))
        image = mp.Image(image_format=upright.image_format, data=pixels)
        # 0.10.14 takes the normalized region as Rect; 1.x as RectF (its Rect holds integers). 1.2.3 makes the
        # arm64 file (tools/arm64 goldens --all): 0.10.14 has no wheel for the arm64 root's Python.
        roi = getattr(rect_module, "RectF", rect_module.Rect)(left=left, top=top, right=right, bottom=bottom)
        processing = vision.ImageProcessingOptions(region_of_interest=roi, rotation_degrees=90 * k)
        with vision.ImageClassifier.create_from_options(options) as classifier:
            result = classifier.classify(image, processing)
        entries.append({"image": image_name, "model": model, "rot90k": k, "rotationDegrees": 90 * k,
                        "region": {"left": left, "top": top, "right": right, "bottom": bottom},
                        "width": image.width, "height": image.height,
                        "categories": [{"index": c.index, "score": c.score, "categoryName": c.category_name}
                                       for c in result.classifications[0].categories]})
    doc = {"mediapipeVersion": mp.__version__, "maxResults": 5, "entries": entries}
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"wrote {a.out}: {len(entries)} entries")


if __name__ == "__main__":
    main()
