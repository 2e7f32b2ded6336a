#!/usr/bin/env python3
"""How far MediaPipe 0.10.14's single-pose video tracking moves when one pixel of each frame changes by one level.

With numPoses 1 the landmark model's region for each frame comes from the previous frame's landmarks, and that loop
amplifies differences in the last bits (a heatmap window that moves by one cell moves the next region, and so on):
two implementations whose arithmetic differs at float rounding cannot agree frame by frame beyond this spread.
This measures it on MediaPipe itself, the yardstick for our own distance to MediaPipe on pose_video_single.json.

    .cache/mediapipe/bin/python tools/mediapipe_tracking_spread.py [SHARED_DIR] > Tests/Fixtures/pose_tracking_spread.json

For each nudge (one pixel's red channel XOR 1 in every frame), per frame: the mean over the 33 landmarks of |Δx|,
|Δy| and of the world-landmark distance (metres), and the largest |Δvisibility| and |Δpresence|, between the nudged
run and the unmodified one, on the clip's first 90 frames (the frames of pose_video_single.json).

Four nudges were the first yardstick; a single trajectory's distance to MediaPipe swings widely with where the loop
happens to go (ours, nudged as MediaPipe is here, moves the worst frame's y error between 0.0036 and 0.0070), so
sixteen more on a grid over the person (GRID) measure the spread as a distribution.

    .cache/mediapipe-1.2.3/bin/python tools/mediapipe_tracking_spread.py [SHARED_DIR] --against REFERENCE \
        > Tests/Fixtures/pose_tracking_spread_1.2.3.json

With --against, the yardstick of our own kind: another MediaPipe release (1.2.3, whose XNNPACK rounds otherwise, as
our kernels do) against REFERENCE (0.10.14's pose_video_single.json), unnudged and under each GRID nudge — MediaPipe's
own spread between its releases (the guide's yardstick), as a distribution of trajectories.
"""
import json
import os
import sys

import numpy as np
import mediapipe as mp
from mediapipe.tasks import python as mpt
from mediapipe.tasks.python import vision

import clip_frames

FRAMES = 90
# (row, column). The grid spans the juggler's landmarks over the clip (x 0.48–0.69, y 0.15–0.96 of 1280 × 720).
GRID = [(row, column) for row in (150, 300, 450, 600) for column in (500, 650, 800, 950)]
NUDGES = [(360, 640), (100, 100), (600, 1200), (200, 900)] + GRID


def main():
    arguments = sys.argv[1:]
    against = None
    if "--against" in arguments:
        at = arguments.index("--against")
        against = arguments[at + 1]
        del arguments[at:at + 2]
    shared = arguments[0] if arguments else os.path.join(os.path.dirname(__file__), "..", "..", "shared")
    clip = os.path.join(shared, "videos", "full_body_juggle.mp4")
    model = os.path.join(shared, "models", "pose_landmarker_lite.task")
    frames, fps = clip_frames.decode(clip, FRAMES)

    def run(nudge):
        landmarker = vision.PoseLandmarker.create_from_options(vision.PoseLandmarkerOptions(
            base_options=mpt.BaseOptions(model_asset_path=model), running_mode=vision.RunningMode.VIDEO, num_poses=1))
        out = []
        for i, frame in enumerate(frames):
            if nudge:
                frame = frame.copy()
                frame[nudge[0], nudge[1], 0] ^= 1
            result = landmarker.detect_for_video(mp.Image(image_format=mp.ImageFormat.SRGB, data=frame),
                                                 round(i * 1000 / fps))
            out.append((result.pose_landmarks[0], result.pose_world_landmarks[0]))
        landmarker.close()
        return out

    if against:
        with open(against) as f:
            reference = json.load(f)
        base = [(points(r["result"]["landmarks"][0]), points(r["result"]["worldLandmarks"][0])) for r in reference["results"]]
        nudges = [None] + GRID
    else:
        base = run(None)
        nudges = NUDGES
    runs = []
    for nudge in nudges:
        other = run(nudge)
        frames_out = []
        for (a, aw), (b, bw) in zip(base, other):
            frames_out.append({
                "x": float(np.mean([abs(p.x - q.x) for p, q in zip(a, b)])),
                "y": float(np.mean([abs(p.y - q.y) for p, q in zip(a, b)])),
                "world": float(np.mean([np.linalg.norm([p.x - q.x, p.y - q.y, p.z - q.z]) for p, q in zip(aw, bw)])),
                "visibility": float(max(abs(p.visibility - q.visibility) for p, q in zip(a, b))),
                "presence": float(max(abs(p.presence - q.presence) for p, q in zip(a, b))),
            })
        runs.append({"pixel": list(nudge or []), "frames": frames_out})
    out = {"mediapipeVersion": mp.__version__, "clip": "full_body_juggle.mp4", "model": "pose_landmarker_lite.task", "numPoses": 1}
    if against:
        out["against"] = reference["mediapipeVersion"]
    out["nudges"] = runs
    json.dump(out, sys.stdout, indent=1)


class Point:
    """A reference file's landmark, with the attributes MediaPipe's landmarks have."""
    def __init__(self, d):
        self.x, self.y, self.z = d["x"], d["y"], d["z"]
        self.visibility, self.presence = d.get("visibility") or 0.0, d.get("presence") or 0.0


def points(landmarks):
    return [Point(d) for d in landmarks]


if __name__ == "__main__":
    main()
