#!/usr/bin/env python3
"""How far the hair model's masks move when its input moves by a last bit: LiteRT against itself, the yardstick for
the hair model's largest mask difference from MediaPipe (Tests/TasksTests/ImageSegmenterReferenceTests.swift).

    .cache/venv/bin/python tools/litert_segmenter_spread.py [--shared ../shared] \
        [--out .cache/mediapipe-goldens/segmenter/litert_hair_spread.json]

The hair model (MaxPoolingWithArgmax2D then MaxUnpooling2D) puts each pooled value back where the first of the
window's maxima was: when two are within a last bit, which one wins moves a value to another pixel. For each PNG
photo the segmenter goldens run the hair model on (PNG: the pixels MediaPipe decodes, exactly), the model's input is
made as MediaPipe makes it (RGBA stretched to 512 × 512 with OpenCV's resize, INTER_AREA when both sides shrink, else
INTER_LINEAR; bytes / 255; the fourth channel 0) and run by LiteRT (one thread) as is and with NOISES uniform noise
draws of ±1e-6 added to the RGB channels (fixed seeds); the hair confidence mask (softmax channel 1) is resized to
the image with OpenCV's INTER_LINEAR. Writes {image: largest |mask(noisy) − mask(clean)| over the draws}. Photos
other than PNG are left out (their decoding is MediaPipe's stb_image, which OpenCV's is not). Deterministic.
"""
import argparse
import json
import os

import cv2
import numpy as np
from ai_edge_litert.interpreter import Interpreter

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
NOISES = 4


def mask(interpreter, x, width, height):
    i, o = interpreter.get_input_details()[0], interpreter.get_output_details()[0]
    interpreter.set_tensor(i["index"], x[None])
    interpreter.invoke()
    y = interpreter.get_tensor(o["index"])[0]
    e = np.exp(y - y.max(-1, keepdims=True))
    hair = (e / e.sum(-1, keepdims=True))[:, :, 1].astype(np.float32)
    return cv2.resize(hair, (width, height), interpolation=cv2.INTER_LINEAR)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--index", default=os.path.join(ROOT, ".cache", "mediapipe-goldens", "segmenter", "index.json"))
    ap.add_argument("--out", default=os.path.join(ROOT, ".cache", "mediapipe-goldens", "segmenter", "litert_hair_spread.json"))
    a = ap.parse_args()
    cases = json.load(open(a.index))["cases"]
    images = sorted({c["image"] for c in cases if c.get("model") == "hair_segmentation.tflite"
                     and c["image"].endswith(".png") and "#" not in c["image"]})
    model = os.path.join(ROOT, "Models", "hair_segmentation.tflite")
    interpreter = Interpreter(model_path=model, num_threads=1)
    interpreter.allocate_tensors()
    spread = {}
    for name in images:
        rgb = cv2.cvtColor(cv2.imread(os.path.join(a.shared, "images", name), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
        height, width = rgb.shape[:2]
        rgba = np.concatenate([rgb, np.full((height, width, 1), 255, np.uint8)], 2)
        shrink = width > 512 and height > 512
        resized = cv2.resize(rgba, (512, 512), interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR)
        x = resized.astype(np.float32) / 255.0
        x[:, :, 3] = 0
        clean = mask(interpreter, x, width, height)
        worst = 0.0
        for seed in range(NOISES):
            noisy = x.copy()
            noisy[:, :, :3] += np.random.default_rng(seed).uniform(-1e-6, 1e-6, noisy[:, :, :3].shape).astype(np.float32)
            worst = max(worst, float(np.abs(mask(interpreter, noisy, width, height) - clean).max()))
        spread[name] = float(f"{worst:.6g}")
        print(f"{name}: hair mask moves up to {worst:.4g} under ±1e-6 input noise")
    with open(a.out, "w") as f:
        json.dump({"generator": "tools/litert_segmenter_spread.py", "noise": 1e-6, "draws": NOISES, "largestMaskDifference": spread}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
