#!/usr/bin/env python3
"""Time MediaPipe's CPU pre-processing path on one image: decode (Pillow, as MediaPipe's Python Image does through
its own decoder), then letterboxed warpPerspective into SIZE×SIZE and conversion to float [0, 1].
Prints `decode_ms=<x> tensor_ms=<y> total_ms=<z>` (medians). Usage: opencv_preprocess_time.py IMAGE SIZE REPEATS"""
import statistics
import sys
import time

import cv2
import numpy as np
from PIL import Image


def main():
    path, size, repeats = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    decode, tensor = [], []
    for iteration in range(repeats + 2):
        start = time.perf_counter()
        rgb = np.asarray(Image.open(path).convert("RGB"))
        decoded = time.perf_counter()
        height, width = rgb.shape[:2]
        side = max(width, height)
        src = cv2.boxPoints(((width / 2, height / 2), (side, side), 0))
        dst = np.array([[0, size], [0, 0], [size, 0], [size, size]], dtype=np.float32)
        warped = cv2.warpPerspective(rgb, cv2.getPerspectiveTransform(src, dst), (size, size), flags=cv2.INTER_LINEAR)
        warped.astype(np.float32) * np.float32(1 / 255)
        done = time.perf_counter()
        if iteration >= 2:
            decode.append((decoded - start) * 1000)
            tensor.append((done - decoded) * 1000)
    d, t = statistics.median(decode), statistics.median(tensor)
    print(f"decode_ms={d:.2f} tensor_ms={t:.2f} total_ms={d + t:.2f}")


if __name__ == "__main__":
    main()
