#!/usr/bin/env python3
"""MediaPipe 1.2.3's Holistic Landmarker on the shared photos, a clip and EXIF-tagged files ->
Tests/Fixtures/holistic_reference.json.zip (issue #46; 2.4 MB as text, kept deflated by tools/fixture_zip.py).

    .cache/mediapipe-1.2.3/bin/python tools/mediapipe_holistic_goldens.py [--shared ../shared] \
        [--out Tests/Fixtures/holistic_reference.json.zip] [--frames 60]

About 10 s on two cores; deterministic (two runs give the same JSON).

MediaPipe 1.2.3 only: 0.10.14 aborts the whole process when a hand is missing (its #5181), so it cannot be asked.
Model: ../shared/models/holistic_landmarker.task (Models/ when tools/fetch-models put it there). Options: MediaPipe's
defaults with outputFaceBlendshapes and outputPoseSegmentationMasks on, so every part of the result is on record.
Inputs are rebuilt from ../shared as tools/mediapipe_task_common.py says (photos by create_from_file, EXIF-tagged
JPEGs, ffmpeg frames).

Sets (an entry's "set"):
- "image": IMAGE mode, **one landmarker per photo**: with the mask on, 1.2.3 fails on a second image of another size
  (its mask smoothing keeps the last image's mask; see "sequence"), and its holistic graph carries regions and
  landmarks from one call to the next even in IMAGE mode, so a fresh landmarker is what "this image alone" means.
- "sequence": one landmarker, IMAGE mode, mask on, SEQUENCE's photos one after another, up to the first call MediaPipe
  fails ({"error": ...}; after it, 1.2.3's graph hangs on the next call and on close, so the sequence stops there).
- "video": VIDEO mode, the first FRAMES frames of full_body_juggle.mp4 (timestamps from the frame index and fps), one
  landmarker; a frame MediaPipe fails is recorded as {"error": ...}.
- "exif": EXIF_PHOTO with an APP1 orientation N inserted after SOI (exifSegmentHex); 1.2.3's create_from_file shows
  the pixels turned (appliedTransform), and the result is on the shown image. One landmarker per file.
MediaPipe's holistic task ignores ImageProcessingOptions.rotation_degrees (its graph has no NORM_RECT input), so
turned buffers have no truth of their own: the Swift tests turn a photo and compare with its upright entry, mapped.

Entry: {set, runningMode, image, width, height, timestampMs, pixels (digest), [exifOrientation, exifSegmentHex,
appliedTransform], result | error}. A result, field names as MediaPipe's Python result (camelCase):
  {"poseLandmarks": [33]{x,y,z,visibility,presence}, "poseWorldLandmarks": [33]{x,y,z,visibility,presence},
   "faceLandmarks": [478]{x,y,z}, "faceBlendshapes": [52]{index,score,categoryName},
   "leftHandLandmarks": [21]{x,y,z}, "leftHandWorldLandmarks", "rightHandLandmarks", "rightHandWorldLandmarks",
   "segmentationMask": {width, height, mean, fractionAbove0.5} | null}
An absent part is an empty list (MediaPipe's own answer). Floats are MediaPipe's float32 values written as the
shortest decimal that reads back to the same float32.
"""
import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_zip  # noqa: E402
import mediapipe_task_common as common  # noqa: E402

common.quiet_logs()
import mediapipe as mp  # noqa: E402
from mediapipe.tasks import python as mpt  # noqa: E402
from mediapipe.tasks.python import vision  # noqa: E402

MODEL = "holistic_landmarker.task"
PHOTOS = ["pose1.jpg", "pose2.jpg", "pose3.jpg", "pose4.jpg", "pose5.jpg", "pose7.jpg", "multi1.jpg",
          "face_day13.jpg", "face_iris1.jpg", "face_landmark_ex1.jpg", "face_mesh1.jpg", "face_group.jpg",
          "hand_2hands.png", "hand_f5547.jpg", "hand_standing.png", "hand_two_palms.png",
          "obj_kitchen_people.jpg", "obj_street_people.jpg", "obj_kitchen_empty.jpg", "coral_bird.png"]
CLIP = "full_body_juggle.mp4"
EXIF_PHOTO = "pose1.jpg"
# pose1.jpg is 251 x 201, pose2.jpg 300 x 300 (a second image of another size), pose3.jpg after it.
SEQUENCE = ["pose1.jpg", "pose2.jpg", "pose3.jpg"]
stuck = None
EXIF_ORIENTATIONS = [3, 6, 8]


def f(x):
    return common.f32(x)


def points(landmarks, full):
    out = []
    for p in landmarks or []:
        q = {"x": f(p.x), "y": f(p.y), "z": f(p.z)}
        if full:
            q["visibility"] = f(p.visibility or 0.0)
            q["presence"] = f(p.presence or 0.0)
        out.append(q)
    return out


