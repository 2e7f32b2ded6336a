#!/usr/bin/env python3
"""Runs every model of the corpus (tools/make_model_corpus.py) with ours (`vision-tasks model run`) and with LiteRT
on the same photo, and says for each: does ours run it, or which operator does it refuse; do the outputs match.

The input is one photo from ../shared/images (PHOTOS: one that suits the task), resized with Pillow's bilinear
filter to the input size and mapped linearly from [0, 255] to the model's input range (its manifest's
input_range); an int8 or uint8 input is that value quantized with the input tensor's scale and zero point.

LiteRT runs it in five CPU configurations: XNNPACK (OpResolverType.AUTO, the default a user gets) at 1 and 2
threads, the builtin kernels at 1 and 2 threads, and the reference kernels. Ours runs at 1 and 2 threads.
- float models, per output: `error` = max |ours − builtin 1 thread| / max(1, |builtin|) (and the absolute max
  difference), `nearest` = the same against the closest LiteRT configuration, `spread` = the largest such
  distance between two LiteRT configurations. It matches when error ≤ 1e-4 or nearest ≤ spread: as close to
  LiteRT as LiteRT's own configurations are to each other — EngineTests.LiteRTGoldenTests' end-to-end bound.
- quantized models, per output: how many elements differ from LiteRT with XNNPACK at 1 thread and by how many
  steps at most (the largest |difference| in LSB); it matches when none differs (the engine's rule: byte-identical
  to LiteRT's XNNPACK path). The differences from the builtin kernels are listed too, for information.
- ours at 1 and 2 threads must agree bit for bit.
- an output LiteRT gives as one or two distinct values is flagged DEGENERATE: matching it proves little.

Usage (the venv with ai_edge_litert and Pillow; our CLI built: `. tools/tuned-build-env; swift build -c release
--product vision-tasks`):
    .cache/venv/bin/python tools/compare_model_corpus.py [--corpus .cache/model-corpus] [--shared ../shared]
        [--cli .build/release/vision-tasks] [--json OUT.json] [NAME ...]
Prints a markdown table.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image
from ai_edge_litert.interpreter import Interpreter, OpResolverType

HERE = os.path.dirname(os.path.abspath(__file__))
PHOTOS = {"yolov8n_like": "obj_street_people.jpg", "movenet_like": "pose1.jpg", "mobilenet_v3_large": "coral_bird.png",
          "efficientnet_v2_b0": "coral_cat.png", "deeplab_v3": "obj_kitchen_people.jpg", "unet": "face_group.jpg",
          "espcn_x3": "face_day13.jpg", "midas_like": "obj_kitchen_empty.jpg"}
CONFIGS = [("XNNPACK 1t", OpResolverType.AUTO, 1), ("XNNPACK 2t", OpResolverType.AUTO, 2),
           ("builtin 1t", OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES, 1),
           ("builtin 2t", OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES, 2),
           ("reference", OpResolverType.BUILTIN_REF, 1)]


def make_input(shared, manifest, detail):
    photo = PHOTOS.get(manifest["architecture"], "obj_street_people.jpg")
    _, height, width, _ = detail["shape"]
    image = Image.open(os.path.join(shared, "images", photo)).convert("RGB").resize((width, height), Image.BILINEAR)
    low, high = manifest["input_range"]
    value = np.asarray(image, dtype=np.float32)[None] / 255.0 * (high - low) + low
    if detail["dtype"] == np.float32:
        return value.astype(np.float32)
    scale, zero_point = detail["quantization"]
    info = np.iinfo(detail["dtype"])
    return np.clip(np.round(value / scale) + zero_point, info.min, info.max).astype(detail["dtype"])


def litert(path, x, resolver, threads, tmp):
    """LiteRT's outputs in one configuration, or None where it aborts (its reference kernels abort on some int8
    models), run in a forked child so that an abort does not end the comparison."""
    target = os.path.join(tmp, "litert.npz")
    if os.path.exists(target):
        os.remove(target)
    pid = os.fork()
    if pid == 0:
        try:
            interpreter = Interpreter(model_path=path, num_threads=threads, experimental_op_resolver_type=resolver)
            interpreter.allocate_tensors()
            interpreter.set_tensor(interpreter.get_input_details()[0]["index"], x)
            interpreter.invoke()
            outputs = [interpreter.get_tensor(d["index"]) for d in interpreter.get_output_details()]
            np.savez(target, *outputs)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    if not os.path.exists(target):
        return None
    with np.load(target) as archive:
        return [archive[f"arr_{k}"] for k in range(len(archive.files))]


def ours(cli, path, x, threads, tmp):
    """Our outputs, or the error our CLI printed (an unsupported operator is a typed error naming it)."""
    np.save(os.path.join(tmp, "input.npy"), x)
    out = os.path.join(tmp, f"ours{threads}")
    run = subprocess.run([cli, "model", "run", path, "--input", os.path.join(tmp, "input.npy"), "--output-dir", out,
                          "--threads", str(threads)], capture_output=True, text=True)
    if run.returncode != 0:
        return None, (run.stderr.strip() or run.stdout.strip()).splitlines()[-1]
    count = len(glob.glob(os.path.join(out, "output_*.npy")))
    return [np.load(os.path.join(out, f"output_{k}.npy")) for k in range(count)], None


def relative(a, b):
    a, b = a.astype(np.float64), b.astype(np.float64)
    return float((np.abs(a - b) / np.maximum(1, np.abs(b))).max())


def compare(cli, shared, manifest_path, tmp):
    manifest = json.load(open(manifest_path))
    path = os.path.join(os.path.dirname(manifest_path), manifest["model"])
    probe = Interpreter(model_path=path)
    x = make_input(shared, manifest, probe.get_input_details()[0])
    reference = {label: litert(path, x, resolver, threads, tmp) for label, resolver, threads in CONFIGS}
    failed = [label for label, outputs in reference.items() if outputs is None]
    reference = {label: outputs for label, outputs in reference.items() if outputs is not None}
    row = {"model": manifest["model"], "operators": manifest["operators"], "operator_count": manifest["operator_count"],
           "input": f"{PHOTOS.get(manifest['architecture'])} {list(x.shape)} {x.dtype}", "litert_failed": failed}
    mine = {}
    for threads in (1, 2):
        mine[threads], error = ours(cli, path, x, threads, tmp)
        if error:
            row["refused"] = error
            return row
    if "builtin 1t" not in reference or "XNNPACK 1t" not in reference:
        return row
    row["threads_agree"] = all(np.array_equal(a, b) for a, b in zip(mine[1], mine[2]))
    outputs = []
    quantized = manifest["variant"] != "float32"
    for k, golden in enumerate(reference["builtin 1t"]):
        o = mine[1][k].reshape(golden.shape)
        if o.dtype != golden.dtype:
            outputs.append({"output": k, "match": False, "why": f"ours {o.dtype}, LiteRT {golden.dtype}"})
            continue
        if quantized:
            def lsb(other):
                d = np.abs(o.astype(np.int64) - other.astype(np.int64))
                return int(d.max()), int((d != 0).sum())
            steps, count = lsb(reference["XNNPACK 1t"][k])
            steps_builtin, count_builtin = lsb(golden)
            d = np.abs(reference["XNNPACK 1t"][k].astype(np.int64) - golden.astype(np.int64))
            outputs.append({"output": k, "shape": list(golden.shape), "match": count == 0, "max_lsb_xnnpack": steps,
                            "differing_xnnpack": count, "max_lsb_builtin": steps_builtin,
                            "differing_builtin": count_builtin, "xnnpack_vs_builtin_max_lsb": int(d.max()),
                            "elements": int(golden.size), "distinct": int(np.unique(golden).size)})
        else:
            error = relative(o, golden)
            nearest = min(relative(o, r[k]) for r in reference.values())
            spread = max(relative(a[k], b[k]) for a in reference.values() for b in reference.values())
            outputs.append({"output": k, "shape": list(golden.shape), "match": error <= 1e-4 or nearest <= spread,
                            "max_abs": float(np.abs(o.astype(np.float64) - golden).max()), "error": error,
                            "nearest": nearest, "spread": spread,
                            "golden_range": [float(golden.min()), float(golden.max())],
                            "distinct": int(np.unique(golden).size)})
    row["outputs"] = outputs
    row["match"] = all(o["match"] for o in outputs) and row["threads_agree"]
    return row


def summary(row):
    if "refused" in row:
        return "refused: " + row["refused"]
    if "outputs" not in row:
        return "LiteRT failed in every configuration"
    parts = []
    for o in row["outputs"]:
        if "why" in o:
            parts.append(o["why"])
        elif "max_lsb_xnnpack" in o:
            parts.append(f"{o['differing_xnnpack']}/{o['elements']} differ ({o['distinct']} distinct values), ≤{o['max_lsb_xnnpack']} LSB"
                         f" (builtin: {o['differing_builtin']}, ≤{o['max_lsb_builtin']}; XNNPACK vs builtin ≤{o['xnnpack_vs_builtin_max_lsb']})")
        else:
            parts.append(f"abs {o['max_abs']:.2g}, rel {o['error']:.2g}, nearest {o['nearest']:.2g} ≤ spread {o['spread']:.2g}"
                         if o["match"] else f"abs {o['max_abs']:.2g}, rel {o['error']:.2g}, nearest {o['nearest']:.2g} > spread {o['spread']:.2g}")
    # An output LiteRT gives as (nearly) one value proves little: say so rather than count it as a match.
    for o, part in zip(row["outputs"], list(parts)):
        if o.get("distinct", 3) <= 2 < o.get("elements", o["shape"] and int(np.prod(o["shape"]))):
            parts[parts.index(part)] = part + f" (DEGENERATE: LiteRT's output has {o['distinct']} distinct values)"
    verdict = "matches" if row["match"] else "DIFFERS"
    failed = f" (LiteRT failed in: {', '.join(row['litert_failed'])})" if row["litert_failed"] else ""
    return f"{verdict}{'' if row['threads_agree'] else ' (1 vs 2 threads differ)'}: " + "; ".join(parts) + failed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="model stems (e.g. unet_int8); default: all")
    ap.add_argument("--corpus", default=os.path.join(HERE, "..", ".cache", "model-corpus"))
    ap.add_argument("--shared", default=os.path.join(HERE, "..", "..", "shared"))
    ap.add_argument("--cli", default=os.path.join(HERE, "..", ".build", "release", "vision-tasks"))
    ap.add_argument("--json", help="write the rows here")
    args = ap.parse_args()
    manifests = sorted(glob.glob(os.path.join(args.corpus, "*.json")))
    if args.names:
        manifests = [m for m in manifests if os.path.basename(m)[:-5] in args.names]
    if not manifests:
        sys.exit(f"no models in {args.corpus}: run tools/make_model_corpus.py")
    rows = []
    print("| model | operators | ours vs LiteRT |")
    print("| --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for manifest in manifests:
            row = compare(args.cli, args.shared, manifest, tmp)
            rows.append(row)
            ops = ", ".join(f"{n}×{c}" if c > 1 else n for n, _, c in row["operators"])
            print(f"| {row['model']} | {ops} | {summary(row)} |", flush=True)
    if args.json:
        json.dump(rows, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
