#!/usr/bin/env python3
"""MediaPipe's own results on turned inputs -> Tests/Fixtures/orientation/ (issue #32, every orientation and EXIF tag).

    .cache/mediapipe/bin/python tools/mediapipe_orientation_goldens.py \
        [--shared ../shared] [--mp123 .cache/mediapipe-1.2.3/bin/python] [--out Tests/Fixtures/orientation]

Runs under MediaPipe 0.10.14 (.cache/mediapipe) and calls itself under 1.2.3 (.cache/mediapipe-1.2.3, `--worker`) for
what only 1.x does (Image.create_from_file applies the EXIF orientation) and to cross-check. Deterministic: the same
inputs, options and CPU give the same bytes. Writes (see Tests/Fixtures/orientation/README.md):
  convention.json        which rotation_degrees undoes np.rot90(upright, k), per task (pose, face, hand, object, classify)
  turned_<task>.json     IMAGE mode on np.rot90(upright, k), k = 0..3, with rotation_degrees = 90*k (pose: also 0)
  exif_<task>.json       IMAGE mode under 1.2.3 on original JPEG + one APP1 Exif segment with orientation N = 1..8
  video_<task>_rot<R>.json  VIDEO mode (shared tools/mediapipe_reference.py, 30 frames) on clips whose stream carries
                         `rotate=R` metadata, R = 90, 180, 270, made by stream copy in a temp dir
Floats are rounded to 6 significant digits, except scores (exact). Nothing from ../shared is copied: inputs are rebuilt from it.
"""
import argparse
import hashlib
import itertools
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

import mediapipe as mp
from mediapipe.tasks import python as mpt
from mediapipe.tasks.python import vision

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = {"pose": "pose_landmarker_lite.task", "face": "face_landmarker.task", "hand": "hand_landmarker.task",
          "gesture": "gesture_recognizer.task", "object": "ssd_mobilenet_v1.tflite", "classify": "bird_classifier.tflite"}
# Upright inputs per task (all handled by MediaPipe upright; see ../shared/reference/<task>.json).
TURNED = {"pose": ["pose1.jpg", "multi1.jpg"], "face": ["face_day13.jpg"], "hand": ["hand_f5547.jpg", "hand_two_palms.png"],
          "gesture": ["hand_two_palms.png", "hand_f5547.jpg"], "object": ["obj_street_people.jpg", "obj_cat.jpg"],
          "classify": ["coral_bird.png"]}
CONVENTION = {"pose": "pose1.jpg", "face": "face_day13.jpg", "hand": "hand_f5547.jpg", "object": "obj_street_people.jpg",
              "classify": "coral_bird.png"}
# JPEGs without an APP1 Exif segment, and the tasks run on each of their eight EXIF variants.
EXIF = {"face_landmark_ex1.jpg": ["pose", "face", "object"], "pose4.jpg": ["pose", "gesture", "object"],
        "obj_kitchen_people.jpg": ["pose", "object"]}
CLIPS = {"pose": ("full_body_juggle.mp4", "pose_landmarker_lite.task"),
         "face": ("face_head_turning.mp4", "face_landmarker.task"),
         "gesture": ("hand_gesture_fist_thumbsup.mp4", "gesture_recognizer.task")}
CLIP_FRAMES = 30
# Every frame runs (VIDEO mode tracks); results are kept for frames i % KEEP_EVERY[task] == 0 (the fixtures' size).
KEEP_EVERY = {"pose": 2, "face": 5, "gesture": 1}
ROTATES = (90, 180, 270)
# EXIF orientation N -> the transform of the stored pixels that shows them (what 1.x's create_from_file applies).
EXIF_TRANSFORMS = {1: "identity", 2: "fliplr", 3: "rot180", 4: "flipud", 5: "transpose", 6: "rot90cw", 7: "transverse",
                   8: "rot90ccw"}


def transform(a, name):
    return {"identity": a, "fliplr": a[:, ::-1], "rot180": a[::-1, ::-1], "flipud": a[::-1],
            "transpose": a.transpose(1, 0, 2), "rot90cw": np.rot90(a, -1), "transverse": np.rot90(a, 2).transpose(1, 0, 2),
            "rot90ccw": np.rot90(a, 1)}[name]