def to_json(r):
    mask = None
    if r.segmentation_mask is not None:
        m = np.array(r.segmentation_mask.numpy_view(), dtype=np.float32)
        m = m.reshape(m.shape[0], m.shape[1])
        mask = {"width": int(m.shape[1]), "height": int(m.shape[0]), "mean": f(m.mean()),
                "fractionAbove0.5": f((m > 0.5).mean())}
    return {"poseLandmarks": points(r.pose_landmarks, True), "poseWorldLandmarks": points(r.pose_world_landmarks, True),
            "faceLandmarks": points(r.face_landmarks, False),
            "faceBlendshapes": [{"index": c.index, "score": f(c.score), "categoryName": c.category_name}
                                for c in (r.face_blendshapes or [])],
            "leftHandLandmarks": points(r.left_hand_landmarks, False),
            "leftHandWorldLandmarks": points(r.left_hand_world_landmarks, False),
            "rightHandLandmarks": points(r.right_hand_landmarks, False),
            "rightHandWorldLandmarks": points(r.right_hand_world_landmarks, False),
            "segmentationMask": mask}


def landmarker(model, mode):
    return vision.HolisticLandmarker.create_from_options(vision.HolisticLandmarkerOptions(
        base_options=mpt.BaseOptions(model_asset_path=model), running_mode=mode,
        output_face_blendshapes=True, output_pose_segmentation_masks=True))


def error(e):
    return f"{type(e).__name__}: {' '.join(str(e).split())}"


def close(lm):
    try:
        lm.close()
    except Exception:  # noqa: BLE001 (a failed graph re-raises its error on close)
        pass


def run_image(model, image):
    with landmarker(model, vision.RunningMode.IMAGE) as lm:
        return to_json(lm.detect(image))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared")
    ap.add_argument("--out", default=os.path.join(common.ROOT, "Tests", "Fixtures", "holistic_reference.json.zip"),
                    help="NAME.json.zip (deflated, tools/fixture_zip.py) or NAME.json")
    ap.add_argument("--frames", type=int, default=60)
    args = ap.parse_args()
    shared = common.shared_dir(args.shared)
    model = common.model_path(MODEL, shared=shared)
    started = time.time()
    entries = []

    def entry(kind, mode, name, image, ts, body, **extra):
        e = {"set": kind, "runningMode": mode, "image": name, "width": image.width, "height": image.height,
             "timestampMs": ts, "pixels": common.digest(image.numpy_view()), **extra}
        e.update(body)
        entries.append(e)

    for name in PHOTOS:
        image = mp.Image.create_from_file(os.path.join(shared, "images", name))
        try:
            body = {"result": run_image(model, image)}
        except Exception as e:  # noqa: BLE001 (MediaPipe's refusal is part of the record)
            body = {"error": error(e)}
        entry("image", "IMAGE", name, image, None, body)
        common.log("image", name, "error" in body and body["error"] or "ok")

    lm = landmarker(model, vision.RunningMode.VIDEO)
    for name, pixels, ts in common.video_frames(os.path.join(shared, "videos", CLIP), args.frames):
        image = mp.Image(image_format=mp.ImageFormat.SRGB, data=pixels)
        try:
            body = {"result": to_json(lm.detect_for_video(image, ts))}
        except Exception as e:  # noqa: BLE001
            body = {"error": error(e)}
        entry("video", "VIDEO", name, image, ts, body)
    close(lm)
    common.log("video", sum("error" in e for e in entries if e["set"] == "video"), "errors")

    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(shared, "images", EXIF_PHOTO), "rb") as src:
            jpeg = src.read()
        for n in EXIF_ORIENTATIONS:
            tagged = os.path.join(tmp, f"exif{n}_{EXIF_PHOTO}")
            with open(tagged, "wb") as dst:
                dst.write(common.exif_tagged(jpeg, n))
            image = mp.Image.create_from_file(tagged)
            try:
                body = {"result": run_image(model, image)}
            except Exception as e:  # noqa: BLE001
                body = {"error": error(e)}
            entry("exif", "IMAGE", EXIF_PHOTO, image, None, body, exifOrientation=n,
                  exifSegmentHex=common.app1_exif_orientation(n).hex(), appliedTransform=common.EXIF_TRANSFORMS[n])

    # Last: after its failure a 1.2.3 graph hangs on the next call and on close, so this landmarker is left open and
    # the process ends with os._exit once the file is written.
    global stuck
    stuck = landmarker(model, vision.RunningMode.IMAGE)
    for name in SEQUENCE:
        image = mp.Image.create_from_file(os.path.join(shared, "images", name))
        try:
            body = {"result": to_json(stuck.detect(image))}
        except Exception as e:  # noqa: BLE001
            body = {"error": error(e)}
        entry("sequence", "IMAGE", name, image, None, body)
        if "error" in body:
            break

    out = {"task": "holistic", "model": MODEL, "modelSha256": common.sha256_file(model), "mediapipeVersion": mp.__version__,
           "tool": "tools/mediapipe_holistic_goldens.py", "options": {"outputFaceBlendshapes": True,
                                                                      "outputPoseSegmentationMasks": True},
           "clip": CLIP, "entries": entries}
    text = json.dumps(out, separators=(",", ":")) + "\n"
    if args.out.endswith(".zip"):  # past 1 MiB as text: kept deflated
        fixture_zip.write(args.out, text)
    else:
        with open(args.out, "w") as fh:
            fh.write(text)
    common.log(f"wrote {args.out}: {len(entries)} entries, {os.path.getsize(args.out)} bytes, {time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
