#!/usr/bin/env python3
"""MediaPipe's Face Detector on the shared photos, a clip, turned buffers and EXIF files ->
Tests/Fixtures/face_detector_reference.json (issue #45).

    .cache/mediapipe-1.2.3/bin/python tools/mediapipe_face_detector_goldens.py [--shared ../shared] \
        [--mp01014 .cache/mediapipe/bin/python] [--out Tests/Fixtures/face_detector_reference.json]

Runs under MediaPipe 1.2.3 (the truth) and calls itself under 0.10.14 (`--worker`) on the same jobs; about 13 s on two
cores. `--mp01014 none` leaves 0.10.14 out (its results are then {"error": ...}): tools/arm64 makes the arm64 file so,
in a root whose Python 0.10.14 has no wheel for. Deterministic: the same inputs, options and CPU give the same bytes. Inputs are rebuilt from ../shared as
tools/mediapipe_task_common.py says (photos by create_from_file, np.rot90 buffers, EXIF-tagged JPEGs, ffmpeg frames).

Sets (an entry's "set"):
- "short": face_detection_short_range.tflite, IMAGE mode, MediaPipe's default options (minDetectionConfidence 0.5,
  minSuppressionThreshold 0.3), on every face_*, pose*, hand_* and multi1 photo (including those where it finds nothing:
  face_group.jpg's faces are too small for it) and two photos without people (obj_kitchen_empty.jpg, coral_bird.png).
- "short-options": the same photos with minDetectionConfidence 0.2 and minSuppressionThreshold 0.6 (more candidates,
  fewer merged by the weighted non-maximum suppression).
- "full": face_detection_full_range_sparse.tflite, default options, the same photos; **1.2.3 only** (0.10.14 fails a
  RET_CHECK on the model's box count: "raw_box_tensor->shape().dims[1] == num_boxes_"; its error is recorded).
- "video": short range, VIDEO mode, the first VIDEO_FRAMES frames of face_head_turning.mp4, timestamps from the
  frame index and fps; image "face_head_turning.mp4#i".
- "video-full": full range, VIDEO mode, the first VIDEO_FRAMES_FULL frames of the same clip (1.2.3 only).
- "rotated": short range on np.rot90(upright, rot90k), k = 0..3, with rotationDegrees = 90k (MediaPipe's
  ImageProcessingOptions.rotation_degrees); width/height are the turned buffer's, and results are in its frame.
  maxKeypointDiffFromUprightMapped: largest keypoint difference from the k = 0 result mapped into the turned frame
  (x, y) -> (y, 1-x), (1-x, 1-y), (1-y, x) for k = 1, 2, 3 (null when the counts differ).
- "exif": short range on the original JPEG with an APP1 EXIF orientation N = 1..8 inserted after SOI
  (exifSegmentHex), read by 1.2.3's create_from_file, which shows the pixels through appliedTransform (see
  Tests/Fixtures/orientation/README.md); width/height are the shown image's. 0.10.14 ignores EXIF: its column is run
  on the buffer 1.2.3 shows (the tool checks both versions see the same pixels, by digest, for every entry).

Entry: {set, model, runningMode, image, width, height, timestampMs, options (camelCase, as our Swift options; {} =
defaults), [rot90k, rotationDegrees | exifOrientation, exifSegmentHex, appliedTransform], result, result_0_10_14}.
`result` is 1.2.3's, `result_0_10_14` 0.10.14's (or {"error": message} where it fails). A result:
  {"detections": [{"boundingBox": {originX, originY, width, height} (pixels, ints as MediaPipe gives them),
                   "categories": [{index, score, categoryName, displayName}],
                   "keypoints": [{x, y, score} + label when MediaPipe gives a non-empty one] (6, normalized)}]}
MediaPipe's face detector gives category index 0, categoryName and displayName null, keypoint score 0 and no keypoint
label (0.10.14 an empty string, 1.2.3 None: both written as no "label"). Keypoint order: right eye, left eye, nose
tip, mouth centre, right ear tragion, left ear tragion (the person's right/left). Floats are MediaPipe's float32
values written as the shortest decimal that reads back to the same float32 (exact).
The header's "spread" is the largest |1.2.3 - 0.10.14| per field over every entry both ran (scores, box pixels,
keypoints), and the entries whose detection counts differ.
"""
import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mediapipe_task_common as common  # noqa: E402

