#!/usr/bin/env python3
"""MediaPipe's Image Segmenter and (legacy) Interactive Segmenter masks -> .cache/mediapipe-goldens/segmenter/
(git-ignored; issue #45). Only cases that are missing or stale are made again.

    .cache/mediapipe-1.2.3/bin/python tools/mediapipe_segmenter_goldens.py [--shared ../shared] \
        [--mp01014 .cache/mediapipe/bin/python] [--out .cache/mediapipe-goldens/segmenter] [--force]

Runs under MediaPipe 1.2.3 (the truth) and calls itself under 0.10.14 (`--worker`) on the same cases, keeping only
1.2.3's masks and, per case, the spread between the two. About 20 s on two cores from scratch (about 1 s when
everything is current); about 50 MB. A case is stale when its key (SHA-256 over this tool's and
mediapipe_task_common.py's source, the case description, the model's and the input file's bytes) differs from the
index's, or its .npz is missing. Without the 0.10.14 venv the masks are still made (spread null).

Files:
- `<case id>.npz` (ids are file-name safe): `confidence_masks` float32 [masks, height, width] (absent when
  outputConfidenceMasks is false), `category_mask` uint8 [height, width] (absent when outputCategoryMask is false).
  MediaPipe gives masks at the input image's size (as the image is handed to it: for a turned buffer with
  rotationDegrees, the buffer's size and frame; for an EXIF file, the shown, upright size).
- `index.json`: {"generator", "mediapipeVersion", "secondVersion", "conventions", "cases": [{id, file, key, task
  ("imageSegmenter" | "interactiveSegmenter"), model, modelSha256, runningMode, image, width, height, timestampMs,
  options {outputConfidenceMasks, outputCategoryMask}, [rot90k, rotationDegrees | exifOrientation, exifSegmentHex,
  appliedTransform | regionOfInterest], labels, qualityScores, confidenceMaskShape, confidenceMaskCount,
  categoryMaskShape, categoryValues, spread_0_10_14}]}.
  - labels: ImageSegmenter.labels (1.2.3); the legacy interactive segmenter has no labels API (null).
  - qualityScores: 1.2.3's C API result (MpImageSegmenterResult.quality_scores, which the Python wrapper drops):
    one 1.0 per mask for these models (MediaPipe sends 1.0s when the model has no quality output). 0.10.14's Python
    API has no quality scores.
  - spread_0_10_14: per confidence mask max and mean |1.2.3 - 0.10.14|, the category masks' equal fraction, whether
    shapes match.
  - regionOfInterest: {"format": "keypoint", "keypoint": [x, y]} or {"format": "scribble", "scribble": [[x, y], ...]}
    (normalized). Legacy API: 1.2.3 `InteractiveSegmenterLegacy` (its Python RegionOfInterest only has KEYPOINT; the
    scribble goes through its C struct MpRegionOfInterest, format 2, as MediaPipe's C API takes it); 0.10.14
    `InteractiveSegmenter` (its Python only has KEYPOINT; the scribble is the RenderData MediaPipe's C++
    ConvertRoiToRenderData builds: one annotation, color r 255, a `scribble` of normalized points).
- "conventions" in the index (measured by the `conventions` step, see conventions()): mask sizes on an odd-sized
  non-square image; how masks are resized (confidence: the activated model output resized with OpenCV INTER_LINEAR
  (half-pixel centres); category: MediaPipe's own align-corners bilinear interpolation of the model output, then for a
  one-mask model `> 0.5 ? 0 : 255` (0 = the person, 255 = background), else the argmax); the hair model's 4th input
  channel (MediaPipe feeds 0, whatever the image's alpha; checked against LiteRT when .cache/venv has it); the same
  network labelled otherwise (the stand-in) in the plain Image Segmenter, where the image's alpha is the 4th channel
  and 1.2.3 refuses an RGB image (0.10.14 runs it).

Cases: selfie_segmentation.tflite (square 256x256), selfie_segmentation_landscape.tflite (256x144),
hair_segmentation.tflite (512x512x4, softmax, labels background/hair) on four photos each, three VIDEO frames of
face_head_turning.mp4 each (timestamps from the frame index and fps), a turned buffer with rotationDegrees, an EXIF 6
file, one category-mask-only case; interactive_segmenter_standin.tflite (the hair network labelled background/
foreground, whose 4th channel takes MediaPipe's rendering of the region; its masks mean nothing, the plumbing does)
with a keypoint and a scribble on three photos, and a keypoint on a turned buffer. Every case has confidence masks and
the category mask on unless its options say otherwise.
"""
import argparse
import ctypes
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mediapipe_task_common as common  # noqa: E402