# ---------------------------------------------------------------- running MediaPipe (both versions)

def make(task, model, mode=vision.RunningMode.IMAGE):
    bo = mpt.BaseOptions(model_asset_path=model)
    if task == "pose":
        return vision.PoseLandmarker.create_from_options(vision.PoseLandmarkerOptions(
            base_options=bo, running_mode=mode, num_poses=2, output_segmentation_masks=True))
    if task == "face":
        return vision.FaceLandmarker.create_from_options(vision.FaceLandmarkerOptions(
            base_options=bo, running_mode=mode, num_faces=2, output_face_blendshapes=True,
            output_facial_transformation_matrixes=True))
    if task == "gesture":
        return vision.GestureRecognizer.create_from_options(vision.GestureRecognizerOptions(
            base_options=bo, running_mode=mode, num_hands=2))
    if task == "hand":
        return vision.HandLandmarker.create_from_options(vision.HandLandmarkerOptions(
            base_options=bo, running_mode=mode, num_hands=2))
    if task == "object":
        return vision.ObjectDetector.create_from_options(vision.ObjectDetectorOptions(
            base_options=bo, running_mode=mode, max_results=5, score_threshold=0.3))
    if task == "classify":
        return vision.ImageClassifier.create_from_options(vision.ImageClassifierOptions(
            base_options=bo, running_mode=mode, max_results=5))
    raise SystemExit(f"unknown task {task}")


def lm(points):
    out = []
    for p in points:
        d = {"x": p.x, "y": p.y, "z": p.z}
        if getattr(p, "visibility", None) is not None:
            d["visibility"] = p.visibility
        if getattr(p, "presence", None) is not None:
            d["presence"] = p.presence
        out.append(d)
    return out


def cats(categories):
    return [{"index": c.index, "score": c.score, "categoryName": c.category_name, "displayName": c.display_name}
            for c in categories]


def to_json(task, r):
    """The schema of ../shared/reference/*.json (the same code as ../shared/tools/mediapipe_reference.py)."""
    if task == "pose":
        masks = []
        for m in (r.segmentation_masks or []):
            a = m.numpy_view()
            masks.append({"width": a.shape[1], "height": a.shape[0], "mean": float(a.mean()),
                          "fractionAbove0.5": float((a > 0.5).mean())})
        return {"landmarks": [lm(p) for p in r.pose_landmarks], "worldLandmarks": [lm(p) for p in r.pose_world_landmarks],
                "segmentationMasks": masks}
    if task == "face":
        return {"faceLandmarks": [lm(f) for f in r.face_landmarks],
                "faceBlendshapes": [cats(b) for b in (r.face_blendshapes or [])],
                "facialTransformationMatrixes": [np.asarray(m).tolist() for m in (r.facial_transformation_matrixes or [])]}
    if task in ("gesture", "hand"):
        d = {"handedness": [cats(h) for h in r.handedness], "landmarks": [lm(h) for h in r.hand_landmarks],
             "worldLandmarks": [lm(h) for h in r.hand_world_landmarks]}
        if task == "gesture":
            d["gestures"] = [cats(g) for g in r.gestures]
        return d
    if task == "object":
        return {"detections": [{"boundingBox": {"originX": d.bounding_box.origin_x, "originY": d.bounding_box.origin_y,
                                                "width": d.bounding_box.width, "height": d.bounding_box.height},
                                "categories": cats(d.categories)} for d in r.detections]}
    return {"classifications": [cats(c.categories) for c in r.classifications]}


