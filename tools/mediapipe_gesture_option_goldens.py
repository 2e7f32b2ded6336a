#!/usr/bin/env python3
"""MediaPipe 0.10.14's gesture recognizer under canned-classifier options: what allowlist, denylist, maxResults and
scoreThreshold do to its answers, as the truth for our ClassifierOptions tests.

    .cache/mediapipe/bin/python tools/mediapipe_gesture_option_goldens.py [SHARED_DIR] > Tests/Fixtures/gesture_options_reference.json

IMAGE mode, numHands 2, on hand_standing.png (one hand whose top gesture is "None", one "Open_Palm") and
hand_2hands.png. Per variant and image: each hand's gestures (name, score) and handedness, in MediaPipe's order.
"""
import json
import os
import sys

import mediapipe as mp
from mediapipe.tasks import python as mpt
from mediapipe.tasks.python import vision
from mediapipe.tasks.python.components.processors import classifier_options

VARIANTS = {
    "default": {},
    "allowlist Open_Palm": {"category_allowlist": ["Open_Palm"]},
    "denylist None": {"category_denylist": ["None"]},
    "denylist Open_Palm": {"category_denylist": ["Open_Palm"]},
    "maxResults 1": {"max_results": 1},
    "scoreThreshold 0.6": {"score_threshold": 0.6},
}
IMAGES = ["hand_standing.png", "hand_2hands.png"]


def main():
    shared = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "shared")
    model = os.path.join(shared, "models", "gesture_recognizer.task")
    out = {"mediapipeVersion": mp.__version__, "model": "gesture_recognizer.task", "numHands": 2, "variants": []}
    for name, canned in VARIANTS.items():
        recognizer = vision.GestureRecognizer.create_from_options(vision.GestureRecognizerOptions(
            base_options=mpt.BaseOptions(model_asset_path=model), num_hands=2,
            canned_gesture_classifier_options=classifier_options.ClassifierOptions(**canned)))
        results = []
        for image in IMAGES:
            r = recognizer.recognize(mp.Image.create_from_file(os.path.join(shared, "images", image)))
            results.append({"image": image,
                            "gestures": [[{"categoryName": c.category_name, "score": c.score} for c in g] for g in r.gestures],
                            "handedness": [[c.category_name for c in h] for h in r.handedness]})
        recognizer.close()
        out["variants"].append({"name": name, "cannedGesturesClassifierOptions": canned, "results": results})
    json.dump(out, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
