#!/usr/bin/env python3
"""How far MediaPipe 0.10.14's gesture recognizer moves on its own video clip when one pixel of each frame changes by
one level — the hand counterpart of tools/mediapipe_tracking_spread.py.

In video mode each frame's hand region comes from the previous frame's landmarks, and that loop amplifies differences
in the last bits: two implementations whose arithmetic differs at float rounding cannot agree frame by frame beyond
this spread. It is the yardstick for our distance to MediaPipe on gesture_video.json / gesture_video_single.json.

    .cache/mediapipe/bin/python tools/mediapipe_gesture_tracking_spread.py [SHARED_DIR] > Tests/Fixtures/gesture_tracking_spread.json

For each nudge (one pixel's red channel XOR 1 in every frame) and each frame where both runs find one hand: the mean
over the 21 landmarks of |Δx|, |Δy| and of the world-landmark distance (metres), |Δ| of the handedness and gesture
scores, and whether the top gesture's name differs; frames where the hand counts differ are counted.
"""
import json
import os
import sys

import numpy as np
import mediapipe as mp
from mediapipe.tasks import python as mpt
from mediapipe.tasks.python import vision

import clip_frames

NUDGES = [(360, 640), (100, 100), (600, 1200), (200, 900), (50, 50), (700, 20), (10, 1270), (400, 300),
          (500, 1000), (250, 640), (650, 700), (120, 400)]  # (row, column)


def main():
    shared = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "shared")
    clip = os.path.join(shared, "videos", "hand_gesture_fist_thumbsup.mp4")
    model = os.path.join(shared, "models", "gesture_recognizer.task")
    frames, fps = clip_frames.decode(clip)

    def run(nudge):
        recognizer = vision.GestureRecognizer.create_from_options(vision.GestureRecognizerOptions(
            base_options=mpt.BaseOptions(model_asset_path=model), running_mode=vision.RunningMode.VIDEO, num_hands=1))
        out = []
        for i, frame in enumerate(frames):
            if nudge:
                frame = frame.copy()
                frame[nudge[0], nudge[1], 0] ^= 1
            out.append(recognizer.recognize_for_video(mp.Image(image_format=mp.ImageFormat.SRGB, data=frame),
                                                      round(i * 1000 / fps)))
        recognizer.close()
        return out

    base = run(None)
    runs = []
    for nudge in NUDGES:
        other = run(nudge)
        frames_out, count_differs = [], 0
        for a, b in zip(base, other):
            if len(a.hand_landmarks) != len(b.hand_landmarks):
                count_differs += 1
                continue
            if not a.hand_landmarks:
                continue
            la, lb, wa, wb = a.hand_landmarks[0], b.hand_landmarks[0], a.hand_world_landmarks[0], b.hand_world_landmarks[0]
            frames_out.append({
                "x": float(np.mean([abs(p.x - q.x) for p, q in zip(la, lb)])),
                "y": float(np.mean([abs(p.y - q.y) for p, q in zip(la, lb)])),
                "world": float(np.mean([np.linalg.norm([p.x - q.x, p.y - q.y, p.z - q.z]) for p, q in zip(wa, wb)])),
                "handedness": float(abs(a.handedness[0][0].score - b.handedness[0][0].score)),
                "gesture": float(abs(a.gestures[0][0].score - b.gestures[0][0].score)),
                "gestureNameDiffers": a.gestures[0][0].category_name != b.gestures[0][0].category_name,
            })
        runs.append({"pixel": list(nudge), "handCountDiffers": count_differs, "frames": frames_out})
    json.dump({"mediapipeVersion": mp.__version__, "clip": "hand_gesture_fist_thumbsup.mp4", "model": "gesture_recognizer.task",
               "numHands": 1, "nudges": runs}, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