def normalized(task, result):
    """One spelling for both versions: face and hand landmarks have no visibility/presence (0.10.14 writes 0.0 for
    them, 1.x None; the shared references have the 0.0s), a missing displayName is "" (1.x: None)."""
    for key in ("faceLandmarks", "landmarks", "worldLandmarks") if task in ("face", "hand", "gesture") else ():
        for inst in result.get(key, []):
            for p in inst:
                for field in ("visibility", "presence"):
                    assert p.get(field) in (None, 0.0), f"{task} {key} has a {field} {p[field]}"
                    p.pop(field, None)
    for key in ("faceBlendshapes", "handedness", "gestures", "classifications"):
        for group in result.get(key, []):
            for c in group:
                if c.get("displayName") is None:
                    c["displayName"] = ""
    # A detection's missing display name stays None, as 0.10.14 and the shared object.json write it.
    for d in result.get("detections", []):
        for c in d["categories"]:
            if c.get("displayName") == "":
                c["displayName"] = None
    return result


VERB = {"pose": "detect", "face": "detect", "gesture": "recognize", "hand": "detect", "object": "detect",
        "classify": "classify"}


class Runner:
    def __init__(self, models_dir):
        self.models_dir, self.tasks = models_dir, {}

    def run(self, task, image, degrees):
        if task not in self.tasks:
            self.tasks[task] = make(task, os.path.join(self.models_dir, MODELS[task]))
        options = vision.ImageProcessingOptions(rotation_degrees=degrees)
        return normalized(task, to_json(task, getattr(self.tasks[task], VERB[task])(image, options)))


def decode(path):
    """(pixels, format) as MediaPipe's create_from_file gives them; a copy, so it outlives the mp.Image (1.2.3's
    numpy_view of a dropped Image dangles)."""
    image = mp.Image.create_from_file(path)
    return np.array(image.numpy_view()), image.image_format


def image_of(pixels, fmt):
    return mp.Image(image_format=fmt, data=np.ascontiguousarray(pixels))


def digest(pixels):
    return hashlib.sha256(np.ascontiguousarray(pixels).tobytes()).hexdigest()[:16] + f"/{pixels.shape}"


def run_job(runner, job):
    """kind "rot": np.rot90(decoded, k) with rotation_degrees d; kind "file": create_from_file as it is (1.x: EXIF)."""
    pixels, fmt = decode(job["path"])
    if job["kind"] == "rot":
        pixels = np.rot90(pixels, job["k"])
    image = image_of(pixels, fmt)
    result = runner.run(job["task"], image, job.get("d", 0))
    return {"width": image.width, "height": image.height, "pixels": digest(pixels), "result": result}


def worker(models_dir):
    jobs = json.load(sys.stdin)
    runner = Runner(models_dir)
    json.dump({"version": mp.__version__, "results": [run_job(runner, j) for j in jobs]}, sys.stdout)


