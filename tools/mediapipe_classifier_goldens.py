#!/usr/bin/env python3
"""MediaPipe 0.10.14's Image Classifier and Object Detector under their classifier options (maxResults,
scoreThreshold, categoryAllowlist, categoryDenylist): the truth for our ImageClassifier and ObjectDetector tests.

    .cache/mediapipe/bin/python tools/mediapipe_classifier_goldens.py [--shared ../shared] [--models Models] \
        [--out Tests/Fixtures/classifier_reference.json]

IMAGE mode, Python API, CPU. Images are ../shared/images photos read with mp.Image.create_from_file (RGB, no EXIF
rotation), as ../shared/reference was made.
- classify: efficientnet_lite0.tflite, bird_classifier.tflite and mobilenet_v1_0.25_128_quant.tflite, each with
  classifier_sets (allow/deny names are per model: the label sets differ).
- object: ssd_mobilenet_v1.tflite with DETECTOR_SETS.
An option not listed in an entry's "options" is MediaPipe's Python default: maxResults unset (-1, everything),
scoreThreshold unset (a classifier keeps every score; the detector falls back to the model metadata's threshold, if
any, else keeps everything; iOS instead always sends 0), no allow/deny list, displayNamesLocale "en".

One entry per (task, model, option set, image), one line each: image name, width, height, option-set name, options
(camelCase, as in our Swift options), and MediaPipe's result.
- classify: "classifications" [head]{headIndex, headName, categoryCount, categories[{index, score, categoryName,
  displayName}]}; a head with more than MAX_STORED categories (e.g. default, or a denylist, on a 1000-class model)
  stores only its first MAX_STORED, in MediaPipe's order, and categoryCount says how many MediaPipe returned.
- object: "detections" [{boundingBox{originX, originY, width, height} in pixels, categories[...]}], all of them.
  MediaPipe clears a detection's label id once it has a label, so its categories have "index": null and
  "displayName": null (Python's None; iOS gives index -1 and a nil displayName), as in ../shared/reference.
Scores are MediaPipe's float32 values written as Python floats (exact). The output depends only on the inputs.
"""
import argparse
import hashlib
import json
import os

import mediapipe as mp
from mediapipe.tasks import python as mpt
from mediapipe.tasks.python import vision

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
IMAGES = ["coral_bird.png", "coral_cat.png", "obj_cat.jpg", "obj_street_people.jpg", "obj_kitchen_people.jpg",
          "obj_kitchen_empty.jpg"]
MAX_STORED = 20

# "crane" is two ImageNet labels (indices 134 and 517 without background): only the first one is allowed.
IMAGENET_ALLOW = ["chickadee", "crane", "nonexistent"]
IMAGENET_DENY = ["chickadee", "Egyptian cat"]
BIRD_ALLOW = ["Poecile atricapillus (Black-capped Chickadee)", "background", "nonexistent"]
BIRD_DENY = ["background", "Poecile atricapillus (Black-capped Chickadee)"]
CLASSIFIERS = {
    "efficientnet_lite0.tflite": (IMAGENET_ALLOW, IMAGENET_DENY),
    "bird_classifier.tflite": (BIRD_ALLOW, BIRD_DENY),
    "mobilenet_v1_0.25_128_quant.tflite": (IMAGENET_ALLOW, IMAGENET_DENY),
}


def classifier_sets(allow, deny):
    return [("default", {}),
            ("maxResults 5", {"maxResults": 5}),
            ("maxResults 3 scoreThreshold 0.01", {"maxResults": 3, "scoreThreshold": 0.01}),
            ("allowlist", {"categoryAllowlist": allow}),
            ("denylist", {"categoryDenylist": deny})]


DETECTOR = "ssd_mobilenet_v1.tflite"
DETECTOR_SETS = [("default", {}),
                 ("maxResults 3", {"maxResults": 3}),
                 ("scoreThreshold 0.5", {"scoreThreshold": 0.5}),
                 ("allowlist person dog cat", {"categoryAllowlist": ["person", "dog", "cat"]}),
                 ("denylist person", {"categoryDenylist": ["person"]}),
                 ("allowlist nonexistent", {"categoryAllowlist": ["nonexistent"]})]

PYTHON_NAMES = {"maxResults": "max_results", "scoreThreshold": "score_threshold",
                "categoryAllowlist": "category_allowlist", "categoryDenylist": "category_denylist"}


def python_options(options):
    return {PYTHON_NAMES[k]: v for k, v in options.items()}


def categories(cs):
    return [{"index": c.index, "score": c.score, "categoryName": c.category_name, "displayName": c.display_name}
            for c in cs]


def classify_json(r):
    return {"classifications": [{"headIndex": c.head_index, "headName": c.head_name,
                                 "categoryCount": len(c.categories),
                                 "categories": categories(c.categories[:MAX_STORED])} for c in r.classifications]}


def detect_json(r):
    return {"detections": [{"boundingBox": {"originX": d.bounding_box.origin_x, "originY": d.bounding_box.origin_y,
                                            "width": d.bounding_box.width, "height": d.bounding_box.height},
                            "categories": categories(d.categories)} for d in r.detections]}


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--models", default=os.path.join(ROOT, "Models"))
    ap.add_argument("--out", default=os.path.join(ROOT, "Tests", "Fixtures", "classifier_reference.json"))
    a = ap.parse_args()

    images = [(name, mp.Image.create_from_file(os.path.join(a.shared, "images", name))) for name in IMAGES]
    models = list(CLASSIFIERS) + [DETECTOR]
    entries = []

    def run(task, model, sets, create, call, to_json):
        for set_name, options in sets:
            runner = create(os.path.join(a.models, model), python_options(options))
            for name, image in images:
                entries.append({"task": task, "model": model, "image": name, "width": image.width,
                                "height": image.height, "optionSet": set_name, "options": options,
                                "result": to_json(call(runner, image))})
            runner.close()

    for model, (allow, deny) in CLASSIFIERS.items():
        run("classify", model, classifier_sets(allow, deny),
            lambda path, o: vision.ImageClassifier.create_from_options(vision.ImageClassifierOptions(
                base_options=mpt.BaseOptions(model_asset_path=path), **o)),
            lambda c, image: c.classify(image), classify_json)
    run("object", DETECTOR, DETECTOR_SETS,
        lambda path, o: vision.ObjectDetector.create_from_options(vision.ObjectDetectorOptions(
            base_options=mpt.BaseOptions(model_asset_path=path), **o)),
        lambda d, image: d.detect(image), detect_json)

    header = {"mediapipeVersion": mp.__version__, "runningMode": "IMAGE", "maxStoredCategories": MAX_STORED,
              "models": {m: {"sha256": sha256(os.path.join(a.models, m))} for m in models},
              "images": IMAGES}
    with open(a.out, "w") as f:
        f.write("{\n")
        for key, value in header.items():
            f.write(f" {json.dumps(key)}: {json.dumps(value, separators=(',', ':'))},\n")
        f.write(' "entries": [\n')
        f.write(",\n".join("  " + json.dumps(e, separators=(",", ":"), ensure_ascii=False) for e in entries))
        f.write("\n ]\n}\n")
    print(f"{a.out}: {len(entries)} entries")


if __name__ == "__main__":
    main()