common.quiet_logs()
import mediapipe as mp  # noqa: E402
from mediapipe.tasks import python as mpt  # noqa: E402
from mediapipe.tasks.python import vision  # noqa: E402
from mediapipe.tasks.python.components.containers import keypoint as keypoint_module  # noqa: E402

V1 = not mp.__version__.startswith("0.")
SELFIE, LANDSCAPE, HAIR = ("selfie_segmentation.tflite", "selfie_segmentation_landscape.tflite",
                           "hair_segmentation.tflite")
STANDIN = "interactive_segmenter_standin.tflite"
PHOTOS = {SELFIE: ["pose1.jpg", "pose4.jpg", "multi1.jpg", "face_landmark_ex1.jpg"],
          LANDSCAPE: ["pose1.jpg", "pose4.jpg", "multi1.jpg", "face_landmark_ex1.jpg"],
          HAIR: ["face_day13.jpg", "face_iris1.jpg", "pose1.jpg", "hand_two_palms.png"]}
CLIP, VIDEO_FRAMES = "face_head_turning.mp4", 3
BOTH = {"outputConfidenceMasks": True, "outputCategoryMask": True}
# Regions on the person in each photo (normalized x, y).
INTERACTIVE = {"pose1.jpg": ([0.5, 0.45], [[0.45, 0.3], [0.5, 0.45], [0.55, 0.6], [0.5, 0.8]]),
               "face_day13.jpg": ([0.5, 0.5], [[0.4, 0.35], [0.5, 0.5], [0.6, 0.65]]),
               "multi1.jpg": ([0.3, 0.5], [[0.25, 0.3], [0.3, 0.5], [0.32, 0.7], [0.28, 0.9]])}


def plan():
    cases = []
    for model, photos in PHOTOS.items():
        stem = model.replace("_segmentation", "").replace(".tflite", "")
        for name in photos:
            cases.append({"id": f"{stem}__{name}", "task": "imageSegmenter", "model": model, "kind": "image",
                          "image": name, "options": BOTH})
        cases.append({"id": f"{stem}__video", "task": "imageSegmenter", "model": model, "kind": "video", "clip": CLIP,
                      "frames": VIDEO_FRAMES, "options": BOTH})
    cases += [
        {"id": "selfie__pose4.jpg__rot1", "task": "imageSegmenter", "model": SELFIE, "kind": "rot", "image": "pose4.jpg",
         "k": 1, "options": BOTH},
        {"id": "hair__face_day13.jpg__rot3", "task": "imageSegmenter", "model": HAIR, "kind": "rot",
         "image": "face_day13.jpg", "k": 3, "options": BOTH},
        {"id": "selfie__face_landmark_ex1.jpg__exif6", "task": "imageSegmenter", "model": SELFIE, "kind": "exif",
         "image": "face_landmark_ex1.jpg", "n": 6, "options": BOTH},
        {"id": "selfie__pose1.jpg__category_only", "task": "imageSegmenter", "model": SELFIE, "kind": "image",
         "image": "pose1.jpg", "options": {"outputConfidenceMasks": False, "outputCategoryMask": True}},
    ]
    for name, (keypoint, scribble) in INTERACTIVE.items():
        cases.append({"id": f"interactive__{name}__keypoint", "task": "interactiveSegmenter", "model": STANDIN,
                      "kind": "image", "image": name, "options": BOTH,
                      "roi": {"format": "keypoint", "keypoint": keypoint}})
        cases.append({"id": f"interactive__{name}__scribble", "task": "interactiveSegmenter", "model": STANDIN,
                      "kind": "image", "image": name, "options": BOTH,
                      "roi": {"format": "scribble", "scribble": scribble}})
    cases.append({"id": "interactive__face_day13.jpg__keypoint__rot1", "task": "interactiveSegmenter",
                  "model": STANDIN, "kind": "rot", "image": "face_day13.jpg", "k": 1, "options": BOTH,
                  "roi": {"format": "keypoint", "keypoint": [0.5, 0.5]}})
    return cases