common.quiet_logs()
import mediapipe as mp  # noqa: E402
from mediapipe.tasks import python as mpt  # noqa: E402
from mediapipe.tasks.python import vision  # noqa: E402

SHORT = "face_detection_short_range.tflite"
FULL = "face_detection_full_range_sparse.tflite"
PHOTOS = ["face_day13.jpg", "face_group.jpg", "face_iris1.jpg", "face_landmark_ex1.jpg", "face_mesh1.jpg",
          "hand_2hands.png", "hand_f5547.jpg", "hand_standing.png", "hand_two_palms.png", "multi1.jpg",
          "pose1.jpg", "pose2.jpg", "pose3.jpg", "pose4.jpg", "pose5.jpg", "pose7.jpg",
          "obj_kitchen_empty.jpg", "coral_bird.png"]
CHANGED_OPTIONS = {"minDetectionConfidence": 0.2, "minSuppressionThreshold": 0.6}
CLIP = "face_head_turning.mp4"
VIDEO_FRAMES = 60
VIDEO_FRAMES_FULL = 30
ROTATED = ["face_day13.jpg", "pose4.jpg"]
EXIF = ["face_landmark_ex1.jpg"]
PY_OPTIONS = {"minDetectionConfidence": "min_detection_confidence", "minSuppressionThreshold": "min_suppression_threshold"}


# ---------------------------------------------------------------- running MediaPipe (either version)

def to_json(r):
    out = []
    for d in r.detections:
        b = d.bounding_box
        keypoints = []
        for k in d.keypoints or []:
            p = {"x": common.f32(k.x), "y": common.f32(k.y), "score": common.f32(k.score or 0.0)}
            if k.label:
                p["label"] = k.label
            keypoints.append(p)
        out.append({"boundingBox": {"originX": b.origin_x, "originY": b.origin_y, "width": b.width, "height": b.height},
                    "categories": [{"index": c.index, "score": common.f32(c.score), "categoryName": c.category_name or None,
                                    "displayName": c.display_name or None} for c in d.categories],
                    "keypoints": keypoints})
    return {"detections": out}


class Runner:
    def __init__(self, shared):
        self.shared, self.detectors = shared, {}

    def detector(self, model, options, mode):
        key = (model, json.dumps(options, sort_keys=True), mode)
        if key not in self.detectors:
            self.detectors[key] = vision.FaceDetector.create_from_options(vision.FaceDetectorOptions(
                base_options=mpt.BaseOptions(model_asset_path=common.model_path(model, shared=self.shared)),
                running_mode=mode, **{PY_OPTIONS[k]: v for k, v in options.items()}))
        return self.detectors[key]

    def close(self):
        for d in self.detectors.values():
            try:
                d.close()
            except Exception:  # noqa: BLE001 (0.10.14 re-raises a failed graph's error on close)
                pass
        self.detectors = {}

    def image(self, job):
        """(mp.Image, rotation degrees) for a job, as this version sees it."""
        path = os.path.join(self.shared, "images", job["image"])
        if job["kind"] == "exif":
            tagged = os.path.join(job["tmp"], f"exif{job['n']}_{job['image']}")
            with open(path, "rb") as src, open(tagged, "wb") as dst:
                dst.write(common.exif_tagged(src.read(), job["n"]))
            image = mp.Image.create_from_file(tagged)
            if mp.__version__.startswith("0."):  # 0.10.x ignores the tag: turn the buffer as 1.x shows it
                pixels = common.transform(np.array(image.numpy_view()), common.EXIF_TRANSFORMS[job["n"]])
                image = mp.Image(image_format=image.image_format, data=np.ascontiguousarray(pixels))
            return image, 0
        image = mp.Image.create_from_file(path)
        if job["kind"] == "rot":
            pixels = np.ascontiguousarray(np.rot90(np.array(image.numpy_view()), job["k"]))
            image = mp.Image(image_format=image.image_format, data=pixels)
            return image, 90 * job["k"]
        return image, 0

    def run(self, job):
        try:
            if job["kind"] == "video":
                detector = self.detector(job["model"], job["options"], vision.RunningMode.VIDEO)
                frames = []
                for name, pixels, ts in common.video_frames(os.path.join(self.shared, "videos", job["clip"]), job["frames"]):
                    image = mp.Image(image_format=mp.ImageFormat.SRGB, data=pixels)
                    frames.append({"image": name, "width": image.width, "height": image.height, "timestampMs": ts,
                                   "pixels": common.digest(pixels),
                                   "result": to_json(detector.detect_for_video(image, ts))})
                return {"frames": frames}
            image, degrees = self.image(job)
            detector = self.detector(job["model"], job["options"], vision.RunningMode.IMAGE)
            options = vision.ImageProcessingOptions(rotation_degrees=degrees) if degrees else None
            result = to_json(detector.detect(image, options) if options else detector.detect(image))
            return {"width": image.width, "height": image.height, "pixels": common.digest(image.numpy_view()),
                    "result": result}
        except Exception as e:  # noqa: BLE001 (a version's refusal is part of the record)
            self.close()  # a failed graph stays failed: the next job starts afresh
            return {"error": f"{type(e).__name__}: {' '.join(str(e).split())}"}


