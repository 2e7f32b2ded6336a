#!/usr/bin/env python3
"""Shared JPEGs carrying each EXIF orientation tag (1-8), as MediaPipe 1.x and as djpeg + PIL decode them upright.

MediaPipe 1.x's `mp.Image.create_from_file` turns a JPEG upright by its EXIF orientation (0.10.x did not). Our
decoder does the same by default (ImageDecodingOptions.appliesExifOrientation). The tagged files are the shared
photos with one APP1 segment inserted right after SOI, byte for byte what Tests/Support/TestSupport's
`EXIFOrientationJPEG` builds (MediaPipe goldens elsewhere use the same bytes):

    FF E1, length (2 + payload) big-endian, payload "Exif\\0\\0" "II" 2A 00 08 00 00 00, entry count 01 00,
    entry 12 01 (orientation) 03 00 (SHORT) 01 00 00 00 (one value) N as little-endian uint16 00 00,
    next IFD 00 00 00 00

For every image and tag it records the shape and SHA-256 (row-major RGB bytes) of:
- `mediapipe`: MediaPipe's own pixels (stb_image's decode, then turned): what our default decode must equal;
- `djpeg_exif_transpose`: Debian's djpeg (libjpeg-turbo, the decoder behind our fallback path for JPEGs stb_image
  would not read) turned by PIL's `ImageOps.exif_transpose`: what that path must equal.
It also checks, and fails otherwise, that MediaPipe's turn of each tag is PIL's exif_transpose of its untagged
pixels: the table our UprightLayout follows.

Usage (MediaPipe 1.x in its own venv: python3 -m venv .cache/mediapipe-1.2.3 &&
.cache/mediapipe-1.2.3/bin/pip install mediapipe==1.2.3):
    .cache/mediapipe-1.2.3/bin/python tools/mediapipe_exif_pixels.py [--shared ../shared]
        [--fixture Tests/Fixtures/exif_orientation_pixels.json]
"""
import argparse
import hashlib
import io
import json
import os
import struct
import subprocess
import tempfile

import mediapipe as mp
import numpy as np
from PIL import Image, ImageOps

IMAGES = ["pose1.jpg", "hand_f5547.jpg"]


def tagged(jpeg: bytes, tag: int) -> bytes:
    payload = (b"Exif\x00\x00" + b"II\x2a\x00\x08\x00\x00\x00" + b"\x01\x00"
               + b"\x12\x01\x03\x00\x01\x00\x00\x00" + struct.pack("<H", tag) + b"\x00\x00" + b"\x00\x00\x00\x00")
    assert jpeg[:2] == b"\xff\xd8"
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", 2 + len(payload)) + payload + jpeg[2:]


def digest(pixels: np.ndarray) -> dict:
    pixels = np.ascontiguousarray(pixels)
    return {"shape": list(pixels.shape), "sha256": hashlib.sha256(pixels.tobytes()).hexdigest()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shared", default=os.path.join("..", "shared"))
    parser.add_argument("--fixture", default=os.path.join("Tests", "Fixtures", "exif_orientation_pixels.json"))
    args = parser.parse_args()
    images = {}
    with tempfile.TemporaryDirectory() as scratch:
        for name in IMAGES:
            original = open(os.path.join(args.shared, "images", name), "rb").read()
            untagged = os.path.join(scratch, "untagged.jpg")
            open(untagged, "wb").write(original)
            # numpy_view() is a view into the Image's buffer: the Image must outlive it (kept in a variable).
            stored_image = mp.Image.create_from_file(untagged)
            stored = stored_image.numpy_view().copy()
            ppm = subprocess.run(["djpeg", "-pnm", untagged], check=True, capture_output=True).stdout
            djpeg = Image.open(io.BytesIO(ppm)).convert("RGB")
            entry = {"mediapipe": {}, "djpeg_exif_transpose": {}}
            for tag in range(1, 9):
                path = os.path.join(scratch, f"tag{tag}.jpg")
                open(path, "wb").write(tagged(original, tag))
                image = mp.Image.create_from_file(path)
                ours = image.numpy_view().copy()
                # PIL's table, applied to MediaPipe's own untagged pixels, must be what MediaPipe gives.
                carrier = Image.fromarray(stored)
                carrier.getexif()[0x0112] = tag
                expected = np.asarray(ImageOps.exif_transpose(carrier))
                if not np.array_equal(ours, expected):
                    raise SystemExit(f"{name} tag {tag}: MediaPipe's upright pixels are not PIL's exif_transpose")
                entry["mediapipe"][str(tag)] = digest(ours)
                turned = djpeg.copy()
                turned.getexif()[0x0112] = tag
                entry["djpeg_exif_transpose"][str(tag)] = digest(np.asarray(ImageOps.exif_transpose(turned)))
            images[name] = entry
            print(f"{name}: 8 tags, MediaPipe = PIL exif_transpose")
    with open(args.fixture, "w") as f:
        json.dump({"generator": "tools/mediapipe_exif_pixels.py", "mediapipe": mp.__version__, "images": images},
                  f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"wrote    {args.fixture}")


if __name__ == "__main__":
    main()
