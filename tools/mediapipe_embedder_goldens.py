#!/usr/bin/env python3
"""MediaPipe's Image Embedder and its cosine similarity -> Tests/Fixtures/image_embedder_reference.json (issue #45).

    .cache/mediapipe-1.2.3/bin/python tools/mediapipe_embedder_goldens.py [--shared ../shared] \
        [--mp01014 .cache/mediapipe/bin/python] [--out Tests/Fixtures/image_embedder_reference.json]

Runs under MediaPipe 1.2.3 (the truth) and calls itself under 0.10.14 (`--worker`) on the same jobs; about 5 s.
Model: efficientnet_lite0_embedder.tflite (uint8 output [1, 1280], embedder metadata; ../shared/models/MODELS.md).
Inputs are rebuilt from ../shared as tools/mediapipe_task_common.py says.

Entries (each has an "id" the similarities refer to):
- sets "float", "float-l2", "quantized", "quantized-l2": IMAGE mode on the six PHOTOS (hand_two_palms.png is RGBA)
  with options {l2Normalize, quantize} (camelCase as our Swift options; MediaPipe's defaults are both false);
- "roi": coral_cat.png with ImageProcessingOptions.region_of_interest = each of REGIONS (normalized left, top, right,
  bottom; "regionOfInterest"), under float-l2 and quantized-l2 (ids roi/SET/coral_cat.png and roi2/SET/...). MediaPipe
  1.2.3 and 0.10.14 disagree on the first region (float-l2 values up to 0.017 apart, quantized 3 steps, cosine to the
  whole photo 0.8332 vs 0.8344) and agree exactly on the second: 1.2.3 is the truth;
- "rotated": np.rot90(obj_cat.jpg, 1) with rotationDegrees 90, float-l2 and quantized-l2;
- "exif": obj_cat.jpg with an APP1 EXIF orientation 6 segment after SOI (exifSegmentHex), read by 1.2.3's
  create_from_file (shown turned clockwise, 480x640); 0.10.14's column runs on the buffer 1.2.3 shows;
- "video": VIDEO mode, float-l2, the first VIDEO_FRAMES frames of face_head_turning.mp4 (timestamps from the frame
  index and fps).
An entry's "result" (1.2.3) and "result_0_10_14" (the string "same" where 0.10.14's is identical, byte for byte, to
1.2.3's: every entry but the first region's): {"embeddings": [{headIndex, headName, length, floatEmbedding |
quantizedEmbedding}]}: floatEmbedding is base64 of little-endian float32 (MediaPipe's float32 values; Python hands
them out as float64 arrays, every value exactly a float32, which the tool checks), quantizedEmbedding base64 of the
int8 bytes (two's complement; Python hands them out as a uint8 array of the same bytes).

"similarities": [{a, b, value, value_0_10_14}] with a, b entry ids and value what
`ImageEmbedder.cosine_similarity(a, b)` returns (Python float), or {"error": message} where MediaPipe refuses. Both
versions' cosine_similarity is the same Python code: float64 numpy, u.v / (|u| |v|); quantized pairs are read as int8
(`view("int8")`), then float64; a float and a quantized embedding raise ValueError "Cannot compute cosine similarity
between quantized and float embeddings." (recorded as such), as do embeddings of different lengths or a zero norm.
Pairs: all 15 photo pairs within each of the four sets; per photo float vs float-l2 and quantized vs quantized-l2
(allowed: both of a kind), float vs quantized and float-l2 vs quantized-l2 (refused); roi, rotated and exif vs the
upright photo; consecutive video frames.
The header's "spread" is the largest |1.2.3 - 0.10.14| of float embedding values, of quantized values (int8 steps)
and of similarities.
"""
import argparse
import base64
import itertools
import json
import os
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
from mediapipe.tasks.python.components.containers import rect as rect_module  # noqa: E402

MODEL = "efficientnet_lite0_embedder.tflite"
PHOTOS = ["coral_cat.png", "coral_bird.png", "obj_cat.jpg", "obj_street_people.jpg", "face_day13.jpg",
          "hand_two_palms.png"]
