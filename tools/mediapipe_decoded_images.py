#!/usr/bin/env python3
"""The shared JPEG photos as MediaPipe 0.10.14's Python API decodes them, saved losslessly as PNG.

`mp.Image.create_from_file` decodes with stb_image, whose JPEG decoder (its own IDCT, chroma upsampling and YCbCr
conversion) gives pixels a few levels away from libjpeg-turbo's. MediaPipe's reference results
(../shared/reference/*.json) were made from stb_image's pixels, and our decoder reproduces them
(Sources/Imaging/StbImageJPEGReconstruction.swift).

Writes, for each shared JPEG:
- `.cache/mediapipe-decoded/<name>.png`: MediaPipe's pixels, losslessly (only what is missing), for diagnosing a
  mismatch (tools/run-tests runs it for that, best effort);
- with `--fixture PATH` (the committed one is `Tests/Fixtures/mediapipe_jpeg_pixels.json`): their shape and SHA-256
  (of the row-major RGB bytes), which the tests hold our decoding to without needing MediaPipe installed.

Usage: .cache/mediapipe/bin/python tools/mediapipe_decoded_images.py [--shared ../shared] [--out .cache/mediapipe-decoded]
           [--fixture Tests/Fixtures/mediapipe_jpeg_pixels.json]
"""
import argparse
import hashlib
import json
import os

import cv2
import mediapipe as mp


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", default=os.path.join("..", "shared"))
    parser.add_argument("--out", default=os.path.join(".cache", "mediapipe-decoded"))
    parser.add_argument("--fixture", default=None)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    images = os.path.join(args.shared, "images")
    digests = {}
    for name in sorted(os.listdir(images)):
        if not name.lower().endswith((".jpg", ".jpeg")):
            continue
        target = os.path.join(args.out, os.path.splitext(name)[0] + ".png")
        if os.path.exists(target) and not args.fixture:
            continue
        pixels = mp.Image.create_from_file(os.path.join(images, name)).numpy_view()
        digests[name] = {"shape": list(pixels.shape), "sha256": hashlib.sha256(pixels.tobytes()).hexdigest()}
        if os.path.exists(target):
            continue
        code = cv2.COLOR_RGBA2BGRA if pixels.shape[-1] == 4 else cv2.COLOR_RGB2BGR
        cv2.imwrite(target + ".partial.png", cv2.cvtColor(pixels, code))
        os.replace(target + ".partial.png", target)
        print(f"wrote    {target}")
    if not args.fixture:
        return
    with open(args.fixture, "w") as f:
        json.dump({"generator": "tools/mediapipe_decoded_images.py", "mediapipe": mp.__version__,
                   "images": digests}, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote    {args.fixture} ({len(digests)} images)")


if __name__ == "__main__":
    main()