def call_worker(python, models_dir, jobs):
    out = subprocess.run([python, os.path.abspath(__file__), "--worker", "--models", models_dir],
                         input=json.dumps(jobs), capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"worker under {python} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout)


# ---------------------------------------------------------------- comparing results

def rounded(o):
    if isinstance(o, float):
        return float(f"{o:.6g}")
    if isinstance(o, dict):
        # Scores stay exact: the object detector's and classifier's are compared bit for bit (float32 values, which
        # a double's repr keeps exactly).
        return {k: (v if k == "score" else rounded(v)) for k, v in o.items()}
    if isinstance(o, list):
        return [rounded(v) for v in o]
    return o


def max_diff(a, b):
    """Largest difference between two results of one schema; inf when their structure (counts, names) differs."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return float("inf")
        return max([max_diff(a[k], b[k]) for k in a] or [0.0])
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return float("inf")
        return max([max_diff(x, y) for x, y in zip(a, b)] or [0.0])
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, str) or isinstance(b, str):
        return 0.0 if a == b else float("inf")
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b)
    return 0.0 if a == b else float("inf")


def map_point(x, y, k):
    """Normalized upright point -> the frame of np.rot90(upright, k) (k = 1: counter-clockwise)."""
    return [(x, y), (y, 1 - x), (1 - x, 1 - y), (1 - y, x)][k % 4]


def map_box(b, k, w, h):
    """Pixel box of the w x h upright image -> the frame of np.rot90(upright, k)."""
    x, y, bw, bh = b["originX"], b["originY"], b["width"], b["height"]
    return [(x, y, bw, bh), (y, w - x - bw, bh, bw), (w - x - bw, h - y - bh, bw, bh), (h - y - bh, x, bh, bw)][k % 4]


def instances(task, result):
    """Per instance, the coordinates compared against the upright result: landmarks (normalized) or boxes (pixels)."""
    key = {"pose": "landmarks", "face": "faceLandmarks", "hand": "landmarks", "gesture": "landmarks"}.get(task)
    if key:
        return [np.array([[p["x"], p["y"]] for p in inst]) for inst in result[key]]
    if task == "object":
        return [np.array([[d["boundingBox"][f] for f in ("originX", "originY", "width", "height")]], float)
                for d in result["detections"]]
    return None


def diff_from_upright(task, upright, upright_size, result, k):
    """Max coordinate difference of result from the upright result mapped into the turned frame, matching instances
    (best permutation; for objects, each upright box to its nearest box); None when counts differ or nothing is found."""
    up, got = instances(task, upright), instances(task, result)
    if up is None:
        top = lambda r: [c[0]["index"] for c in r["classifications"]]
        return 0.0 if top(upright) == top(result) else None
    if not got:
        return None
    w, h = upright_size
    if task == "object":
        mapped = [np.array([map_box(dict(zip(("originX", "originY", "width", "height"), b[0])), k, w, h)]) for b in up]
        return float(max(min(np.abs(m - g).max() for g in got) for m in mapped))
    if len(up) != len(got):
        return None
    mapped = [np.array([map_point(x, y, k) for x, y in inst]) for inst in up]
    return float(min(max(np.abs(m - g).max() for m, g in zip(mapped, perm)) for perm in itertools.permutations(got)))


def finite(x):
    return None if x is None or x == float("inf") else float(f"{x:.3g}")


# ---------------------------------------------------------------- fixtures

def write(path, doc):
    """Compact JSON, one result a line."""
    doc = dict(doc)
    results = doc.pop("results")
    head = json.dumps(rounded(doc), separators=(",", ":"))[:-1]
    lines = [json.dumps(rounded(r), separators=(",", ":")) for r in results]
    with open(path, "w") as f:
        f.write(head + ',"results":[\n' + ",\n".join(lines) + "\n]}\n")
    print(f"  {os.path.relpath(path, ROOT)}: {os.path.getsize(path)} bytes", file=sys.stderr)


def header(task, extra):
    return {"task": task, "model": MODELS[task], "runningMode": "IMAGE", "mediapipeVersion": mp.__version__, **extra}


def convention(runner, images, out):
    """Step 1: which rotation_degrees makes the result on np.rot90(upright, k) equal the upright one (mapped)."""
    rows = []
    for task, name in CONVENTION.items():
        pixels, fmt = decode(os.path.join(images, name))
        upright = runner.run(task, image_of(pixels, fmt), 0)
        size = (pixels.shape[1], pixels.shape[0])
        for k in range(4):
            turned = image_of(np.rot90(pixels, k), fmt)
            cells = {}
            for d in (0, 90, 180, 270, -90):
                r = runner.run(task, turned, d)
                got = instances(task, r)
                cells[str(d)] = {"found": len(got) if got is not None else len(r["classifications"][0]),
                                 "maxDiffFromUprightMapped": finite(diff_from_upright(task, upright, size, r, k))}
            rows.append({"task": task, "image": name, "rot90k": k, "byRotationDegrees": cells})
            print(f"  {task:8s} k={k} " + " | ".join(f"d={d}: n={c['found']} diff={c['maxDiffFromUprightMapped']}"
                                                    for d, c in cells.items()), file=sys.stderr)
    doc = {"mediapipeVersion": mp.__version__,
           "what": "for np.rot90(upright, k) (k = 1: counter-clockwise), run with rotation_degrees d: instances found "
                   "and the largest coordinate difference from the upright result mapped into the turned frame "
                   "(landmarks normalized, boxes pixels; classify: 0 when the top categories agree; null: different "
                   "count or none found)", "results": rows}
    write(os.path.join(out, "convention.json"), doc)


def field_diffs(pairs):
    """Per top-level result field, the largest difference over (a, b) result pairs ("structure differs": counts, names
    or order, e.g. two categories of equal score in another order)."""
    out = {}
    for a, b in pairs:
        for key in a:
            out[key] = max(out.get(key, 0.0), max_diff(a[key], b.get(key)))
    return {k: "structure differs" if v == float("inf") else float(f"{v:.3g}") for k, v in out.items()}


def turned(runner, images, out, mp123, models, tasks=None):
    for task, names in TURNED.items():
        if tasks and task not in tasks:
            continue
        results, jobs = [], []
        for name in names:
            path = os.path.join(images, name)
            pixels, fmt = decode(path)
            size = (pixels.shape[1], pixels.shape[0])
            upright = None
            cases = [(k, 90 * k) for k in range(4)] + ([(k, 0) for k in (1, 2, 3)] if task == "pose" else [])
            for k, d in cases:
                job = {"task": task, "kind": "rot", "path": path, "k": k, "d": d}
                r = run_job(runner, job)
                if k == 0:
                    upright = r["result"]
                jobs.append(job)
                results.append({"image": name, "rot90k": k, "rotationDegrees": d, "width": r["width"],
                                "height": r["height"], "timestampMs": None, "result": r["result"],
                                "maxDiffFromUprightMapped": finite(diff_from_upright(task, upright, size, r["result"], k)),
                                "_pixels": r["pixels"], "_size": size, "_upright": upright})
        check = call_worker(mp123, models, jobs)
        pairs, extra = [], []
        for mine, theirs in zip(results, check["results"]):
            assert mine.pop("_pixels") == theirs["pixels"], f"decoders differ on {mine['image']}"
            size, upright = mine.pop("_size"), mine.pop("_upright")
            pairs.append((mine["result"], theirs["result"]))
            if 0.01 < max_diff(mine["result"], theirs["result"]) < float("inf"):
                # A real difference between the versions (face z at 90/270): keep 1.2.3's result beside.
                extra.append({**{k: v for k, v in mine.items() if k not in ("result", "maxDiffFromUprightMapped")},
                              "mediapipeVersion": check["version"], "result": theirs["result"],
                              "maxDiffFromUprightMapped": finite(diff_from_upright(
                                  task, upright, size, theirs["result"], mine["rot90k"]))})
        doc = header(task, {
            "input": "np.rot90(upright, rot90k) of the image decoded as mp.Image.create_from_file (0.10.14, no EXIF) "
                     "gives it (rot90k = 1: counter-clockwise), run with ImageProcessingOptions(rotation_degrees="
                     "rotationDegrees); width/height: the turned buffer's; maxDiffFromUprightMapped: largest coordinate "
                     "difference from the rot90k 0 result mapped into this frame (landmarks normalized, boxes pixels)",
            "crossCheck": {"mediapipeVersion": check["version"], "cases": len(pairs),
                           "maxAbsDiffByField": field_diffs(pairs)},
            "results": results + extra})
        if extra:
            doc["note"] = ("results with their own mediapipeVersion are 1.2.3's where it differs from 0.10.14 by more "
                           "than 0.01")
        if task == "pose":
            doc["note"] = ("MediaPipe's pose graph is wrong for any rotation_degrees != 0 (its PoseDetectorGraph "
                           "un-letterboxes detections without undoing the rotation): the rotationDegrees 90*k results "
                           "are MediaPipe's output, not the truth; rotationDegrees 0 on the turned buffer finds the "
                           "person (the detector and the keypoint-aligned ROI are rotation-tolerant)")
        print(f"  {task}: 1.2.3 vs 0.10.14 {doc['crossCheck']['maxAbsDiffByField']}, {len(extra)} 1.2.3 results kept",
              file=sys.stderr)
        write(os.path.join(out, f"turned_{task}.json"), doc)


def app1_exif_orientation(n):
    payload = (b"Exif\0\0" + b"II\x2a\x00\x08\x00\x00\x00" + b"\x01\x00" + b"\x12\x01" + b"\x03\x00"
               + b"\x01\x00\x00\x00" + struct.pack("<H", n) + b"\0\0" + b"\0\0\0\0")
    return b"\xff\xe1" + struct.pack(">H", 2 + len(payload)) + payload


def has_exif(data):
    i = 2
    while i + 4 <= len(data) and data[i] == 0xFF and data[i + 1] not in (0xD9, 0xDA):
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if data[i + 1] == 0xE1 and data[i + 4:i + 10] == b"Exif\0\0":
            return True
        i += 2 + length
    return False


def exif(runner, images, out, mp123, models, tmp):
    jobs, meta = [], []
    for name, tasks in EXIF.items():
        data = open(os.path.join(images, name), "rb").read()
        assert data[:2] == b"\xff\xd8" and not has_exif(data), f"{name} already has an Exif segment"
        upright, fmt = decode(os.path.join(images, name))
        for n in range(1, 9):
            segment = app1_exif_orientation(n)
            path = os.path.join(tmp, f"{os.path.splitext(name)[0]}_exif{n}.jpg")
            with open(path, "wb") as f:
                f.write(data[:2] + segment + data[2:])
            shown = transform(upright, EXIF_TRANSFORMS[n])
            for task in tasks:
                jobs.append({"task": task, "kind": "file", "path": path})
                # The same pixels run under 0.10.14 as a buffer: does 1.2.3 with EXIF equal 0.10.14 on what it shows?
                meta.append((task, name, n, segment.hex(), digest(shown), runner.run(task, image_of(shown, fmt), 0),
                             runner.run(task, image_of(upright, fmt), 0) if n == 1 else None))
    got = call_worker(mp123, models, jobs)
    by_task = {}
    for (task, name, n, seg, want_pixels, buffer_result, v0_upright), r in zip(meta, got["results"]):
        assert r["pixels"] == want_pixels, f"1.2.3 did not apply EXIF {n} as {EXIF_TRANSFORMS[n]} to {name}"
        entry = by_task.setdefault(task, {"results": [], "vsBuffer": [], "n1": []})
        entry["results"].append({"image": name, "exifOrientation": n, "exifSegmentHex": seg,
                                 "appliedTransform": EXIF_TRANSFORMS[n], "width": r["width"], "height": r["height"],
                                 "timestampMs": None, "result": r["result"]})
        entry["vsBuffer"].append((r["result"], buffer_result))
        if v0_upright is not None:
            entry["n1"].append((r["result"], v0_upright))
    for task, entry in by_task.items():
        doc = header(task, {
            "mediapipeVersion": got["version"],
            "input": "the original JPEG with exifSegmentHex inserted right after SOI (FF D8), read by "
                     "mp.Image.create_from_file, which shows the stored pixels through appliedTransform; width/height: "
                     "the mp.Image's",
            "crossCheck": {"mediapipeVersion": mp.__version__,
                           "exif1VsUprightByField": field_diffs(entry["n1"]),
                           "vsTransformedBufferByField": field_diffs(entry["vsBuffer"])},
            "results": entry["results"]})
        print(f"  {task}: {doc['crossCheck']}", file=sys.stderr)
        write(os.path.join(out, f"exif_{task}.json"), doc)


def clip_command(src, rotate, dst):
    return ["ffmpeg", "-v", "error", "-y", "-i", src, "-c", "copy", "-metadata:s:v:0", f"rotate={rotate}", dst]


def probe(path, entries):
    return subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", entries, "-of", "json",
                           path], capture_output=True, text=True, check=True).stdout


def first_frame(path, w, h):
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24",
                          "-"], capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(h, w, 3)


def video(videos, shared_tool, out, tmp, mp123):
    for task, (clip, model) in CLIPS.items():
        src = os.path.join(videos, clip)
        stream = json.loads(probe(src, "stream=width,height"))["streams"][0]
        w, h = stream["width"], stream["height"]
        upright = first_frame(src, w, h)
        for rotate in ROTATES:
            dst = os.path.join(tmp, f"{os.path.splitext(clip)[0]}_rotate{rotate}.mp4")
            subprocess.run(clip_command(src, rotate, dst), check=True)
            info = json.loads(probe(dst, "stream=width,height:stream_side_data=rotation,displaymatrix"))["streams"][0]
            side = info.get("side_data_list", [{}])[0]
            k = rotate // 90
            shown_w, shown_h = (h, w) if k % 2 else (w, h)
            frame = first_frame(dst, shown_w, shown_h)
            assert np.array_equal(frame, np.rot90(upright, k)), f"{dst}: ffmpeg does not show np.rot90(frame, {k})"
            # Face under 1.2.3: 1.x projects face landmark z with the image's dimensions (a fix our face landmarker
            # follows), so its matrices are the truth; the other tasks agree between versions.
            python = mp123 if task == "face" else sys.executable
            ref = subprocess.run([python, shared_tool, task, os.path.join(ROOT, "Models", model), "--video",
                                  "--num", "2", "--max-frames", str(CLIP_FRAMES), dst],
                                 capture_output=True, text=True, check=True).stdout
            doc = json.loads(ref)
            doc["clip"] = {"source": clip, "rotate": rotate,
                           "command": " ".join(clip_command(f"../shared/videos/{clip}", rotate, os.path.basename(dst))
                                               ).replace(" -y", ""),
                           "ffprobeRotation": side.get("rotation"),
                           "displayMatrix": [[int(v) for v in row.split(":")[1].split()]
                                             for row in side.get("displaymatrix", "").strip().splitlines()],
                           "codedWidth": info["width"], "codedHeight": info["height"],
                           "shownAs": f"np.rot90(coded frame, {k})", "width": shown_w, "height": shown_h}
            results = [{**r, "result": normalized(task, r["result"])} for i, r in enumerate(doc.pop("results"))
                       if i % KEEP_EVERY[task] == 0]
            doc = {**doc, "framesRun": CLIP_FRAMES, "keptEvery": KEEP_EVERY[task], "results": results}
            write(os.path.join(out, f"video_{task}_rot{rotate}.json"), doc)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(ROOT), "shared"))
    ap.add_argument("--mp123", default=os.path.join(ROOT, ".cache", "mediapipe-1.2.3", "bin", "python"))
    ap.add_argument("--out", default=os.path.join(ROOT, "Tests", "Fixtures", "orientation"))
    ap.add_argument("--models", default=os.path.join(ROOT, "Models"))
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--only", nargs="*", default=["convention", "turned", "exif", "video"])
    ap.add_argument("--tasks", nargs="*", default=None, help="turned: only these tasks' files (default: all)")
    a = ap.parse_args()
    if a.worker:
        return worker(a.models)
    # The EXIF and turned files alone may be made under 1.2.3 too (its cross-check then against itself): tools/arm64
    # goldens --all makes those of the quantized models so in the arm64 root, where 0.10.14 has no wheel for the
    # Python there.
    assert mp.__version__ == "0.10.14" or set(a.only) <= {"exif", "turned"}, "run under MediaPipe 0.10.14 (.cache/mediapipe/bin/python)"
    if not os.path.isdir(a.shared):
        a.shared = "/work/shared"
    images, videos = os.path.join(a.shared, "images"), os.path.join(a.shared, "videos")
    os.makedirs(a.out, exist_ok=True)
    runner = Runner(a.models)
    tmp = tempfile.mkdtemp(prefix="orientation-goldens-")
    start = time.time()
    try:
        for step in a.only:
            print(f"{step} ({time.time() - start:.0f} s)", file=sys.stderr)
            if step == "convention":
                convention(runner, images, a.out)
            elif step == "turned":
                turned(runner, images, a.out, a.mp123, a.models, a.tasks)
            elif step == "exif":
                exif(runner, images, a.out, a.mp123, a.models, tmp)
            elif step == "video":
                video(videos, os.path.join(a.shared, "tools", "mediapipe_reference.py"), a.out, tmp, a.mp123)
    finally:
        shutil.rmtree(tmp)
    print(f"done in {time.time() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
