#!/usr/bin/env python3
"""Goldens for the Vision layer, computed by the libraries MediaPipe and Pillow use (the outside truth).

- decode/: every image of ../shared/images as RGB or RGBA .npy — PNG by Pillow (our PNG decoding must be identical),
  JPEG by Debian's own libjpeg-turbo through `djpeg`. The JPEG arrays are the crops' source pixels only: our JPEG
  decoding reproduces MediaPipe's (stb_image), held to tools/mediapipe_decoded_images.py's digests instead.
- crops/: regions cut the way MediaPipe's ImageToTensorCalculator does on CPU (its OpenCV converter):
  cv2.boxPoints of the rotated rect, getPerspectiveTransform onto the tensor's corners (bottom-left, top-left,
  top-right, bottom-right), warpPerspective with INTER_LINEAR and the chosen border on the 8-bit RGB image,
  then a linear map of 0..255 onto the range. Letterboxing grows the region first as MediaPipe's PadRoi does.
  cases.json lists every case.

OpenCV is pinned to 4.10: its warpPerspective is the one MediaPipe 0.10.14 was built against (4.11 rewrote the
warp kernels and rounds differently). The PyPI wheel solves getPerspectiveTransform through LAPACK where OpenCV's
own LU is what a LAPACK-less build (and our code) uses; the last bit of the matrix then differs, which shows only
where a source coordinate falls exactly on a 1/64-pixel rounding tie (see the Swift test).

Usage: pip install opencv-python-headless==4.10.0.84 pillow numpy; apt-get install libjpeg-turbo-progs
       python3 tools/vision_goldens.py [--shared ../shared] [--out .cache/goldens/vision]
"""
import argparse
import json
import math
import os
import subprocess

import cv2
import numpy as np
from PIL import Image


def decode(shared, name):
    path = os.path.join(shared, "images", name)
    if name.lower().endswith((".jpg", ".jpeg")):
        ppm = subprocess.run(["djpeg", "-pnm", path], check=True, capture_output=True).stdout
        # binary PPM: P6\n<w> <h>\n255\n<data>
        parts = ppm.split(b"\n", 3)
        width, height = map(int, parts[1].split())
        return np.frombuffer(parts[3], dtype=np.uint8).reshape(height, width, 3)
    image = Image.open(path)
    has_alpha = image.mode in ("RGBA", "LA") or (image.mode == "P" and "transparency" in image.info)
    return np.asarray(image.convert("RGBA" if has_alpha else "RGB"))


def pad_roi(roi, width, height, keep_aspect):
    """MediaPipe's PadRoi (image_to_tensor_utils.cc): grow the region to the tensor's aspect ratio."""
    cx, cy, w, h, degrees = roi
    if not keep_aspect:
        return roi
    tensor_aspect = height / width
    roi_aspect = h / w
    if tensor_aspect > roi_aspect:
        h = w * tensor_aspect
    else:
        w = h / tensor_aspect
    return (cx, cy, w, h, degrees)


def crop(rgb, roi, width, height, keep_aspect, low, high, border):
    cx, cy, w, h, degrees = pad_roi(roi, width, height, keep_aspect)
    src = cv2.boxPoints(((cx, cy), (w, h), degrees)).astype(np.float32)
    dst = np.array([[0, height], [0, 0], [width, 0], [width, height]], dtype=np.float32)
    matrix = cv2.getPerspectiveTransform(src, dst)
    mode = cv2.BORDER_REPLICATE if border == "replicate" else cv2.BORDER_CONSTANT
    warped = cv2.warpPerspective(rgb[:, :, :3], matrix, (width, height), flags=cv2.INTER_LINEAR, borderMode=mode, borderValue=0)
    scale = (high - low) / 255.0
    return warped.astype(np.float32) * np.float32(scale) + np.float32(low)


