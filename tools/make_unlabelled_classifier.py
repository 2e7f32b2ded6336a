#!/usr/bin/env python3
"""MobileNet v1 0.25 (Models/mobilenet_v1_0.25_128_quant.tflite) with its TFLite metadata and packed label file
removed: the kind of classifier Coral and older converters ship, which needs a label file beside it
(Models/imagenet_labels.txt, index 0 = background). The ML Kit tests use it for `LocalModel(path:labelsPath:)` and
for the refusal of a classifier without labels.

Usage: .cache/venv/bin/python tools/make_unlabelled_classifier.py [--models Models] [--out .cache/fixtures]
Writes only what is missing or older than this script.
"""
import argparse
import os

import flatbuffers
from ai_edge_litert import schema_py_generated as schema


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="Models")
    parser.add_argument("--out", default=os.path.join(".cache", "fixtures"))
    args = parser.parse_args()
    source = os.path.join(args.models, "mobilenet_v1_0.25_128_quant.tflite")
    target = os.path.join(args.out, "mobilenet_v1_0.25_128_quant_no_metadata.tflite")
    if os.path.exists(target) and os.path.getmtime(target) > max(os.path.getmtime(__file__), os.path.getmtime(source)):
        print(f"ok       {target}")
        return
    os.makedirs(args.out, exist_ok=True)
    model = schema.ModelT.InitFromPackedBuf(open(source, "rb").read(), 0)
    # Packing the object tree again drops the zip appended after the flatbuffer; the metadata entries point at a
    # buffer, which is emptied, and go.
    for entry in model.metadata or []:
        model.buffers[entry.buffer].data = None
    model.metadata = None
    builder = flatbuffers.Builder(1 << 20)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    with open(target + ".partial", "wb") as f:
        f.write(bytes(builder.Output()))
    os.replace(target + ".partial", target)
    print(f"wrote    {target}")


if __name__ == "__main__":
    main()