# ---------------------------------------------------------------- running MediaPipe (either version)

def mask_array(image):
    a = np.array(image.numpy_view())
    return a.reshape(a.shape[:2])  # 1.x gives [h, w, 1], 0.10.x [h, w]


class Runner:
    def __init__(self, shared):
        self.shared, self.tasks = shared, {}

    def close(self):
        for t in self.tasks.values():
            try:
                t.close()
            except Exception:  # noqa: BLE001 (closing a failed graph re-raises its error; it was recorded)
                pass
        self.tasks = {}

    def segmenter(self, case, mode):
        key = (case["task"], case["model"], json.dumps(case["options"], sort_keys=True), mode)
        if key not in self.tasks:
            base = mpt.BaseOptions(model_asset_path=common.model_path(case["model"], shared=self.shared))
            o = case["options"]
            if case["task"] == "imageSegmenter":
                self.tasks[key] = vision.ImageSegmenter.create_from_options(vision.ImageSegmenterOptions(
                    base_options=base, running_mode=mode, output_confidence_masks=o["outputConfidenceMasks"],
                    output_category_mask=o["outputCategoryMask"]))
            elif V1:
                self.tasks[key] = vision.InteractiveSegmenterLegacy.create_from_options(
                    vision.InteractiveSegmenterLegacyOptions(base_options=base,
                                                             output_confidence_masks=o["outputConfidenceMasks"],
                                                             output_category_mask=o["outputCategoryMask"]))
            else:
                self.tasks[key] = vision.InteractiveSegmenter.create_from_options(vision.InteractiveSegmenterOptions(
                    base_options=base, output_confidence_masks=o["outputConfidenceMasks"],
                    output_category_mask=o["outputCategoryMask"]))
        return self.tasks[key]

    def inputs(self, case, tmp):
        """[(name, mp.Image, rotation degrees, timestamp or None)] as this version sees the case."""
        if case["kind"] == "video":
            return [(name, mp.Image(image_format=mp.ImageFormat.SRGB, data=pixels), 0, ts) for name, pixels, ts in
                    common.video_frames(os.path.join(self.shared, "videos", case["clip"]), case["frames"])]
        path = os.path.join(self.shared, "images", case["image"])
        if case["kind"] == "exif":
            tagged = os.path.join(tmp, f"exif{case['n']}_{case['image']}")
            with open(path, "rb") as src, open(tagged, "wb") as dst:
                dst.write(common.exif_tagged(src.read(), case["n"]))
            image = mp.Image.create_from_file(tagged)
            if not V1:  # 0.10.x ignores the tag: turn the buffer as 1.x shows it
                pixels = common.transform(np.array(image.numpy_view()), common.EXIF_TRANSFORMS[case["n"]])
                image = mp.Image(image_format=image.image_format, data=np.ascontiguousarray(pixels))
            return [(case["image"], image, 0, None)]
        image = mp.Image.create_from_file(path)
        if case["kind"] == "rot":
            pixels = np.ascontiguousarray(np.rot90(np.array(image.numpy_view()), case["k"]))
            return [(case["image"], mp.Image(image_format=image.image_format, data=pixels), 90 * case["k"], None)]
        return [(case["image"], image, 0, None)]

    def segment(self, case, image, degrees, ts):
        """(confidence masks or None, category mask or None, quality scores or None, labels or None)."""
        options = vision.ImageProcessingOptions(rotation_degrees=degrees) if degrees else None
        if V1:
            return self.segment_c(case, image, options, ts)
        task = self.segmenter(case, vision.RunningMode.VIDEO if ts is not None else vision.RunningMode.IMAGE)
        if case["task"] == "imageSegmenter":
            r = task.segment_for_video(image, ts, options) if ts is not None else task.segment(image, options)
            labels = task.labels
        else:
            r = self.interactive_0(task, image, case["roi"], options)
            labels = None
        confidence = [mask_array(m) for m in r.confidence_masks] if r.confidence_masks else None
        category = mask_array(r.category_mask) if r.category_mask is not None else None
        return confidence, category, None, labels

    @staticmethod
    def interactive_0(task, image, roi, options):
        from mediapipe.tasks.python.vision import interactive_segmenter as module
        from mediapipe.util import render_data_pb2
        keypoint = keypoint_module.NormalizedKeypoint(*roi.get("keypoint", [0.0, 0.0]))
        region = module.RegionOfInterest(format=module.RegionOfInterest.Format.KEYPOINT, keypoint=keypoint)
        if roi["format"] == "keypoint":
            return task.segment(image, region, options)

        def scribble(_):  # what MediaPipe's C++ ConvertRoiToRenderData makes of a scribble
            data = render_data_pb2.RenderData()
            annotation = data.render_annotations.add()
            annotation.color.r = 255
            for x, y in roi["scribble"]:
                point = annotation.scribble.point.add()
                point.normalized, point.x, point.y = True, x, y
            return data
        original = module._convert_roi_to_render_data
        module._convert_roi_to_render_data = scribble
        try:
            return task.segment(image, region, options)
        finally:
            module._convert_roi_to_render_data = original

    def segment_c(self, case, image, options, ts):
        """1.x through its C API, as its Python wrapper calls it, keeping the quality scores the wrapper drops."""
        from mediapipe.tasks.python.vision import image_segmenter as iseg
        from mediapipe.tasks.python.vision import interactive_segmenter_legacy as legacy
        from mediapipe.tasks.python.components.containers import keypoint_c
        task = self.segmenter(case, vision.RunningMode.VIDEO if ts is not None else vision.RunningMode.IMAGE)
        c_result = iseg.MpImageSegmenterResultC()
        c_options = ctypes.byref(options.to_ctypes()) if options else None
        labels = None
        if case["task"] == "imageSegmenter":
            if ts is not None:
                task._lib.MpImageSegmenterSegmentForVideo(task._handle, image._image_ptr, c_options, ts,
                                                          ctypes.byref(c_result))
            else:
                task._lib.MpImageSegmenterSegmentImage(task._handle, image._image_ptr, c_options, ctypes.byref(c_result))
            labels, close = list(task.labels), task._lib.MpImageSegmenterCloseResult
        else:
            roi = case["roi"]
            if roi["format"] == "keypoint":
                c_roi = legacy.MpRegionOfInterestC(format=legacy.MpRegionOfInterestC.Format.KEYPOINT,
                                                   keypoint=keypoint_c.MpNormalizedKeypointC(*roi["keypoint"]))
            else:
                points = (keypoint_c.MpNormalizedKeypointC * len(roi["scribble"]))(
                    *[keypoint_c.MpNormalizedKeypointC(x=x, y=y) for x, y in roi["scribble"]])
                c_roi = legacy.MpRegionOfInterestC(format=legacy.MpRegionOfInterestC.Format.SCRIBBLE, scribble=points,
                                                   scribble_count=len(roi["scribble"]))
            task._lib.MpInteractiveSegmenterLegacySegmentImage(task._handle, image._image_ptr, ctypes.byref(c_roi),
                                                               c_options, ctypes.byref(c_result))
            close = task._lib.MpInteractiveSegmenterLegacyCloseResult
        quality = [float(c_result.quality_scores[i]) for i in range(c_result.quality_scores_count)]
        r = iseg.ImageSegmenterResult.from_ctypes(c_result)
        confidence = [mask_array(m) for m in r.confidence_masks] if r.confidence_masks else None
        category = mask_array(r.category_mask) if r.category_mask is not None else None
        close(ctypes.byref(c_result))
        return confidence, category, quality, labels

    def run(self, case, outdir, tmp):
        """Writes one .npz per input of the case into outdir; their metadata."""
        out = []
        for i, (name, image, degrees, ts) in enumerate(self.inputs(case, tmp)):
            case_id = case["id"] if case["kind"] != "video" else f"{case['id']}#{i}"
            confidence, category, quality, labels = self.segment(case, image, degrees, ts)
            arrays = {}
            if confidence is not None:
                arrays["confidence_masks"] = np.stack(confidence).astype(np.float32)
            if category is not None:
                arrays["category_mask"] = category.astype(np.uint8)
            file = case_id.replace("#", "__frame") + ".npz"
            np.savez_compressed(os.path.join(outdir, file + ".partial.npz"), **arrays)
            os.replace(os.path.join(outdir, file + ".partial.npz"), os.path.join(outdir, file))
            out.append({"id": case_id, "file": file, "image": name, "width": image.width, "height": image.height,
                        "timestampMs": ts, "pixels": common.digest(image.numpy_view()), "labels": labels,
                        "qualityScores": quality,
                        "confidenceMaskShape": list(confidence[0].shape) if confidence else None,
                        "confidenceMaskCount": len(confidence) if confidence else 0,
                        "categoryMaskShape": list(category.shape) if category is not None else None,
                        "categoryValues": sorted(int(v) for v in np.unique(category)) if category is not None else None})
        return out