def worker(shared):
    jobs = json.load(sys.stdin)
    runner = Runner(shared)
    results = [runner.run(j) for j in jobs]
    runner.close()
    json.dump({"version": mp.__version__, "results": results}, sys.stdout)


# ---------------------------------------------------------------- comparing the versions

class Spread:
    def __init__(self):
        self.score = self.box = self.keypoint = 0.0
        self.count_differs, self.compared = [], 0

    def add(self, label, a, b):
        if "error" in a or "error" in b:
            return
        self.compared += 1
        da, db = a["detections"], b["detections"]
        if len(da) != len(db):
            self.count_differs.append(f"{label}: {len(da)} vs {len(db)}")
            return
        for x, y in zip(da, db):
            self.box = max(self.box, *(abs(x["boundingBox"][f] - y["boundingBox"][f]) for f in x["boundingBox"]))
            self.score = max(self.score, abs(x["categories"][0]["score"] - y["categories"][0]["score"]))
            for p, q in zip(x["keypoints"], y["keypoints"]):
                self.keypoint = max(self.keypoint, abs(p["x"] - q["x"]), abs(p["y"] - q["y"]))

    def json(self):
        return {"entriesCompared": self.compared, "maxAbsScore": float(f"{self.score:.3g}"),
                "maxAbsBoxPixels": self.box, "maxAbsKeypoint": float(f"{self.keypoint:.3g}"),
                "detectionCountDiffers": self.count_differs}


def mapped_keypoint_diff(upright, turned, k):
    a, b = upright["detections"], turned["detections"]
    if len(a) != len(b) or not a:
        return None
    worst = 0.0
    for x in a:  # each upright face against the turned face nearest to it (order may differ)
        mapped = np.array([common.map_point(p["x"], p["y"], k) for p in x["keypoints"]])
        worst = max(worst, min(float(np.abs(mapped - np.array([[p["x"], p["y"]] for p in y["keypoints"]])).max())
                               for y in b))
    return float(f"{worst:.3g}")


# ---------------------------------------------------------------- the fixture