SETS = {"float": {"l2Normalize": False, "quantize": False}, "float-l2": {"l2Normalize": True, "quantize": False},
        "quantized": {"l2Normalize": False, "quantize": True}, "quantized-l2": {"l2Normalize": True, "quantize": True}}
# Two regions (normalized left, top, right, bottom): 1.2.3 and 0.10.14 give different embeddings for the first (a few
# uint8 output steps: their region-to-crop conversions differ slightly) and identical ones for the second.
REGIONS = [{"left": 0.1, "top": 0.2, "right": 0.7, "bottom": 0.9}, {"left": 0.1, "top": 0.2, "right": 0.8, "bottom": 0.8}]
CLIP = "face_head_turning.mp4"
VIDEO_FRAMES = 3


def embedding_json(e):
    v = np.asarray(e.embedding)
    out = {"headIndex": e.head_index, "headName": e.head_name, "length": int(v.size)}
    if v.dtype == np.uint8:
        out["quantizedEmbedding"] = common.b64(v.astype(np.uint8).view(np.int8))
    else:
        f = v.astype("<f4")
        assert np.array_equal(f.astype(np.float64), v), "a float embedding value is not a float32"
        out["floatEmbedding"] = common.b64(f)
    return out


class Runner:
    def __init__(self, shared):
        self.shared, self.embedders = shared, {}

    def embedder(self, options, mode):
        key = (json.dumps(options, sort_keys=True), mode)
        if key not in self.embedders:
            self.embedders[key] = vision.ImageEmbedder.create_from_options(vision.ImageEmbedderOptions(
                base_options=mpt.BaseOptions(model_asset_path=common.model_path(MODEL, shared=self.shared)),
                running_mode=mode, l2_normalize=options["l2Normalize"], quantize=options["quantize"]))
        return self.embedders[key]

    def close(self):
        for e in self.embedders.values():
            e.close()
        self.embedders = {}

    def run(self, job):
        """(raw MediaPipe result, JSON) per job; video jobs give one per frame."""
        if job["kind"] == "video":
            embedder = self.embedder(job["options"], vision.RunningMode.VIDEO)
            out = []
            for name, pixels, ts in common.video_frames(os.path.join(self.shared, "videos", CLIP), VIDEO_FRAMES):
                image = mp.Image(image_format=mp.ImageFormat.SRGB, data=pixels)
                out.append((name, image, ts, embedder.embed_for_video(image, ts)))
            return out
        path = os.path.join(self.shared, "images", job["image"])
        degrees, region = 0, None
        if job["kind"] == "exif":
            tagged = os.path.join(job["tmp"], f"exif{job['n']}_{job['image']}")
            with open(path, "rb") as src, open(tagged, "wb") as dst:
                dst.write(common.exif_tagged(src.read(), job["n"]))
            image = mp.Image.create_from_file(tagged)
            if mp.__version__.startswith("0."):  # 0.10.x ignores the tag: turn the buffer as 1.x shows it
                pixels = common.transform(np.array(image.numpy_view()), common.EXIF_TRANSFORMS[job["n"]])
                image = mp.Image(image_format=image.image_format, data=np.ascontiguousarray(pixels))
        else:
            image = mp.Image.create_from_file(path)
            if job["kind"] == "rot":
                pixels = np.ascontiguousarray(np.rot90(np.array(image.numpy_view()), job["k"]))
                image = mp.Image(image_format=image.image_format, data=pixels)
                degrees = 90 * job["k"]
            if job["kind"] == "roi":
                # 1.x: RectF (normalized floats; its Rect is integer pixels); 0.10.x: Rect of normalized floats.
                make = getattr(rect_module, "RectF", rect_module.Rect)
                region = make(**job["region"])
        embedder = self.embedder(job["options"], vision.RunningMode.IMAGE)
        options = None
        if degrees or region:
            options = vision.ImageProcessingOptions(rotation_degrees=degrees, region_of_interest=region)
        result = embedder.embed(image, options) if options else embedder.embed(image)
        return [(job["image"], image, None, result)]