def worker(shared):
    request = json.load(sys.stdin)
    runner = Runner(shared)
    with tempfile.TemporaryDirectory() as tmp:
        results = [runner.run(case, request["outdir"], tmp) for case in request["cases"]]
    runner.close()
    json.dump({"version": mp.__version__, "results": results}, sys.stdout)


# ---------------------------------------------------------------- conventions (1.2.3)

def align_corners_bilinear(a, height, width):
    """MediaPipe's category-mask interpolation (ProcessForCategoryMaskCpu): scale (in - 1) / (out - 1), floor/ceil."""
    ys = np.arange(height) * ((a.shape[0] - 1) / np.float32(height - 1))
    xs = np.arange(width) * ((a.shape[1] - 1) / np.float32(width - 1))
    y0, x0 = np.floor(ys).astype(int), np.floor(xs).astype(int)
    y1, x1 = np.minimum(np.ceil(ys).astype(int), a.shape[0] - 1), np.minimum(np.ceil(xs).astype(int), a.shape[1] - 1)
    ty, tx = np.clip(ys - y0, 0, 1)[:, None], np.clip(xs - x0, 0, 1)[None, :]
    top = a[y0][:, x0] + (a[y0][:, x1] - a[y0][:, x0]) * tx
    bottom = a[y1][:, x0] + (a[y1][:, x1] - a[y1][:, x0]) * tx
    return top + (bottom - top) * ty