def jobs_and_entries(tmp):
    jobs, entries = [], []

    def add(entry, job):
        jobs.append(job)
        entries.append(entry)

    for set_name, model, options in (("short", SHORT, {}), ("short-options", SHORT, CHANGED_OPTIONS), ("full", FULL, {})):
        for name in PHOTOS:
            add({"set": set_name, "model": model, "runningMode": "IMAGE", "image": name, "options": options},
                {"kind": "image", "image": name, "model": model, "options": options})
    add({"set": "video", "model": SHORT, "runningMode": "VIDEO", "clip": CLIP, "options": {}},
        {"kind": "video", "clip": CLIP, "frames": VIDEO_FRAMES, "model": SHORT, "options": {}})
    add({"set": "video-full", "model": FULL, "runningMode": "VIDEO", "clip": CLIP, "options": {}},
        {"kind": "video", "clip": CLIP, "frames": VIDEO_FRAMES_FULL, "model": FULL, "options": {}})
    for name in ROTATED:
        for k in range(4):
            add({"set": "rotated", "model": SHORT, "runningMode": "IMAGE", "image": name, "options": {},
                 "rot90k": k, "rotationDegrees": 90 * k},
                {"kind": "rot", "image": name, "k": k, "model": SHORT, "options": {}})
    for name in EXIF:
        for n in range(1, 9):
            add({"set": "exif", "model": SHORT, "runningMode": "IMAGE", "image": name, "options": {},
                 "exifOrientation": n, "exifSegmentHex": common.app1_exif_orientation(n).hex(),
                 "appliedTransform": common.EXIF_TRANSFORMS[n]},
                {"kind": "exif", "image": name, "n": n, "tmp": tmp, "model": SHORT, "options": {}})
    return jobs, entries


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=None)
    ap.add_argument("--mp01014", default=common.MP01014)
    ap.add_argument("--out", default=os.path.join(common.ROOT, "Tests", "Fixtures", "face_detector_reference.json"))
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    shared = common.shared_dir(a.shared)
    if a.worker:
        return worker(shared)
    assert mp.__version__ == "1.2.3", "run under MediaPipe 1.2.3 (.cache/mediapipe-1.2.3/bin/python)"
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="face-detector-goldens-") as tmp:
        jobs, entries = jobs_and_entries(tmp)
        runner = Runner(shared)
        mine = [runner.run(j) for j in jobs]
        runner.close()
        common.log(f"1.2.3: {len(jobs)} jobs in {time.time() - start:.0f} s")
        if a.mp01014 == "none":  # e.g. the arm64 root's Python 3.13, for which 0.10.14 has no wheel
            theirs = {"version": None, "results": [{"error": "not run (--mp01014 none)"} for _ in jobs]}
        else:
            theirs = common.call_worker(a.mp01014, os.path.abspath(__file__), ["--shared", shared], jobs)
        common.log(f"{theirs['version']}: done at {time.time() - start:.0f} s")

    spread, out, uprights = Spread(), [], {}
    for entry, r123, r0 in zip(entries, mine, theirs["results"]):
        if "error" in r123:
            raise SystemExit(f"1.2.3 failed on {entry}: {r123['error']}")
        if entry["runningMode"] == "VIDEO":
            for f123, f0 in zip(r123["frames"], r0.get("frames", [{}] * len(r123["frames"]))):
                assert f0.get("pixels") in (None, f123["pixels"]), f"frame decoding differs: {f123['image']}"
                spread.add(f123["image"], f123["result"], f0.get("result", r0))
                out.append({**{k: v for k, v in entry.items() if k != "clip"}, "image": f123["image"],
                            "width": f123["width"], "height": f123["height"], "timestampMs": f123["timestampMs"],
                            "result": f123["result"], "result_0_10_14": f0.get("result", r0)})
            continue
        if "pixels" in r0:
            assert r0["pixels"] == r123["pixels"], f"the versions see different pixels: {entry}"
        e = {**entry, "width": r123["width"], "height": r123["height"], "timestampMs": None,
             "result": r123["result"], "result_0_10_14": r0.get("result", r0)}
        if entry["set"] == "rotated":
            if entry["rot90k"] == 0:
                uprights[entry["image"]] = r123["result"]
            e["maxKeypointDiffFromUprightMapped"] = mapped_keypoint_diff(uprights[entry["image"]], r123["result"],
                                                                         entry["rot90k"])
        spread.add(f"{entry['set']} {entry.get('image')}", r123["result"], e["result_0_10_14"])
        out.append(e)

    header = {"task": "faceDetector", "mediapipeVersion": mp.__version__, "result_0_10_14": theirs["version"],
              "generator": "tools/mediapipe_face_detector_goldens.py",
              "models": {m: {"sha256": common.sha256_file(common.model_path(m, shared=shared))} for m in (SHORT, FULL)},
              "spread": spread.json()}
    with open(a.out, "w") as f:
        f.write("{\n")
        for key, value in header.items():
            f.write(f" {json.dumps(key)}: {json.dumps(value, separators=(',', ':'))},\n")
        f.write(' "entries": [\n')
        f.write(",\n".join("  " + json.dumps(e, separators=(",", ":")) for e in out))
        f.write("\n ]\n}\n")
    common.log(f"spread 1.2.3 vs {theirs['version']}: {json.dumps(spread.json())}")
    common.log(f"wrote {os.path.relpath(a.out)}: {len(out)} entries, {os.path.getsize(a.out)} bytes, "
               f"{time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
