#!/usr/bin/env python3
"""The shared JPEG photos as MediaPipe 0.10.14's Python API decodes them, saved losslessly as PNG.

`mp.Image.create_from_file` decodes with stb_image, whose JPEG decoder (its own IDCT, chroma upsampling and YCbCr
conversion) gives pixels a few levels away from libjpeg-turbo's, which our decoder matches (djpeg). MediaPipe's
reference results (../shared/reference/*.json) were made from stb_image's pixels; tests that want MediaPipe's exact
numbers for a JPEG feed those pixels (`.cache/mediapipe-decoded/<name>.png`), and tests of our own decoding compare
with a tolerance instead.

Usage: .cache/mediapipe/bin/python tools/mediapipe_decoded_images.py [--shared ../shared] [--out .cache/mediapipe-decoded]
Writes only what is missing.
"""
import argparse
import os

import cv2
import mediapipe as mp


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", default=os.path.join("..", "shared"))
    parser.add_argument("--out", default=os.path.join(".cache", "mediapipe-decoded"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    images = os.path.join(args.shared, "images")
    for name in sorted(os.listdir(images)):
        if not name.lower().endswith((".jpg", ".jpeg")):
            continue
        target = os.path.join(args.out, os.path.splitext(name)[0] + ".png")
        if os.path.exists(target):
            continue
        pixels = mp.Image.create_from_file(os.path.join(images, name)).numpy_view()
        code = cv2.COLOR_RGBA2BGRA if pixels.shape[-1] == 4 else cv2.COLOR_RGB2BGR
        cv2.imwrite(target + ".partial.png", cv2.cvtColor(pixels, code))
        os.replace(target + ".partial.png", target)
        print(f"wrote    {target}")


if __name__ == "__main__":
    main()