CASES = [
    # image, (cx, cy, w, h, degrees clockwise), (W, H), letterbox, range, border
    ("pose1.jpg", (125.5, 100.5, 251, 201, 0), (224, 224), True, (-1, 1), "zero"),
    ("pose1.jpg", (120, 95, 100, 140, 30), (64, 64), False, (0, 1), "zero"),
    ("pose1.jpg", (130, 110, 90, 90, 90), (96, 96), False, (0, 1), "zero"),
    ("pose1.jpg", (110, 90, 120, 80, -135), (128, 96), False, (-1, 1), "zero"),
    ("pose1.jpg", (10, 5, 120, 120, 15), (64, 64), False, (0, 1), "zero"),
    ("pose1.jpg", (240, 190, 100, 100, 0), (50, 50), False, (0, 1), "replicate"),
    ("pose1.jpg", (-200, -200, 50, 50, 0), (16, 16), False, (0, 1), "zero"),
    ("face_day13.jpg", (150, 150, 180, 220, 30), (128, 128), True, (0, 1), "zero"),
    ("coral_bird.png", (200, 150, 300, 250, -135), (192, 192), True, (-1, 1), "replicate"),
    ("hand_2hands.png", (1742, 980, 3484, 1960, 0), (256, 256), True, (0, 1), "zero"),
    ("hand_2hands.png", (1000, 900, 700, 700, 90), (224, 224), False, (0, 1), "zero"),
    ("hand_two_palms.png", (300, 200, 250, 250, 30), (256, 256), False, (0, 1), "zero"),
]


def write_yuv(rgb, out):
    """NV12 and I420 planes made from a real photo (odd width and height kept, as cameras never give but
    buffers may), and the RGB that BT.601 full-range conversion gives for them: R = Y + 1.402 (V - 128),
    G = Y - 0.344136 (U - 128) - 0.714136 (V - 128), B = Y + 1.772 (U - 128), rounded and clamped."""
    os.makedirs(out, exist_ok=True)
    f = rgb[:, :, :3].astype(np.float64)
    height, width = f.shape[:2]
    y = np.clip(np.round(0.299 * f[..., 0] + 0.587 * f[..., 1] + 0.114 * f[..., 2]), 0, 255).astype(np.uint8)
    u_full = 128 - 0.168736 * f[..., 0] - 0.331264 * f[..., 1] + 0.5 * f[..., 2]
    v_full = 128 + 0.5 * f[..., 0] - 0.418688 * f[..., 1] - 0.081312 * f[..., 2]
    ch, cw = (height + 1) // 2, (width + 1) // 2
    u = np.clip(np.round(u_full[::2, ::2]), 0, 255).astype(np.uint8)[:ch, :cw]
    v = np.clip(np.round(v_full[::2, ::2]), 0, 255).astype(np.uint8)[:ch, :cw]
    uv = np.stack([u, v], axis=-1).reshape(ch, cw * 2)
    yf = y.astype(np.float64)
    uu = np.repeat(np.repeat(u, 2, axis=0), 2, axis=1)[:height, :width].astype(np.float64) - 128
    vv = np.repeat(np.repeat(v, 2, axis=0), 2, axis=1)[:height, :width].astype(np.float64) - 128
    expected = np.stack([yf + 1.402 * vv, yf - 0.344136 * uu - 0.714136 * vv, yf + 1.772 * uu], axis=-1)
    np.save(os.path.join(out, "y.npy"), y)
    np.save(os.path.join(out, "uv.npy"), uv)
    np.save(os.path.join(out, "u.npy"), u)
    np.save(os.path.join(out, "v.npy"), v)
    np.save(os.path.join(out, "rgb.npy"), np.clip(np.round(expected), 0, 255).astype(np.uint8))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", default=os.path.join("..", "shared"))
    parser.add_argument("--out", default=os.path.join(".cache", "goldens", "vision"))
    args = parser.parse_args()
    os.makedirs(os.path.join(args.out, "decode"), exist_ok=True)
    os.makedirs(os.path.join(args.out, "crops"), exist_ok=True)
    decoded = {}
    for name in sorted(os.listdir(os.path.join(args.shared, "images"))):
        decoded[name] = decode(args.shared, name)
        np.save(os.path.join(args.out, "decode", name + ".npy"), decoded[name])
    cases = []
    for index, (name, roi, (width, height), letterbox, (low, high), border) in enumerate(CASES):
        tensor = crop(decoded[name], roi, width, height, letterbox, low, high, border)
        file = f"crop_{index}.npy"
        np.save(os.path.join(args.out, "crops", file), tensor)
        padded = pad_roi(roi, width, height, letterbox)
        corners = cv2.boxPoints(((padded[0], padded[1]), (padded[2], padded[3]), padded[4])).tolist()
        cases.append({"image": name, "roi": list(roi), "size": [width, height], "letterbox": letterbox,
                      "range": [low, high], "border": border, "file": file, "boxPoints": corners})
    with open(os.path.join(args.out, "crops", "cases.json"), "w") as f:
        json.dump(cases, f, indent=1)
    write_yuv(decoded["pose1.jpg"], os.path.join(args.out, "yuv"))
    print(f"vision goldens: {len(decoded)} decodes, {len(cases)} crops in {args.out}")


if __name__ == "__main__":
    main()
