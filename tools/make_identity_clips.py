#!/usr/bin/env python3
"""Clips with two people whose identity is known by construction, for the landmarkers' identity test
(Tests/TasksTests/IdentityClipTests.swift), made from ../shared/videos with ffmpeg alone (no Python packages):

- `crossing.mp4`: full_body_juggle.mp4 (a man juggling, moving left and right) with an opaque window of
  outdoor_person_dog_sam2.mp4 (a woman bending to a dog) sliding across it and back, twice: the woman crosses the
  man and hides most of him while she passes (short occlusions). Her pixels are exactly the window's.
- `mirrored.mp4`: full_body_juggle.mp4 beside its mirror image started 3 s later, each at half size: two men who
  move towards and away from the seam. The left one's pixels are the left half.

Beside each clip, NAME.json gives every frame's region of each person (x, y, width, height in pixels) — the truth a
pose is judged against: the person whose region holds most of its visible landmarks. The clips are git-ignored
(.cache/identity-clips by default); the test makes them when they are missing.

Usage: tools/make_identity_clips.py [--out DIR] [--shared DIR]
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# The sliding window: a crop of the woman (and the dog's head), moved in a triangle wave from x 0 to x TRAVEL and
# back every PERIOD frames of the 24 fps base clip.
WINDOW = dict(x=180, y=150, width=320, height=450)
WINDOW_Y = 200
TRAVEL = 960
PERIOD = 192
BASE_FPS = 24


def window_x(frame):
    """The window's left edge in frame `frame`: the same triangle wave ffmpeg's overlay evaluates (from t, truncated)."""
    phase = (frame % PERIOD) / (PERIOD / 2)
    return int(TRAVEL * (1 - abs(phase - 1)))


def frame_count(path):
    out = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                          "stream=nb_read_frames", "-of", "csv=p=0", path], capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def encode(filter_graph, inputs, out):
    # One thread and fixed settings: the same ffmpeg makes the same bytes.
    args = ["ffmpeg", "-nostdin", "-v", "error", "-y"]
    for path, options in inputs:
        args += [*options, "-i", path]
    args += ["-filter_complex", filter_graph, "-map", "[out]", "-r", str(BASE_FPS), "-c:v", "libx264", "-preset", "medium",
             "-crf", "16", "-pix_fmt", "yuv420p", "-threads", "1", "-an", out]
    subprocess.run(args, check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", default=os.path.join(ROOT, ".cache", "identity-clips"))
    parser.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    args = parser.parse_args()
    videos = os.path.join(args.shared, "videos")
    juggle = os.path.join(videos, "full_body_juggle.mp4")
    outdoor = os.path.join(videos, "outdoor_person_dog_sam2.mp4")
    os.makedirs(args.out, exist_ok=True)

    # crossing.mp4: the window's x from the output frame's time t (exactly n / 24), as window_x computes it.
    crossing = os.path.join(args.out, "crossing.mp4")
    w = WINDOW
    x_expr = f"trunc({TRAVEL}*(1-abs(mod(round(t*{BASE_FPS}),{PERIOD})/{PERIOD // 2}-1)))"
    encode(f"[1:v]crop={w['width']}:{w['height']}:{w['x']}:{w['y']}[win];"
           f"[0:v][win]overlay=x='{x_expr}':y={WINDOW_Y}:eval=frame:eof_action=repeat[out]",
           [(juggle, []), (outdoor, [])], crossing)
    frames = frame_count(crossing)
    json.dump({"clip": "crossing.mp4", "width": 1280, "height": 720, "frames": frames,
               "people": [
                   {"name": "woman (window)", "regions": [[window_x(i), WINDOW_Y, w["width"], w["height"]] for i in range(frames)]},
                   {"name": "man (background)", "outside": 0},
               ]}, open(os.path.join(args.out, "crossing.json"), "w"), indent=None)

    # mirrored.mp4: left half the clip, right half its mirror 3 s later (the first 3 s of the mirror are not used:
    # the clip ends with the shorter input).
    mirrored = os.path.join(args.out, "mirrored.mp4")
    encode("[0:v]scale=640:360[left];[1:v]hflip,scale=640:360[right];[left][right]hstack=inputs=2:shortest=1[out]",
           [(juggle, []), (juggle, ["-ss", "3"])], mirrored)
    frames = frame_count(mirrored)
    json.dump({"clip": "mirrored.mp4", "width": 1280, "height": 360, "frames": frames,
               "people": [
                   {"name": "left", "regions": [[0, 0, 640, 360]] * frames},
                   {"name": "right (mirror)", "regions": [[640, 0, 640, 360]] * frames},
               ]}, open(os.path.join(args.out, "mirrored.json"), "w"), indent=None)
    print(f"wrote {crossing} and {mirrored} with their regions", file=sys.stderr)


if __name__ == "__main__":
    main()