def conventions(shared, tmp):
    """Measured facts about MediaPipe's masks, under 1.2.3 (see the module docstring)."""
    import cv2
    runner = Runner(shared)
    facts = {}
    # 1. Mask size on an odd-sized, non-square image.
    case = {"id": "size", "task": "imageSegmenter", "model": SELFIE, "kind": "image", "image": "pose1.jpg",
            "options": BOTH}
    name, image, _, _ = runner.inputs(case, tmp)[0]
    confidence, category, _, _ = runner.segment(case, image, 0, None)
    facts["maskSize"] = {"image": name, "imageWidth": image.width, "imageHeight": image.height,
                         "confidenceMaskShape": list(confidence[0].shape), "categoryMaskShape": list(category.shape),
                         "note": "masks are [height, width] of the image handed to MediaPipe"}
    # 2. How masks are resized: a model-sized picture X (its mask R is the model output, unresized) against X
    # replicated s x s (MediaPipe's input warp samples each output pixel between identical pixels, so the model sees X
    # again and only the output resize differs).
    upright = np.array(mp.Image.create_from_file(os.path.join(shared, "images", "multi1.jpg")).numpy_view())[:, :, :3]
    rows = []
    for model, (h, w), s in ((SELFIE, (256, 256), 2), (LANDSCAPE, (144, 256), 3)):
        case = {"id": "resize", "task": "imageSegmenter", "model": model, "kind": "image", "options": BOTH}
        x = np.ascontiguousarray(upright[:h, :w])
        (r,), _, _, _ = runner.segment(case, mp.Image(image_format=mp.ImageFormat.SRGB, data=x), 0, None)
        y = np.ascontiguousarray(np.repeat(np.repeat(x, s, 0), s, 1))
        (m,), c, _, _ = runner.segment(case, mp.Image(image_format=mp.ImageFormat.SRGB, data=y), 0, None)
        linear = cv2.resize(r, (w * s, h * s), interpolation=cv2.INTER_LINEAR)
        corners = align_corners_bilinear(r, h * s, w * s)
        rows.append({"model": model, "modelOutput": [h, w], "imageSize": [h * s, w * s],
                     "confidenceVsOpenCVInterLinear": float(f"{np.abs(m - linear).max():.3g}"),
                     "confidenceVsAlignCornersBilinear": float(f"{np.abs(m - corners).max():.3g}"),
                     "categoryEqualsAlignCornersThreshold": float((c == np.where(corners > 0.5, 0, 255)).mean()),
                     "categoryEqualsConfidenceThreshold": float((c == np.where(m > 0.5, 0, 255)).mean())})
    facts["resize"] = {"what": "max |confidence mask - resize(R)| for R the mask at the model's size, and the category "
                               "mask against thresholds (> 0.5: 0, else 255) of either resize", "cases": rows}
    # 3. Single-class category convention on the selfie models.
    facts["singleClassCategory"] = ("a one-mask model's category mask is 0 where MediaPipe's (align-corners) "
                                    "interpolated confidence is > 0.5 (the person), 255 elsewhere; never 1")
    # 4. The hair model's 4th input channel: the image's alpha does not reach it, and it is 0.
    case = {"id": "hair", "task": "imageSegmenter", "model": HAIR, "kind": "image", "options": BOTH}
    face = np.array(mp.Image.create_from_file(os.path.join(shared, "images", "face_day13.jpg")).numpy_view())
    rgb, _, _, _ = runner.segment(case, mp.Image(image_format=mp.ImageFormat.SRGB, data=np.ascontiguousarray(face)), 0, None)
    alpha = {}
    for value in (0, 128, 255):
        rgba = np.ascontiguousarray(np.concatenate([face, np.full(face.shape[:2] + (1,), value, np.uint8)], 2))
        got, _, _, _ = runner.segment(case, mp.Image(image_format=mp.ImageFormat.SRGBA, data=rgba), 0, None)
        alpha[str(value)] = float(max(np.abs(a - b).max() for a, b in zip(got, rgb)))
    facts["hairFourthChannel"] = {"maxAbsRGBAWithAlphaVsRGB": alpha, "liteRT": hair_litert(shared, tmp)}
    # 5. The same network labelled background/foreground (the stand-in) in the plain Image Segmenter: the image's
    # alpha is its 4th channel (MediaPipe zeroes it for the hair model only), and 1.2.3 refuses an RGB image.
    case = {"id": "standin", "task": "imageSegmenter", "model": STANDIN, "kind": "image", "options": BOTH}
    standin = {}
    for value in (0, 255):
        rgba = np.ascontiguousarray(np.concatenate([face, np.full(face.shape[:2] + (1,), value, np.uint8)], 2))
        standin[value], _, _, _ = runner.segment(case, mp.Image(image_format=mp.ImageFormat.SRGBA, data=rgba), 0, None)
    try:
        runner.segment(case, mp.Image(image_format=mp.ImageFormat.SRGB, data=np.ascontiguousarray(face)), 0, None)
        rgb_answer = "runs"
    except Exception as e:  # noqa: BLE001 (the refusal is the fact)
        rgb_answer = f"{type(e).__name__}: {' '.join(str(e).split())[-260:]}"
    facts["fourChannelStandinInImageSegmenter"] = {
        "image": "face_day13.jpg + a constant alpha",
        "maxAbsAlpha0VsAlpha255": float(f"{max(np.abs(a - b).max() for a, b in zip(standin[0], standin[255])):.3g}"),
        "foregroundMeanAlpha0": float(f"{standin[0][1].mean():.4g}"),
        "foregroundMeanAlpha255": float(f"{standin[255][1].mean():.4g}"),
        "rgbImage": rgb_answer}
    runner.close()
    return facts


