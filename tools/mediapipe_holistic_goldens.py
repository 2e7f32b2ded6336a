#!/usr/bin/env python3
"""MediaPipe 1.2.3's Holistic Landmarker on the shared photos, a clip and EXIF-tagged files ->
Tests/Fixtures/holistic_reference.json.zip (issue #46; 2.4 MB as text, kept deflated by tools/fixture_zip.py).

    .cache/mediapipe-1.2.3/bin/python tools/mediapipe_holistic_goldens.py [--shared ../shared] \
        [--out Tests/Fixtures/holistic_reference.json.zip] [--frames 60]

Deterministic (two runs give the same JSON).

MediaPipe 1.2.3 is the truth. MediaPipe 0.10.14 (.cache/mediapipe) is asked too, on the "image" photos: where the two
releases differ, that difference is MediaPipe's own spread (the Developers' guide). 0.10.14's Python API aborts the
whole process when a hand is missing (its #5181) and answers nothing at all when the face is missing, though its graph
answers: so each photo runs in a process of its own (this script under 0.10.14 with `--release-worker PHOTO`), which
reads the graph's output packets and builds the result with 0.10.14's own builder, absent parts empty (see
release_worker). An image entry's "release" is {"mediapipeVersion": "0.10.14", "result", "emptyStreams"} or, should
that process die, {"mediapipeVersion", "aborted": "signal N: its check failure"}. Both releases decode the shared
photos alike (checked by digest) and find the same parts on every photo. About 3 minutes in all.
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
- "spread" (the header's "spread", not an entry): how far MediaPipe's own video-mode results move when one pixel of
  every frame changes by one level (red channel XOR 1, at each of NUDGES, as tools/mediapipe_tracking_spread.py does
  for the pose landmarker): the tracking loop (the next pose region from this frame's smoothed landmarks, the face and
  hand regions kept from the last frame) amplifies last-bit differences, so an implementation whose arithmetic rounds
  differently from XNNPACK cannot agree frame by frame beyond this. Per nudge, per frame, between the nudged run and
  the unmodified one: pose mean |Δx|, |Δy|, mean world distance (m), max |Δvisibility|, |Δpresence|; face mean |Δx|,
  |Δy|, blendshape mean and max |Δscore|; hands (the worse of the two) mean |Δx|, |Δy|, mean world distance; mask
  |Δmean|, |Δfraction above 0.5| (null where a part is in one run only).
- "people": for `numPeople` (ours; MediaPipe's holistic graph follows one person), MediaPipe's Pose Landmarker on
  PEOPLE_PHOTOS with the same lite pose model (pose_landmarker_lite.task), numPoses PEOPLE, IMAGE mode: each person's
  pose as MediaPipe finds it when it looks for several (result: {"poses": [{"poseLandmarks", "poseWorldLandmarks"}]}).
- "exif": EXIF_PHOTO with an APP1 orientation N inserted after SOI (exifSegmentHex); 1.2.3's create_from_file shows
  the pixels turned (appliedTransform), and the result is on the shown image. One landmarker per file.
MediaPipe's holistic task ignores ImageProcessingOptions.rotation_degrees (its graph has no NORM_RECT input), so
turned buffers have no truth of their own: the Swift tests turn a photo and compare with its upright entry, mapped.

Entry: {set, runningMode, image, width, height, timestampMs, pixels (digest), [exifOrientation, exifSegmentHex,
appliedTransform], result | error, [spread]}. An "image" or "exif" entry's "spread" is MediaPipe's own sensitivity on
that image: the worst of each spread measure (below) over IMAGE_NUDGES one-pixel changes (red XOR 1 at places drawn
with a fixed seed), each run by a new landmarker, against the unmodified result. The chain pose -> hand region ->
re-crop model -> hand model amplifies last-bit differences on small hands (pose1.jpg's are ~20 pixels: MediaPipe's
hand world landmarks move by up to 11 mm). A result, field names as MediaPipe's Python result (camelCase):
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
import subprocess
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
# (row, column) of the 1280 x 720 frames: the first four were the first yardstick; one trajectory's distance swings
# widely with where the loop goes, so sixteen more on tools/mediapipe_tracking_spread.py's grid over the juggler
# (GRID, the same clip) measure the spread as a distribution, as that tool does for the pose landmarker.
GRID = [(row, column) for row in (150, 300, 450, 600) for column in (500, 650, 800, 950)]
NUDGES = [(360, 640), (100, 100), (600, 1200), (200, 900)] + GRID
IMAGE_NUDGES = 4
PEOPLE_PHOTOS = ["multi1.jpg", "obj_street_people.jpg", "obj_kitchen_people.jpg"]
PEOPLE = 3
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
    # 0.10.14 names the mask option output_segmentation_mask, 1.x output_pose_segmentation_masks.
    fields = vision.HolisticLandmarkerOptions.__dataclass_fields__
    mask = "output_pose_segmentation_masks" if "output_pose_segmentation_masks" in fields else "output_segmentation_mask"
    return vision.HolisticLandmarker.create_from_options(vision.HolisticLandmarkerOptions(
        base_options=mpt.BaseOptions(model_asset_path=model), running_mode=mode,
        output_face_blendshapes=True, **{mask: True}))


def release_worker(model, path):
    """Under 0.10.14: one photo, one landmarker; {"pixels", "result", "emptyStreams"} on stdout.

    0.10.14's HolisticLandmarker.detect returns an all-empty result when the graph finds no face, and aborts the
    process (packet.cc "The packet is empty") when it finds no hand: the graph answers, its Python result builder
    does not. So this reads the graph's output packets as detect does and hands them to 0.10.14's own
    _build_landmarker_result with each empty landmark packet replaced by an empty list (an absent part is an empty
    list, as 1.2.3 answers) and an empty blendshape or mask packet left out; the streams that were empty are listed."""
    from mediapipe.framework.formats import classification_pb2, landmark_pb2
    from mediapipe.python import packet_creator
    from mediapipe.tasks.python.vision import holistic_landmarker as hl

    image = mp.Image.create_from_file(path)
    lists = {hl._POSE_WORLD_LANDMARKS_STREAM_NAME: landmark_pb2.LandmarkList,
             hl._LEFT_HAND_WORLD_LANDMARKS_STREAM_NAME: landmark_pb2.LandmarkList,
             hl._RIGHT_HAND_WORLD_LANDMARKS_STREAM_NAME: landmark_pb2.LandmarkList}
    for name in (hl._POSE_LANDMARKS_STREAM_NAME, hl._FACE_LANDMARKS_STREAM_NAME, hl._LEFT_HAND_LANDMARKS_STREAM_NAME,
                 hl._RIGHT_HAND_LANDMARKS_STREAM_NAME):
        lists[name] = landmark_pb2.NormalizedLandmarkList
    with landmarker(model, vision.RunningMode.IMAGE) as lm:
        packets = dict(lm._process_image_data({hl._IMAGE_IN_STREAM_NAME: packet_creator.create_image(image)}))
        empty = sorted(name for name, packet in packets.items() if packet.is_empty())
        for name in empty:
            if name in lists:
                packets[name] = packet_creator.create_proto(lists[name]())
            else:
                del packets[name]
        result = to_json(hl._build_landmarker_result(packets))
    assert classification_pb2  # the blendshapes' type, imported so the builder's MergeFrom finds it registered
    out = {"mediapipeVersion": mp.__version__, "pixels": common.digest(image.numpy_view()), "result": result,
           "emptyStreams": empty}
    sys.stdout.write(json.dumps(out))


def release_answer(model, path, pixels):
    """0.10.14's answer on one photo, in a process of its own (it aborts when a hand is missing)."""
    proc = subprocess.run([common.MP01014, os.path.abspath(__file__), "--release-worker", path, "--model", model],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        last = [line for line in lines if "Check failed" in line or "Error" in line][-1:] or lines[-1:] or [""]
        how = f"signal {-proc.returncode}" if proc.returncode < 0 else f"exit {proc.returncode}"
        return {"mediapipeVersion": "0.10.14", "aborted": f"{how}: {' '.join(last[0].split())[:300]}"}
    answer = json.loads(proc.stdout)
    if answer["pixels"] != pixels:
        raise SystemExit(f"{path}: 0.10.14 decoded other pixels than 1.2.3")
    return {"mediapipeVersion": answer["mediapipeVersion"], "result": answer["result"], "emptyStreams": answer["emptyStreams"]}


def error(e):
    return f"{type(e).__name__}: {' '.join(str(e).split())}"


def mean_xy(a, b):
    return max(float(np.mean([abs(p["x"] - q["x"]) for p, q in zip(a, b)])),
               float(np.mean([abs(p["y"] - q["y"]) for p, q in zip(a, b)])))


def differences(a, b):
    """The spread measures between two results of the same frame (see "spread")."""
    def world(p, q):
        return float(np.mean([np.sqrt((u["x"] - v["x"]) ** 2 + (u["y"] - v["y"]) ** 2 + (u["z"] - v["z"]) ** 2) for u, v in zip(p, q)]))

    def both(key):
        return bool(a[key]) and bool(b[key]) and len(a[key]) == len(b[key])

    out = {}
    if both("poseLandmarks"):
        pa, pb = a["poseLandmarks"], b["poseLandmarks"]
        out["poseX"] = float(np.mean([abs(p["x"] - q["x"]) for p, q in zip(pa, pb)]))
        out["poseY"] = float(np.mean([abs(p["y"] - q["y"]) for p, q in zip(pa, pb)]))
        out["poseWorld"] = world(a["poseWorldLandmarks"], b["poseWorldLandmarks"])
        out["visibility"] = max(abs(p["visibility"] - q["visibility"]) for p, q in zip(pa, pb))
        out["presence"] = max(abs(p["presence"] - q["presence"]) for p, q in zip(pa, pb))
    if both("faceLandmarks"):
        fa, fb = a["faceLandmarks"], b["faceLandmarks"]
        out["faceX"] = float(np.mean([abs(p["x"] - q["x"]) for p, q in zip(fa, fb)]))
        out["faceY"] = float(np.mean([abs(p["y"] - q["y"]) for p, q in zip(fa, fb)]))
    if both("faceBlendshapes"):
        d = [abs(p["score"] - q["score"]) for p, q in zip(a["faceBlendshapes"], b["faceBlendshapes"])]
        out["blendshapeMean"], out["blendshapeMax"] = float(np.mean(d)), max(d)
    for side in ("left", "right"):
        key = side + "HandLandmarks"
        if both(key):
            ha, hb = a[key], b[key]
            out["handX"] = max(out.get("handX", 0), float(np.mean([abs(p["x"] - q["x"]) for p, q in zip(ha, hb)])))
            out["handY"] = max(out.get("handY", 0), float(np.mean([abs(p["y"] - q["y"]) for p, q in zip(ha, hb)])))
            out["handWorld"] = max(out.get("handWorld", 0), world(a[side + "HandWorldLandmarks"], b[side + "HandWorldLandmarks"]))
    if a["segmentationMask"] and b["segmentationMask"]:
        out["maskMean"] = abs(a["segmentationMask"]["mean"] - b["segmentationMask"]["mean"])
        out["maskFraction"] = abs(a["segmentationMask"]["fractionAbove0.5"] - b["segmentationMask"]["fractionAbove0.5"])
    return {k: float(f"{v:.6g}") for k, v in out.items()}


def close(lm):
    try:
        lm.close()
    except Exception:  # noqa: BLE001 (a failed graph re-raises its error on close)
        pass


def image_spread(model, image, result, seed):
    """The worst of each spread measure over IMAGE_NUDGES one-pixel changes (red XOR 1 at pseudo-random places, fixed
    by `seed`), each a new landmarker, against `result` (the unmodified image's)."""
    pixels = np.array(image.numpy_view())
    h, w = pixels.shape[:2]
    rng = np.random.default_rng(seed)
    worst = {}
    for _ in range(IMAGE_NUDGES):
        nudged = pixels.copy()
        y, x = int(rng.integers(h)), int(rng.integers(w))
        nudged[y, x, 0] ^= 1
        other = run_image(model, mp.Image(image_format=image.image_format, data=np.ascontiguousarray(nudged)))
        for k, v in differences(result, other).items():
            worst[k] = max(worst.get(k, 0.0), v)
    return worst


def run_clip(model, clip_frames, nudge):
    lm = landmarker(model, vision.RunningMode.VIDEO)
    out = []
    for name, pixels, ts in clip_frames:
        if nudge:
            pixels = pixels.copy()
            pixels[nudge[0], nudge[1], 0] ^= 1
        image = mp.Image(image_format=mp.ImageFormat.SRGB, data=np.ascontiguousarray(pixels))
        try:
            out.append((name, image, ts, {"result": to_json(lm.detect_for_video(image, ts))}))
        except Exception as e:  # noqa: BLE001
            out.append((name, image, ts, {"error": error(e)}))
    close(lm)
    return out


def clip_spread(model, clip_frames, unmodified):
    spread = []
    for nudge in NUDGES:
        nudged = run_clip(model, clip_frames, nudge)
        spread.append({"pixel": list(nudge), "frames": [
            differences(a[3]["result"], b[3]["result"]) if "result" in a[3] and "result" in b[3] else {}
            for a, b in zip(unmodified, nudged)]})
        common.log("spread", nudge)
    return spread


def remake_spread(args, shared, model, started):
    """--spread-only: the header's spread under NUDGES, the rest of --out kept as it is."""
    existing = json.loads(fixture_zip.read(args.out))
    if existing["mediapipeVersion"] != mp.__version__ or existing["modelSha256"] != common.sha256_file(model):
        sys.exit(f"{args.out} was made by MediaPipe {existing['mediapipeVersion']} on another model: remake it whole")
    recorded = [e for e in existing["entries"] if e["set"] == "video"]
    clip_frames = list(common.video_frames(os.path.join(shared, "videos", CLIP), len(recorded)))
    unmodified = run_clip(model, clip_frames, None)
    for (name, image, ts, body), e in zip(unmodified, recorded):
        if (name, ts, common.digest(image.numpy_view())) != (e["image"], e["timestampMs"], e["pixels"]) \
                or body.get("result") != e.get("result"):
            sys.exit(f"{name}: the unmodified run differs from {args.out}'s video entry: remake it whole")
    existing["spread"] = clip_spread(model, clip_frames, unmodified)
    write(args.out, existing)
    common.log(f"wrote {args.out}: spread under {len(NUDGES)} nudges, {time.time() - started:.0f} s")


def write(path, out):
    text = json.dumps(out, separators=(",", ":")) + "\n"
    if path.endswith(".zip"):  # past 1 MiB as text: kept deflated
        fixture_zip.write(path, text)
    else:
        with open(path, "w") as fh:
            fh.write(text)


def run_image(model, image):
    with landmarker(model, vision.RunningMode.IMAGE) as lm:
        return to_json(lm.detect(image))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared")
    ap.add_argument("--out", default=os.path.join(common.ROOT, "Tests", "Fixtures", "holistic_reference.json.zip"),
                    help="NAME.json.zip (deflated, tools/fixture_zip.py) or NAME.json")
    ap.add_argument("--frames", type=int, default=60)
    ap.add_argument("--spread-only", action="store_true",
                    help="remake only the header's spread in --out: the clip's unmodified run must give the file's "
                         "video entries to the bit, and nothing else in the file changes")
    ap.add_argument("--release-worker", metavar="PHOTO", help=argparse.SUPPRESS)
    ap.add_argument("--model", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.release_worker:
        release_worker(args.model, args.release_worker)
        return
    shared = common.shared_dir(args.shared)
    model = common.model_path(MODEL, shared=shared)
    started = time.time()
    if args.spread_only:
        remake_spread(args, shared, model, started)
        return
    entries = []

    def entry(kind, mode, name, image, ts, body, **extra):
        e = {"set": kind, "runningMode": mode, "image": name, "width": image.width, "height": image.height,
             "timestampMs": ts, "pixels": common.digest(image.numpy_view()), **extra}
        e.update(body)
        entries.append(e)

    for index, name in enumerate(PHOTOS):
        image = mp.Image.create_from_file(os.path.join(shared, "images", name))
        try:
            body = {"result": run_image(model, image)}
            body["spread"] = image_spread(model, image, body["result"], seed=index)
        except Exception as e:  # noqa: BLE001 (MediaPipe's refusal is part of the record)
            body = {"error": error(e)}
        body["release"] = release_answer(model, os.path.join(shared, "images", name), common.digest(image.numpy_view()))
        entry("image", "IMAGE", name, image, None, body)
        common.log("image", name, "error" in body and body["error"] or "ok",
                   "0.10.14:", body["release"].get("aborted", "ok"))

    clip_frames = list(common.video_frames(os.path.join(shared, "videos", CLIP), args.frames))
    unmodified = run_clip(model, clip_frames, None)
    for name, image, ts, body in unmodified:
        entry("video", "VIDEO", name, image, ts, body)
    common.log("video", sum("error" in e for e in entries if e["set"] == "video"), "errors")
    spread = clip_spread(model, clip_frames, unmodified)

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
                body["spread"] = image_spread(model, image, body["result"], seed=100 + n)
            except Exception as e:  # noqa: BLE001
                body = {"error": error(e)}
            entry("exif", "IMAGE", EXIF_PHOTO, image, None, body, exifOrientation=n,
                  exifSegmentHex=common.app1_exif_orientation(n).hex(), appliedTransform=common.EXIF_TRANSFORMS[n])

    pose_model = common.model_path("pose_landmarker_lite.task", shared=shared)
    for name in PEOPLE_PHOTOS:
        image = mp.Image.create_from_file(os.path.join(shared, "images", name))
        with vision.PoseLandmarker.create_from_options(vision.PoseLandmarkerOptions(
                base_options=mpt.BaseOptions(model_asset_path=pose_model), num_poses=PEOPLE)) as lm:
            r = lm.detect(image)
            body = {"result": {"poses": [{"poseLandmarks": points(p, True), "poseWorldLandmarks": points(w, True)}
                                         for p, w in zip(r.pose_landmarks, r.pose_world_landmarks)]}}
        entry("people", "IMAGE", name, image, None, body, numPoses=PEOPLE, model="pose_landmarker_lite.task")

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
           "clip": CLIP, "spread": spread, "entries": entries}
    write(args.out, out)
    common.log(f"wrote {args.out}: {len(entries)} entries, {os.path.getsize(args.out)} bytes, {time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