def similarity(a, b):
    try:
        return {"value": float(vision.ImageEmbedder.cosine_similarity(a, b))}
    except Exception as e:  # noqa: BLE001 (a refusal is part of the record)
        return {"error": f"{type(e).__name__}: {e}"}


def run_all(shared, jobs, pairs):
    """Entries' JSON (one per job, or per frame) and the similarities of pairs (ids), under this version."""
    runner = Runner(shared)
    results, raw = [], {}
    for job in jobs:
        for i, (name, image, ts, r) in enumerate(runner.run(job)):
            entry_id = job["id"] if job["kind"] != "video" else f"{job['id']}#{i}"
            raw[entry_id] = r.embeddings[0]
            results.append({"id": entry_id, "image": name, "width": image.width, "height": image.height,
                            "timestampMs": ts, "pixels": common.digest(image.numpy_view()),
                            "result": {"embeddings": [embedding_json(e) for e in r.embeddings]}})
    sims = [similarity(raw[a], raw[b]) for a, b in pairs]
    runner.close()
    return results, sims


def worker(shared):
    request = json.load(sys.stdin)
    results, sims = run_all(shared, request["jobs"], request["pairs"])
    json.dump({"version": mp.__version__, "results": results, "similarities": sims}, sys.stdout)


def plan(tmp):
    jobs, pairs = [], []
    for set_name, options in SETS.items():
        for name in PHOTOS:
            jobs.append({"id": f"{set_name}/{name}", "set": set_name, "kind": "image", "image": name, "options": options})
        pairs += [(f"{set_name}/{a}", f"{set_name}/{b}") for a, b in itertools.combinations(PHOTOS, 2)]
    for name in PHOTOS:
        pairs += [(f"float/{name}", f"float-l2/{name}"), (f"quantized/{name}", f"quantized-l2/{name}"),
                  (f"float/{name}", f"quantized/{name}"), (f"float-l2/{name}", f"quantized-l2/{name}")]
    for set_name in ("float-l2", "quantized-l2"):
        options = SETS[set_name]
        for i, region in enumerate(REGIONS):
            roi_id = f"roi{i + 1 if i else ''}/{set_name}/coral_cat.png"
            jobs.append({"id": roi_id, "set": "roi", "kind": "roi", "image": "coral_cat.png", "options": options,
                         "region": region})
            pairs.append((roi_id, f"{set_name}/coral_cat.png"))
        jobs.append({"id": f"rotated/{set_name}/obj_cat.jpg", "set": "rotated", "kind": "rot", "image": "obj_cat.jpg",
                     "k": 1, "options": options})
        jobs.append({"id": f"exif/{set_name}/obj_cat.jpg", "set": "exif", "kind": "exif", "image": "obj_cat.jpg",
                     "n": 6, "tmp": tmp, "options": options})
        pairs += [(f"rotated/{set_name}/obj_cat.jpg", f"{set_name}/obj_cat.jpg"),
                  (f"exif/{set_name}/obj_cat.jpg", f"{set_name}/obj_cat.jpg"),
                  (f"exif/{set_name}/obj_cat.jpg", f"rotated/{set_name}/obj_cat.jpg")]
    jobs.append({"id": "video/float-l2", "set": "video", "kind": "video", "options": SETS["float-l2"]})
    pairs += [(f"video/float-l2#{i}", f"video/float-l2#{i + 1}") for i in range(VIDEO_FRAMES - 1)]
    return jobs, pairs