LITERT_SNIPPET = r"""
import sys, numpy as np
from ai_edge_litert.interpreter import Interpreter
model, pixels, out = sys.argv[1:4]
it = Interpreter(model_path=model); it.allocate_tensors()
i, o = it.get_input_details()[0], it.get_output_details()[0]
x = np.load(pixels).astype(np.float32) / 255.0
res = []
for fourth in (0.0, 1.0):
    it.set_tensor(i["index"], np.concatenate([x, np.full(x.shape[:2] + (1,), fourth, np.float32)], 2)[None]); it.invoke()
    y = it.get_tensor(o["index"])[0]; e = np.exp(y - y.max(-1, keepdims=True)); res.append(e / e.sum(-1, keepdims=True))
np.save(out, np.stack(res))
"""


def hair_litert(shared, tmp):
    """MediaPipe's hair masks on a 512x512 picture (the model's size: no resize either way) against LiteRT's softmax
    output with the 4th channel 0 and 1 (RGB / 255, the metadata's normalization)."""
    import cv2
    python = os.path.join(common.ROOT, ".cache", "venv", "bin", "python")
    if not os.path.exists(python):
        return "not checked (.cache/venv missing)"
    cat = np.array(mp.Image.create_from_file(os.path.join(shared, "images", "coral_cat.png")).numpy_view())[:, :, :3]
    x = np.ascontiguousarray(cv2.resize(cat, (512, 512), interpolation=cv2.INTER_AREA))
    np.save(os.path.join(tmp, "hair_in.npy"), x)
    done = subprocess.run([python, "-c", LITERT_SNIPPET, common.model_path(HAIR, shared=shared),
                           os.path.join(tmp, "hair_in.npy"), os.path.join(tmp, "hair_out.npy")], capture_output=True,
                          text=True)
    if done.returncode != 0:
        return f"not checked (LiteRT failed: {done.stderr.strip().splitlines()[-1:]})"
    runner = Runner(shared)
    case = {"id": "hair", "task": "imageSegmenter", "model": HAIR, "kind": "image", "options": BOTH}
    masks, _, _, _ = runner.segment(case, mp.Image(image_format=mp.ImageFormat.SRGB, data=x), 0, None)
    runner.close()
    got = np.stack(masks, -1)
    want = np.load(os.path.join(tmp, "hair_out.npy"))
    return {"image": "coral_cat.png resized to 512x512 (OpenCV INTER_AREA)",
            "maxAbsVsLiteRTFourthChannel0": float(f"{np.abs(got - want[0]).max():.3g}"),
            "maxAbsVsLiteRTFourthChannel1": float(f"{np.abs(got - want[1]).max():.3g}")}


