#!/usr/bin/env python3
"""Face transformation matrices of MediaPipe 1.2.3 on the shared face clip, for Tests/Fixtures/face_video_matrices_1.2.3.json.

MediaPipe 1.x wires the image's dimensions into the face landmarks graph's LandmarkProjectionCalculator (May 2024:
"Bugfix to correctly handle landmark projection in the non-square case"): landmark z is scaled by the region's width
projected onto the image, not by its width alone, so z, and the transformation matrix fitted to it, differ from
0.10.14's for a turned face region in a non-square frame (up to 1 cm of translation on face_head_turning.mp4; x and y
agree within 3e-4). Our face landmarker follows 1.x; this keeps only the matrices of 1.2.3's run (the landmarks and
blendshapes stay 0.10.14's, `../shared/reference/face_video*.json`), so the fixture stays small.

    .cache/mediapipe-1.2.3/bin/python tools/mediapipe_face_matrices_123.py [--shared ../shared]
"""
import argparse
import json
import os
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("--shared", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared"))
ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "Tests", "Fixtures", "face_video_matrices_1.2.3.json"))
a = ap.parse_args()
tool = os.path.join(a.shared, "tools", "mediapipe_reference.py")
clip = os.path.join(a.shared, "videos", "face_head_turning.mp4")
model = os.path.join(os.path.dirname(__file__), "..", "Models", "face_landmarker.task")
out = {"mediapipeVersion": None, "clip": "face_head_turning.mp4",
       "what": "facialTransformationMatrixes per frame (4x4 row-major rows), VIDEO mode, options as the shared face_video*.json",
       "references": {}}
for name, num in (("face_video.json", 2), ("face_video_single.json", 1)):
    run = subprocess.run([sys.executable, tool, "face", model, clip, "--video", "--num", str(num)],
                         capture_output=True, text=True, check=True)
    doc = json.loads(run.stdout)
    out["mediapipeVersion"] = doc["mediapipeVersion"]
    out["references"][name] = [{"image": r["image"], "timestampMs": r["timestampMs"],
                                "facialTransformationMatrixes": r["result"]["facialTransformationMatrixes"]}
                               for r in doc["results"]]
assert out["mediapipeVersion"] == "1.2.3", out["mediapipeVersion"]
with open(a.out, "w") as f:
    json.dump(out, f, separators=(",", ":"))
    f.write("\n")
print(f"wrote {a.out}")
