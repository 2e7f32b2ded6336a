#!/usr/bin/env python3
"""MediaPipe's own crop, read back: why MediaPipe 1.2.3 and 0.10.14 embed a region of interest differently (issue #45).

    .cache/venv/bin/python tools/mediapipe_crop_probe.py [--shared ../shared]

1. Writes a "pixel probe" model to a temporary directory: a uint8 [1, 224, 224, 3] input RESHAPEd to a uint8
   [1, 150528] output (scale 1, zero point 0). MediaPipe's ImageEmbedder runs it like any uint8 embedder, so the
   embedding it returns is its input tensor: the crop MediaPipe's ImageToTensorCalculator made, value for value.
2. Runs it under MediaPipe 1.2.3 and 0.10.14 (each venv calls this file with --worker) on coral_cat.png, whole and
   with the two regions of tools/mediapipe_embedder_goldens.py, and prints where the crops differ.
3. Redoes each crop with this venv's OpenCV 4.10 (MediaPipe 0.10.14's warp): cv2.boxPoints' corners, and the corners
   computed each from the center (OpenCV 5's RotatedRect::points, which cv2 5.1 in the 1.2.3 venv gives bit for bit),
   through getPerspectiveTransform and warpPerspective, and says which version each reproduces.

Measured (first region, left 0.1 top 0.2 right 0.7 bottom 0.9): 1.2.3 and 0.10.14 differ in 665 values by up to 2
(rows 101, 111, ..., 141: where the 1/32-pixel source row is a tie); boxPoints' corners give 0.10.14's crop exactly,
the centered corners 1.2.3's exactly; both agree on the whole image and on the second region.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENVS = {"1.2.3": os.path.join(ROOT, ".cache", "mediapipe-1.2.3", "bin", "python"),
         "0.10.14": os.path.join(ROOT, ".cache", "mediapipe", "bin", "python")}
IMAGE = "coral_cat.png"
REGIONS = {"whole": None, "region1": {"left": 0.1, "top": 0.2, "right": 0.7, "bottom": 0.9},
           "region2": {"left": 0.1, "top": 0.2, "right": 0.8, "bottom": 0.8}}
SIZE = 224


def probe_model(path):
    import flatbuffers
    from ai_edge_litert import schema_py_generated as schema

    def quantization():
        q = schema.QuantizationParametersT()
        q.scale, q.zeroPoint = [1.0], [0]
        return q

    def tensor(name, shape, kind, buffer=0, quantized=True):
        t = schema.TensorT()
        t.name, t.shape, t.type, t.buffer = name, shape, kind, buffer
        t.quantization = quantization() if quantized else None
        return t

    count = SIZE * SIZE * 3
    shape_buffer = schema.BufferT()
    shape_buffer.data = list(np.array([1, count], dtype="<i4").tobytes())
    op = schema.OperatorT()
    op.opcodeIndex, op.inputs, op.outputs = 0, [0, 2], [1]
    code = schema.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = schema.BuiltinOperator.RESHAPE
    code.version = 1
    graph = schema.SubGraphT()
    graph.tensors = [tensor(b"image", [1, SIZE, SIZE, 3], schema.TensorType.UINT8),
                     tensor(b"pixels", [1, count], schema.TensorType.UINT8),
                     tensor(b"shape", [2], schema.TensorType.INT32, buffer=1, quantized=False)]
    graph.operators, graph.inputs, graph.outputs, graph.name = [op], [0], [1], b"main"
    model = schema.ModelT()
    model.version, model.operatorCodes, model.subgraphs = 3, [code], [graph]
    model.buffers, model.description = [schema.BufferT(), shape_buffer], b"pixel probe"
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    with open(path, "wb") as f:
        f.write(bytes(builder.Output()))


def worker(model, shared):
    """Under a MediaPipe venv: the crops, as JSON lists of bytes."""
    import mediapipe as mp
    from mediapipe.tasks import python as mpt
    from mediapipe.tasks.python import vision
    from mediapipe.tasks.python.components.containers import rect as rect_module
    make = getattr(rect_module, "RectF", rect_module.Rect)
    embedder = vision.ImageEmbedder.create_from_options(
        vision.ImageEmbedderOptions(base_options=mpt.BaseOptions(model_asset_path=model)))
    image = mp.Image.create_from_file(os.path.join(shared, "images", IMAGE))
    out = {}
    for name, region in REGIONS.items():
        options = vision.ImageProcessingOptions(region_of_interest=make(**region)) if region else None
        result = embedder.embed(image, options) if options else embedder.embed(image)
        out[name] = np.asarray(result.embeddings[0].embedding).astype(np.uint8).tolist()
    embedder.close()
    json.dump({"version": mp.__version__, "crops": out}, sys.stdout)


def corners(cx, cy, w, h, centered):
    """RotatedRect::points at angle 0, in float: OpenCV <= 4.12 mirrors p0, p1 through the center; OpenCV 5 centers all."""
    f = np.float32
    b, a = f(math.cos(0.0)) * f(0.5), f(math.sin(0.0)) * f(0.5)
    p0 = (cx - a * h - b * w, cy + b * h - a * w)
    p1 = (cx + a * h - b * w, cy - b * h - a * w)
    if centered:
        p2, p3 = (cx + a * h + b * w, cy - b * h + a * w), (cx - a * h + b * w, cy + b * h + a * w)
    else:
        p2, p3 = (f(2) * cx - p0[0], f(2) * cy - p0[1]), (f(2) * cx - p1[0], f(2) * cy - p1[1])
    return np.array([p0, p1, p2, p3], np.float32)


def opencv_crop(rgb, region, centered):
    import cv2
    f = np.float32
    height, width = rgb.shape[:2]
    if region is None:
        cx, cy, w, h = f(0.5) * f(width), f(0.5) * f(height), f(width), f(height)
    else:  # ConvertToNormalizedRect, then ImageToTensorCalculator's GetRoi, in float
        cx = f((region["left"] + region["right"]) / 2.0) * f(width)
        cy = f((region["top"] + region["bottom"]) / 2.0) * f(height)
        w = f(region["right"] - region["left"]) * f(width)
        h = f(region["bottom"] - region["top"]) * f(height)
    dst = np.array([[0, SIZE], [0, 0], [SIZE, 0], [SIZE, SIZE]], np.float32)
    matrix = cv2.getPerspectiveTransform(corners(cx, cy, w, h, centered), dst)
    return cv2.warpPerspective(rgb, matrix, (SIZE, SIZE), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=os.path.join(os.path.dirname(ROOT), "shared"))
    ap.add_argument("--worker", nargs=1, metavar="MODEL", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        return worker(a.worker[0], a.shared)
    import cv2
    assert cv2.__version__.startswith("4.10"), "run under .cache/venv (OpenCV 4.10, MediaPipe 0.10.14's warp)"
    with tempfile.TemporaryDirectory(prefix="crop-probe-") as tmp:
        model = os.path.join(tmp, "pixel_probe.tflite")
        probe_model(model)
        crops = {}
        for version, python in VENVS.items():
            run = subprocess.run([python, os.path.abspath(__file__), "--shared", a.shared, "--worker", model],
                                 capture_output=True, text=True, env={**os.environ, "GLOG_minloglevel": "2"})
            if run.returncode != 0:
                raise SystemExit(f"MediaPipe {version} failed:\n{run.stderr[-2000:]}")
            answer = json.loads(run.stdout)
            assert answer["version"] == version, answer["version"]
            crops[version] = {k: np.array(v, np.uint8).reshape(SIZE, SIZE, 3) for k, v in answer["crops"].items()}
    bgr = cv2.imread(os.path.join(a.shared, "images", IMAGE), cv2.IMREAD_COLOR)
    rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
    for name, region in REGIONS.items():
        d = np.abs(crops["1.2.3"][name].astype(int) - crops["0.10.14"][name].astype(int))
        rows = sorted(set(np.nonzero(d.max(axis=2))[0].tolist()))
        print(f"{name}: 1.2.3 vs 0.10.14: {int((d > 0).sum())} values differ, by up to {int(d.max())}; rows {rows}")
        for centered in (False, True):
            ours = opencv_crop(rgb, region, centered)
            same = [v for v in VENVS if np.array_equal(ours, crops[v][name])]
            label = "centered corners (OpenCV 5)" if centered else "boxPoints corners (OpenCV 4.10)"
            print(f"  {label}: equals {', '.join(same) if same else 'neither'}")


if __name__ == "__main__":
    main()
