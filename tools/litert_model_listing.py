#!/usr/bin/env python3
"""Write what LiteRT itself reports about every model we ship: the fixture the Format tests check against.

For every .tflite file in the models folder and every .tflite member of every .task bundle (nested bundles
included), LiteRT's Python interpreter lists the main subgraph's inputs, outputs, tensors and operators. Our own
reader must report the same; this script is the outside truth and never uses our code.

Usage: pip install ai-edge-litert numpy
       python3 tools/litert_model_listing.py [MODELS_DIR]   # writes Tests/Fixtures/litert_model_listing.json.zip
MODELS_DIR defaults to Models/ (filled by tools/fetch-models).
"""
import io
import os
import json
import sys
import zipfile

import numpy as np
from ai_edge_litert.interpreter import Interpreter, OpResolverType

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture_zip  # noqa: E402


def dtype_name(dtype):
    return np.dtype(dtype).name if dtype is not np.object_ else "string"


def tensor_entry(detail):
    params = detail["quantization_parameters"]
    return {
        "name": detail["name"],
        "type": dtype_name(detail["dtype"]),
        "shape": [int(d) for d in detail["shape"]],
        "shapeSignature": [int(d) for d in detail["shape_signature"]],
        "scale": [float(s) for s in params["scales"]],
        "zeroPoint": [int(z) for z in params["zero_points"]],
        "quantizedDimension": int(params["quantized_dimension"]),
    }


def custom_options(content):
    """Custom operators' options as stored, read with LiteRT's own generated schema code; FlexBuffers decoded by
    the flatbuffers package's reference FlexBuffers reader (None when the options are not a FlexBuffer)."""
    from ai_edge_litert import schema_py_generated as schema
    from flatbuffers import flexbuffers
    model = schema.Model.GetRootAsModel(content, 0)
    graph = model.Subgraphs(0)
    found = []
    for index in range(graph.OperatorsLength()):
        op = graph.Operators(index)
        code = model.OperatorCodes(op.OpcodeIndex())
        if not code.CustomCode():
            continue
        raw = bytes(op.CustomOptionsAsNumpy()) if op.CustomOptionsLength() else b""
        try:
            decoded = flexbuffers.Loads(raw)
        except Exception:  # noqa: BLE001 — not every custom operator uses FlexBuffers
            decoded = None
        found.append({"operator": index, "code": code.CustomCode().decode(), "hex": raw.hex(), "flex": decoded})
    return found


def associated_files(content):
    """Files packed after the flatbuffer, read with Python's zipfile (which allows data before the archive)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(content))
    except zipfile.BadZipFile:
        return {}
    files = {}
    for info in archive.infolist():
        lines = archive.read(info).decode("utf-8").splitlines()
        while lines and not lines[-1]:
            lines.pop()
        files[info.filename] = {"lines": len(lines), "first": lines[0] if lines else "", "last": lines[-1] if lines else ""}
    return files


def metadata_names(content):
    from ai_edge_litert import schema_py_generated as schema
    model = schema.Model.GetRootAsModel(content, 0)
    return [model.Metadata(i).Name().decode() for i in range(model.MetadataLength())]


def describe(content):
    # No default delegate: we want the graph as stored, not as XNNPACK rewrites it.
    interpreter = Interpreter(
        model_content=content,
        experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    tensors = {}
    for detail in interpreter.get_tensor_details():
        tensors[int(detail["index"])] = tensor_entry(detail)
    ops = interpreter._get_ops_details()  # LiteRT's own per-operator listing (the one its analyzer prints)
    histogram = {}
    for op in ops:
        histogram[op["op_name"]] = histogram.get(op["op_name"], 0) + 1
    return {
        "inputs": [tensor_entry(d) for d in interpreter.get_input_details()],
        "outputs": [tensor_entry(d) for d in interpreter.get_output_details()],
        # Compact rows: index, name, type, shape.
        "tensors": [[i, t["name"], t["type"], t["shape"]] for i, t in sorted(tensors.items())],
        "operators": [[op["op_name"], [int(x) for x in op["inputs"]], [int(x) for x in op["outputs"]]] for op in ops],
        "histogram": histogram,
        "customOptions": custom_options(content),
        "associatedFiles": associated_files(content),
        "metadata": metadata_names(content),
    }


def walk_bundle(data, prefix, out):
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            member = archive.read(info)
            path = prefix + info.filename
            if info.filename.endswith(".task"):
                walk_bundle(member, path + "/", out)
            elif member[4:8] == b"TFL3":
                out[path] = describe(member)


def main():
    import os
    models_dir = sys.argv[1] if len(sys.argv) > 1 else "Models"
    listing = {}
    for name in sorted(os.listdir(models_dir)):
        path = os.path.join(models_dir, name)
        data = open(path, "rb").read()
        if name.endswith(".task"):
            members = {}
            walk_bundle(data, "", members)
            listing[name] = members
        elif name.endswith(".tflite"):
            listing[name] = {name: describe(data)}
    import ai_edge_litert
    text = json.dumps({"generator": "tools/litert_model_listing.py", "litert": getattr(ai_edge_litert, "__version__", "unknown"),
                       "models": listing}, separators=(",", ":")) + "\n"
    # Over 1 MiB as text since the segmenters' and detectors' models joined: kept deflated (tools/fixture_zip.py).
    fixture_zip.write(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures",
                                   "litert_model_listing.json.zip"), text)


if __name__ == "__main__":
    main()
