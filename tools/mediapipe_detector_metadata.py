#!/usr/bin/env python3
"""MediaPipe's object detector metadata as MediaPipe's own generated reader reads it: the truth for our
ObjectDetectorMetadata parser (Sources/ModelFormat/ObjectDetectorMetadata.swift).

    .cache/venv/bin/python tools/mediapipe_detector_metadata.py [--mediapipe .cache/mediapipe-1.2.3] \
        [--out Tests/Fixtures/detector_metadata_reference.json] MODEL...

For each model, the subgraph's custom metadata entry DETECTOR_METADATA (an ObjectDetectorOptions flatbuffer, file
identifier V001) read with MediaPipe 1.2.3's object_detector_metadata_schema_py_generated.py (and the TFLite schema
and metadata readers beside it): {model, entryBytes, minParserVersion, decoding {every TensorsDecodingOptions field,
camelCase}, anchorCount, anchorsSHA256 (of every anchor's x_center, y_center, width, height as little-endian float32,
in order), firstAnchors / lastAnchor (exact float32 values)}. Deterministic.
"""
import argparse
import glob
import hashlib
import json
import os
import struct
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mediapipe", default=os.path.join(ROOT, ".cache", "mediapipe-1.2.3"))
    ap.add_argument("--out", default=os.path.join(ROOT, "Tests", "Fixtures", "detector_metadata_reference.json"))
    ap.add_argument("models", nargs="+")
    a = ap.parse_args()
    found = glob.glob(os.path.join(a.mediapipe, "lib", "python3*", "site-packages", "mediapipe", "tasks", "metadata"))
    if not found:
        sys.exit(f"no MediaPipe metadata readers under {a.mediapipe} (tools/setup installs MediaPipe 1.2.3 there)")
    sys.path.insert(0, found[0])
    import metadata_schema_py_generated as M  # noqa: E402
    import object_detector_metadata_schema_py_generated as O  # noqa: E402
    import schema_py_generated as S  # noqa: E402

    entries = []
    for path in a.models:
        data = open(path, "rb").read()
        model = S.Model.GetRootAsModel(data, 0)
        buffer = None
        for i in range(model.MetadataLength()):
            if model.Metadata(i).Name() == b"TFLITE_METADATA":
                buffer = model.Buffers(model.Metadata(i).Buffer()).DataAsNumpy().tobytes()
        subgraph = M.ModelMetadata.GetRootAsModelMetadata(buffer, 0).SubgraphMetadata(0)
        blob = None
        for i in range(subgraph.CustomMetadataLength()):
            if subgraph.CustomMetadata(i).Name() == b"DETECTOR_METADATA":
                blob = subgraph.CustomMetadata(i).DataAsNumpy().tobytes()
        options = O.ObjectDetectorOptions.GetRootAsObjectDetectorOptions(blob, 0)
        t = options.TensorsDecodingOptions()
        schema = options.SsdAnchorsOptions().FixedAnchorsSchema()
        anchors = [schema.Anchors(k) for k in range(schema.AnchorsLength())]
        values = [(x.XCenter(), x.YCenter(), x.Width(), x.Height()) for x in anchors]
        packed = b"".join(struct.pack("<4f", *v) for v in values)
        entries.append({
            "model": os.path.basename(path),
            "entryBytes": len(blob),
            "minParserVersion": (options.MinParserVersion() or b"").decode(),
            "decoding": {
                "classCount": t.NumClasses(), "boxCount": t.NumBoxes(), "coordinateCount": t.NumCoords(),
                "keypointCoordinateOffset": t.KeypointCoordOffset(), "keypointCount": t.NumKeypoints(),
                "valuesPerKeypoint": t.NumValuesPerKeypoint(), "xScale": t.XScale(), "yScale": t.YScale(),
                "widthScale": t.WScale(), "heightScale": t.HScale(),
                "appliesExponentialOnBoxSize": bool(t.ApplyExponentialOnBoxSize()), "appliesSigmoidToScores": bool(t.SigmoidScore()),
            },
            "anchorCount": len(values),
            "anchorsSHA256": hashlib.sha256(packed).hexdigest(),
            # Float32 values as the shortest decimals that read back to them (Python's repr of the float32 widened).
            "firstAnchors": [list(v) for v in values[:3]],
            "lastAnchor": list(values[-1]),
        })
    with open(a.out, "w") as f:
        json.dump({"generator": "tools/mediapipe_detector_metadata.py", "reader": "MediaPipe 1.2.3's generated flatbuffer readers",
                   "entries": entries}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
