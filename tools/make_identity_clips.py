#!/usr/bin/env python3
"""Clips of two people whose identities are known by construction, for the landmarkers' identity test
(Tests/TasksTests/IdentityClipTests.swift), made from ../shared/videos:

- `cutout.mp4`: full_body_juggle.mp4 (a man juggling on the spot) with, in front of him, the same clip mirrored and
  2 s later, cut out along MediaPipe's own segmentation mask of that frame and slid across the frame and back (about
  300 pixels a second, a walk at this scale): two look-alike men who cross three times, the front one hiding the
  other as a real person would.
- `window.mp4`: full_body_juggle.mp4 with an opaque window of outdoor_person_dog_sam2.mp4 (a woman playing with a
  dog) sliding across and back twice: the woman passes in front of the man and hides most of him.
- `mirrored.mp4`: full_body_juggle.mp4 at half size beside its mirror image 3 s later: two men juggling side by
  side, close to the seam at times.
- `faces.mp4`, `hands.mp4`: face_head_turning.mp4 and hand_gesture_fist_thumbsup.mp4 the same way (half size, beside
  their mirror images 1 s later): two faces turning, two hands closing and opening, each in its own half. Their
  truth is the construction alone: NAME.json gives each half as a region (an instance is the one whose half holds
  its landmarks' centre).

The truth comes from outside, as the house rules ask: MediaPipe 0.10.14's pose landmarker (VIDEO mode, numPoses 1,
the lite model) run on each source clip alone, its landmarks carried through the construction (crop, offset,
half size, mirror with left and right swapped) into the clip's pixels. NAME.json holds, per person and frame, the
33 landmarks in pixels (null where MediaPipe found no one), beside NAME.mp4. The clips are git-ignored
(.cache/identity-clips by default); the test makes them with this script when they are missing.

Run under the MediaPipe venv (tools/setup): .cache/mediapipe/bin/python tools/make_identity_clips.py [--out DIR]
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from clip_frames import decode  # noqa: E402

FPS = 24
# BlazePose's left/right landmark pairs: a mirrored person's left is where the right was.
MIRROR_PAIRS = [(1, 4), (2, 5), (3, 6), (7, 8), (9, 10), (11, 12), (13, 14), (15, 16), (17, 18), (19, 20), (21, 22),
                (23, 24), (25, 26), (27, 28), (29, 30), (31, 32)]
# cutout.mp4: the mirrored man runs this many frames ahead, and slides in a triangle wave from x CUTOUT_FROM to
# CUTOUT_FROM + CUTOUT_TRAVEL (pixels) and back every CUTOUT_PERIOD frames.
CUTOUT_SHIFT = 2 * FPS
CUTOUT_FROM = -390
CUTOUT_TRAVEL = 980
CUTOUT_PERIOD = 160
# window.mp4: a crop of the woman, slid in a triangle wave from x 0 to TRAVEL and back every PERIOD frames.
WINDOW = dict(x=180, y=150, width=320, height=450)
WINDOW_Y = 200
TRAVEL = 960
PERIOD = 192
# mirrored.mp4: the mirrored half runs this many frames ahead.
MIRROR_SHIFT = 3 * FPS


def mediapipe_poses(model, frames, fps):
    """MediaPipe's single pose per frame (33 normalized (x, y), or None) and its segmentation mask."""
    import mediapipe as mp
    from mediapipe.tasks import python as mpt
    from mediapipe.tasks.python import vision
    options = vision.PoseLandmarkerOptions(base_options=mpt.BaseOptions(model_asset_path=model),
                                           running_mode=vision.RunningMode.VIDEO, num_poses=1,
                                           output_segmentation_masks=True)
    poses, masks = [], []
    with vision.PoseLandmarker.create_from_options(options) as landmarker:
        for i, frame in enumerate(frames):
            image = mp.Image(image_format=mp.ImageFormat.SRGB, data=np.ascontiguousarray(frame))
            result = landmarker.detect_for_video(image, round(i * 1000 / fps))
            if result.pose_landmarks:
                poses.append([(p.x, p.y) for p in result.pose_landmarks[0]])
                masks.append(result.segmentation_masks[0].numpy_view().copy())
            else:
                poses.append(None)
                masks.append(np.zeros(frame.shape[:2], np.float32))
    return poses, masks


def place(pose, width, height, scale=1.0, dx=0.0, dy=0.0, mirror=False):
    """A normalized pose of a width × height source in the clip's pixels: scaled, mirrored (sides swapped), moved."""
    if pose is None:
        return None
    points = [((1 - x) if mirror else x, y) for x, y in pose]
    if mirror:
        for a, b in MIRROR_PAIRS:
            points[a], points[b] = points[b], points[a]
    return [[x * width * scale + dx, y * height * scale + dy] for x, y in points]