# ---------------------------------------------------------------- the cache

def case_key(case, shared):
    h = hashlib.sha256()
    for path in (os.path.abspath(__file__), os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                         "mediapipe_task_common.py")):
        with open(path, "rb") as f:
            h.update(f.read())
    h.update(json.dumps(case, sort_keys=True).encode())
    h.update(common.sha256_file(common.model_path(case["model"], shared=shared)).encode())
    source = os.path.join(shared, "videos", case["clip"]) if case["kind"] == "video" else \
        os.path.join(shared, "images", case["image"])
    h.update(common.sha256_file(source).encode())
    return h.hexdigest()


def spread(mine_dir, theirs_dir, file):
    a, b = np.load(os.path.join(mine_dir, file)), np.load(os.path.join(theirs_dir, file))
    out = {"shapesMatch": all(a[k].shape == b[k].shape for k in a.files) and set(a.files) == set(b.files)}
    if not out["shapesMatch"]:
        return out
    if "confidence_masks" in a.files:
        d = np.abs(a["confidence_masks"] - b["confidence_masks"])
        out["confidenceMaxAbs"] = [float(f"{v:.3g}") for v in d.reshape(d.shape[0], -1).max(1)]
        out["confidenceMeanAbs"] = [float(f"{v:.3g}") for v in d.reshape(d.shape[0], -1).mean(1)]
    if "category_mask" in a.files:
        out["categoryEqualFraction"] = float((a["category_mask"] == b["category_mask"]).mean())
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=None)
    ap.add_argument("--mp01014", default=common.MP01014)
    ap.add_argument("--out", default=os.path.join(common.ROOT, ".cache", "mediapipe-goldens", "segmenter"))
    ap.add_argument("--force", action="store_true", help="make every case again")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    shared = common.shared_dir(a.shared)
    if a.worker:
        return worker(shared)
    assert mp.__version__ == "1.2.3", "run under MediaPipe 1.2.3 (.cache/mediapipe-1.2.3/bin/python)"
    start = time.time()
    os.makedirs(a.out, exist_ok=True)
    index_path = os.path.join(a.out, "index.json")
    index = {}
    if os.path.exists(index_path) and not a.force:
        with open(index_path) as f:
            index = json.load(f)
    old = {c["id"]: c for c in index.get("cases", [])}
    cases = plan()
    keys = {c["id"]: case_key(c, shared) for c in cases}

    def current(case):
        entries = [e for e in old.values() if e["id"] == case["id"] or e["id"].startswith(case["id"] + "#")]
        return entries and all(e.get("key") == keys[case["id"]] and os.path.exists(os.path.join(a.out, e["file"]))
                               for e in entries)
    stale = [c for c in cases if not current(c)]
    key_of_file = json.dumps(sorted(keys.values()))
    conventions_key = hashlib.sha256(key_of_file.encode()).hexdigest()
    if not stale and index.get("conventionsKey") == conventions_key:
        print(f"ok       {os.path.relpath(a.out)}: {len(old)} masks current")
        return
    common.log(f"{len(stale)} of {len(cases)} cases to make")
    made = {}
    with tempfile.TemporaryDirectory(prefix="segmenter-goldens-") as tmp:
        theirs_dir = os.path.join(tmp, "v0")
        os.makedirs(theirs_dir)
        runner = Runner(shared)
        for case in stale:
            for m in runner.run(case, a.out, tmp):
                made[m["id"]] = (case, m)
        runner.close()
        common.log(f"1.2.3: {len(made)} masks in {time.time() - start:.0f} s")
        second, theirs = None, {}
        if os.path.exists(a.mp01014) and stale:
            try:
                got = common.call_worker(a.mp01014, os.path.abspath(__file__), ["--shared", shared],
                                         {"cases": stale, "outdir": theirs_dir})
                second = got["version"]
                theirs = {m["id"]: m for ms in got["results"] for m in ms}
                common.log(f"{second}: done at {time.time() - start:.0f} s")
            except SystemExit as e:  # the cross-check is a record, not the truth: 1.2.3's masks stand without it
                common.log(f"no 0.10.14 cross-check: {e}")
        for case_id, (case, m) in made.items():
            t = theirs.get(case_id)
            entry = {"id": case_id, "file": m["file"], "key": keys[case["id"]], "task": case["task"],
                     "model": case["model"],
                     "modelSha256": common.sha256_file(common.model_path(case["model"], shared=shared)),
                     "runningMode": "VIDEO" if case["kind"] == "video" else "IMAGE", "image": m["image"],
                     "width": m["width"], "height": m["height"], "timestampMs": m["timestampMs"],
                     "options": case["options"]}
            if case["kind"] == "rot":
                entry.update(rot90k=case["k"], rotationDegrees=90 * case["k"])
            if case["kind"] == "exif":
                entry.update(exifOrientation=case["n"], exifSegmentHex=common.app1_exif_orientation(case["n"]).hex(),
                             appliedTransform=common.EXIF_TRANSFORMS[case["n"]])
            if "roi" in case:
                entry["regionOfInterest"] = case["roi"]
            entry.update({k: m[k] for k in ("labels", "qualityScores", "confidenceMaskShape", "confidenceMaskCount",
                                             "categoryMaskShape", "categoryValues")})
            if t is not None:
                assert t["pixels"] == m["pixels"], f"the versions see different pixels: {case_id}"
                entry["spread_0_10_14"] = spread(a.out, theirs_dir, m["file"])
                entry["labels_0_10_14"] = t["labels"]
            else:
                entry["spread_0_10_14"] = None
            old[case_id] = entry
        facts = index.get("conventions") if index.get("conventionsKey") == conventions_key else None
        if facts is None:
            facts = conventions(shared, tmp)
    wanted = {e["id"] for c in cases for e in old.values()
              if e["id"] == c["id"] or e["id"].startswith(c["id"] + "#")}
    entries = [old[i] for i in sorted(wanted)]
    for stray in set(os.listdir(a.out)) - {e["file"] for e in entries} - {"index.json"}:
        if stray.endswith(".npz"):
            os.remove(os.path.join(a.out, stray))
    index = {"generator": "tools/mediapipe_segmenter_goldens.py", "mediapipeVersion": mp.__version__,
             "secondVersion": second or index.get("secondVersion"), "conventionsKey": conventions_key,
             "conventions": facts, "cases": entries}
    with open(index_path + ".partial", "w") as f:
        json.dump(index, f, indent=1)
        f.write("\n")
    os.replace(index_path + ".partial", index_path)
    size = sum(os.path.getsize(os.path.join(a.out, e["file"])) for e in entries)
    print(f"wrote    {os.path.relpath(a.out)}: {len(made)} of {len(entries)} masks made, {size / 1e6:.1f} MB, "
          f"{time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