def decode(e):
    if "floatEmbedding" in e:
        return np.frombuffer(base64.b64decode(e["floatEmbedding"]), "<f4").astype(np.float64)
    return np.frombuffer(base64.b64decode(e["quantizedEmbedding"]), np.int8).astype(np.float64)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", default=None)
    ap.add_argument("--mp01014", default=common.MP01014)
    ap.add_argument("--out", default=os.path.join(common.ROOT, "Tests", "Fixtures", "image_embedder_reference.json"))
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    shared = common.shared_dir(a.shared)
    if a.worker:
        return worker(shared)
    assert mp.__version__ == "1.2.3", "run under MediaPipe 1.2.3 (.cache/mediapipe-1.2.3/bin/python)"
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="embedder-goldens-") as tmp:
        jobs, pairs = plan(tmp)
        mine, sims = run_all(shared, jobs, pairs)
        common.log(f"1.2.3: {len(mine)} embeddings in {time.time() - start:.0f} s")
        theirs = common.call_worker(a.mp01014, os.path.abspath(__file__), ["--shared", shared],
                                    {"jobs": jobs, "pairs": pairs})
        common.log(f"{theirs['version']}: done at {time.time() - start:.0f} s")

    meta = {}
    for job in jobs:
        m = {k: v for k, v in job.items() if k not in ("kind", "tmp", "id", "n", "k", "region")}
        if job["kind"] == "roi":
            m["regionOfInterest"] = job["region"]
        if job["kind"] == "rot":
            m.update(rot90k=job["k"], rotationDegrees=90 * job["k"])
        if job["kind"] == "exif":
            m.update(exifOrientation=job["n"], exifSegmentHex=common.app1_exif_orientation(job["n"]).hex(),
                     appliedTransform=common.EXIF_TRANSFORMS[job["n"]])
        meta[job["id"]] = m
    entries, spread = [], {"maxAbsFloat": 0.0, "maxAbsQuantized": 0, "maxAbsSimilarity": 0.0}
    for r123, r0 in zip(mine, theirs["results"]):
        assert r123["id"] == r0["id"] and r123["pixels"] == r0["pixels"], f"the versions see different inputs: {r123['id']}"
        base = meta[r123["id"].split("#")[0]]
        e = {"id": r123["id"], **base, "runningMode": "VIDEO" if base["set"] == "video" else "IMAGE",
             "image": r123["image"], "width": r123["width"], "height": r123["height"], "timestampMs": r123["timestampMs"],
             "result": r123["result"], "result_0_10_14": "same" if r0["result"] == r123["result"] else r0["result"]}
        for x, y in zip(r123["result"]["embeddings"], r0["result"]["embeddings"]):
            d = float(np.abs(decode(x) - decode(y)).max())
            key = "maxAbsFloat" if "floatEmbedding" in x else "maxAbsQuantized"
            spread[key] = max(spread[key], d)
        entries.append(e)
    similarities = []
    for (a_id, b_id), s123, s0 in zip(pairs, sims, theirs["similarities"]):
        s = {"a": a_id, "b": b_id, **s123}
        s["value_0_10_14" if "value" in s0 else "error_0_10_14"] = s0.get("value", s0.get("error"))
        if "value" in s123 and "value" in s0:
            spread["maxAbsSimilarity"] = max(spread["maxAbsSimilarity"], abs(s123["value"] - s0["value"]))
        similarities.append(s)
    spread = {"maxAbsFloat": float(f"{spread['maxAbsFloat']:.3g}"), "maxAbsQuantized": int(spread["maxAbsQuantized"]),
              "maxAbsSimilarity": float(f"{spread['maxAbsSimilarity']:.3g}")}
    header = {"task": "imageEmbedder", "model": MODEL, "mediapipeVersion": mp.__version__,
              "result_0_10_14": theirs["version"], "generator": "tools/mediapipe_embedder_goldens.py",
              "sha256": common.sha256_file(common.model_path(MODEL, shared=shared)), "spread": spread}
    with open(a.out, "w") as f:
        f.write("{\n")
        for key, value in header.items():
            f.write(f" {json.dumps(key)}: {json.dumps(value, separators=(',', ':'))},\n")
        f.write(' "entries": [\n' + ",\n".join("  " + json.dumps(e, separators=(",", ":")) for e in entries) + "\n ],\n")
        f.write(' "similarities": [\n' + ",\n".join("  " + json.dumps(s, separators=(",", ":")) for s in similarities)
                + "\n ]\n}\n")
    common.log(f"spread 1.2.3 vs {theirs['version']}: {json.dumps(spread)}")
    common.log(f"wrote {os.path.relpath(a.out)}: {len(entries)} entries, {len(similarities)} similarities, "
               f"{os.path.getsize(a.out)} bytes, {time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