def half(frame):
    """Half size by 2 × 2 means (exact, no resampling filter to describe)."""
    h, w = frame.shape[0] // 2 * 2, frame.shape[1] // 2 * 2
    f = frame[:h, :w].astype(np.uint16)
    return ((f[0::2, 0::2] + f[1::2, 0::2] + f[0::2, 1::2] + f[1::2, 1::2] + 2) // 4).astype(np.uint8)


def triangle(frame, period, travel):
    phase = (frame % period) / (period / 2)
    return int(travel * (1 - abs(phase - 1)))


def shifted(image, dx):
    """`image` moved right by dx pixels (left for negative), zeros where nothing comes in."""
    out = np.zeros_like(image)
    width = image.shape[1]
    if dx >= 0:
        out[:, dx:] = image[:, :width - dx]
    else:
        out[:, :width + dx] = image[:, -dx:]
    return out


def window_x(frame):
    return triangle(frame, PERIOD, TRAVEL)


def write(out, name, frames, people, fps=FPS, regions=None):
    height, width = frames[0].shape[:2]
    # One thread and fixed settings: the same ffmpeg makes the same bytes.
    encoder = subprocess.Popen(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24",
                                "-s", f"{width}x{height}", "-r", str(fps), "-i", "-", "-c:v", "libx264", "-preset",
                                "medium", "-crf", "16", "-pix_fmt", "yuv420p", "-threads", "1",
                                os.path.join(out, name + ".mp4")], stdin=subprocess.PIPE)
    for frame in frames:
        encoder.stdin.write(np.ascontiguousarray(frame).tobytes())
    encoder.stdin.close()
    if encoder.wait() != 0:
        raise SystemExit(f"ffmpeg failed on {name}")
    if regions is not None:
        truth = {"clip": name + ".mp4", "width": width, "height": height, "frames": len(frames), "fps": fps,
                 "truth": "the construction: each instance's half of the frame",
                 "people": [{"name": n, "region": r} for n, r in regions]}
    else:
        truth = {"clip": name + ".mp4", "width": width, "height": height, "frames": len(frames), "fps": fps,
                 "truth": "MediaPipe 0.10.14 pose landmarker (lite, VIDEO, numPoses 1) on each source clip alone",
                 "people": [{"name": n, "landmarks": [None if p is None else [[round(v, 2) for v in q] for q in p] for p in poses]}
                            for n, poses in people]}
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(truth, f)
    print(f"wrote {name}.mp4 ({len(frames)} frames) and {name}.json", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(ROOT, ".cache", "identity-clips"))
    parser.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    model = os.path.join(args.shared, "models", "pose_landmarker_lite.task")
    juggle, juggle_fps = decode(os.path.join(args.shared, "videos", "full_body_juggle.mp4"))
    outdoor, outdoor_fps = decode(os.path.join(args.shared, "videos", "outdoor_person_dog_sam2.mp4"))
    assert round(juggle_fps) == FPS
    jh, jw = juggle.shape[1:3]
    oh, ow = outdoor.shape[1:3]
    man, masks = mediapipe_poses(model, juggle, juggle_fps)
    woman, _ = mediapipe_poses(model, outdoor, outdoor_fps)

    # cutout.mp4
    frames, back, front = [], [], []
    for i in range(len(juggle) - CUTOUT_SHIFT):
        j = i + CUTOUT_SHIFT
        dx = CUTOUT_FROM + triangle(i, CUTOUT_PERIOD, CUTOUT_TRAVEL)
        alpha = shifted(np.clip(masks[j][:, ::-1], 0, 1), dx)[..., None]
        frames.append((shifted(juggle[j][:, ::-1], dx) * alpha + juggle[i] * (1 - alpha) + 0.5).astype(np.uint8))
        back.append(place(man[i], jw, jh))
        front.append(place(man[j], jw, jh, dx=dx, mirror=True))
    write(args.out, "cutout", frames, [("man (behind)", back), ("mirrored man (in front)", front)])

    # window.mp4: the woman's frame is the one on screen at the man's frame's time.
    frames, back, front = [], [], []
    w = WINDOW
    for i in range(len(juggle)):
        j = min(int(i / FPS * outdoor_fps + 1e-6), len(outdoor) - 1)
        x = window_x(i)
        frame = juggle[i].copy()
        frame[WINDOW_Y:WINDOW_Y + w["height"], x:x + w["width"]] = outdoor[j][w["y"]:w["y"] + w["height"], w["x"]:w["x"] + w["width"]]
        frames.append(frame)
        back.append(place(man[i], jw, jh))
        front.append(place(woman[j], ow, oh, dx=x - w["x"], dy=WINDOW_Y - w["y"]))
    write(args.out, "window", frames, [("man (behind)", back), ("woman (window)", front)])

    # mirrored.mp4
    frames, left, right = [], [], []
    for i in range(len(juggle) - MIRROR_SHIFT):
        j = i + MIRROR_SHIFT
        frames.append(np.concatenate([half(juggle[i]), half(juggle[j][:, ::-1])], axis=1))
        left.append(place(man[i], jw, jh, scale=0.5))
        right.append(place(man[j], jw, jh, scale=0.5, dx=jw // 2, mirror=True))
    write(args.out, "mirrored", frames, [("left", left), ("right (mirror)", right)])

    # faces.mp4, hands.mp4: each source beside its mirror image 1 s later.
    for name, source in [("faces", "face_head_turning.mp4"), ("hands", "hand_gesture_fist_thumbsup.mp4")]:
        clip, fps = decode(os.path.join(args.shared, "videos", source))
        shift = round(fps)
        frames = [np.concatenate([half(clip[i]), half(clip[i + shift][:, ::-1])], axis=1) for i in range(len(clip) - shift)]
        h, w = frames[0].shape[:2]
        write(args.out, name, frames, None, fps=fps,
              regions=[("left", [0, 0, w // 2, h]), ("right (mirror)", [w // 2, 0, w - w // 2, h])])


if __name__ == "__main__":
    main()
