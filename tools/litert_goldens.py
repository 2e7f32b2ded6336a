#!/usr/bin/env python3
"""Per-operator goldens for the engine tests, computed by LiteRT's interpreter (the outside truth).

For every float model member we run, LiteRT runs it on a real input made from ../shared (an image resized to the
input size and scaled to the model's range, or landmarks from MediaPipe's reference JSON), with
experimental_preserve_all_tensors so that every operator's inputs and outputs can be read back. One .npz per
member is written to the cache directory: arrays `t<index>` for every tensor an operator produces or the graph
takes as input, `ops.json` with [name, inputs, outputs] per operator, `inputs.json`/`outputs.json` with the
graph's input and output tensor indices, `spread.json`: per output, how far LiteRT's own CPU configurations
(builtin, XNNPACK, reference kernels; 1 and 2 threads) land from each other on the same input, and `alt<c>_<k>`:
output k of each other configuration c. End to end, ours must lie as close to one of LiteRT's configurations as
they lie to each other. Constants that are stored in the model are not written; our engine reads
them from the model itself.

Usage: pip install ai-edge-litert pillow numpy
       python3 tools/litert_goldens.py [--models Models] [--shared ../shared] [--out .cache/goldens]
Regenerates only what is missing or older than this script. Selfie segmentation runs with its custom
Convolution2DTransposeBias rewritten to LiteRT's builtin TRANSPOSE_CONV (see with_builtin_transpose_conv).
"""
import argparse
import io
import json
import os
import zipfile

import numpy as np
from PIL import Image
from ai_edge_litert.interpreter import Interpreter, OpResolverType


def image_input(shared, name, size, low, high):
    """An image from ../shared/images, RGB, resized to size×size and scaled linearly from [0, 255] to [low, high]."""
    image = Image.open(os.path.join(shared, "images", name)).convert("RGB").resize((size, size), Image.BILINEAR)
    pixels = np.asarray(image, dtype=np.float32)
    return (pixels / 255.0 * (high - low) + low)[np.newaxis].astype(np.float32)


def reference(shared, name):
    with open(os.path.join(shared, "reference", name)) as f:
        return json.load(f)["results"]


def blendshape_input(shared):
    # 146 face landmarks in pixels, from MediaPipe's reference output on a real face.
    result = next(r for r in reference(shared, "face.json") if r["result"]["faceLandmarks"])
    points = result["result"]["faceLandmarks"][0][:146]
    return np.array([[[p["x"] * result["width"], p["y"] * result["height"]] for p in points]], dtype=np.float32)


def gesture_inputs(shared):
    result = next(r for r in reference(shared, "gesture.json") if r["result"]["landmarks"])["result"]
    hand = np.array([[[p["x"], p["y"], p["z"]] for p in result["landmarks"][0]]], dtype=np.float32)
    world = np.array([[[p["x"], p["y"], p["z"]] for p in result["worldLandmarks"][0]]], dtype=np.float32)
    handedness = np.array([[result["handedness"][0][0]["score"]]], dtype=np.float32)
    return {"hand": hand, "handedness": handedness, "world_hand": world}


def with_builtin_transpose_conv(content):
    """Selfie segmentation with MediaPipe's custom Convolution2DTransposeBias replaced, in place, by LiteRT's builtin
    TRANSPOSE_CONV with a bias input (version 3), which computes the same thing (MediaPipe's op predates TFLite's
    bias support). LiteRT cannot run the custom op; the rewritten model keeps every operator index, so every
    operator — the transposed convolution included — gets a LiteRT golden."""
    import flatbuffers
    from ai_edge_litert import schema_py_generated as schema
    model = schema.ModelT.InitFromPackedBuf(content, 0)
    graph = model.subgraphs[0]
    index = next(i for i, op in enumerate(graph.operators)
                 if model.operatorCodes[op.opcodeIndex].customCode == b"Convolution2DTransposeBias")
    op = graph.operators[index]
    padding, stride_w, stride_h = np.frombuffer(bytes(op.customOptions), dtype="<i4")[:3]
    code = schema.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = schema.BuiltinOperator.TRANSPOSE_CONV
    code.version = 3
    model.operatorCodes.append(code)
    shape_buffer = schema.BufferT()
    output = graph.tensors[op.outputs[0]]
    shape_buffer.data = np.array(output.shape, dtype="<i4").tobytes()
    model.buffers.append(shape_buffer)
    shape = schema.TensorT()
    shape.shape, shape.type, shape.buffer, shape.name = [4], schema.TensorType.INT32, len(model.buffers) - 1, b"transpose_conv_output_shape"
    graph.tensors.append(shape)
    options = schema.TransposeConvOptionsT()
    options.padding = schema.Padding.SAME if padding == 1 else schema.Padding.VALID
    options.strideW, options.strideH = int(stride_w), int(stride_h)
    op.opcodeIndex = len(model.operatorCodes) - 1
    op.inputs = [len(graph.tensors) - 1, op.inputs[1], op.inputs[0], op.inputs[2]]
    op.builtinOptionsType, op.builtinOptions = schema.BuiltinOptions.TransposeConvOptions, options
    op.customOptions = None
    builder = flatbuffers.Builder(len(content) + 1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


# (bundle, member, how to make its inputs)
MEMBERS = [
    ("pose_landmarker_full.task", "pose_detector.tflite", lambda s: [image_input(s, "pose1.jpg", 224, -1, 1)]),
    ("pose_landmarker_full.task", "pose_landmarks_detector.tflite", lambda s: [image_input(s, "pose2.jpg", 256, 0, 1)]),
    ("pose_landmarker_lite.task", "pose_landmarks_detector.tflite", lambda s: [image_input(s, "pose2.jpg", 256, 0, 1)]),
    ("face_landmarker.task", "face_detector.tflite", lambda s: [image_input(s, "face_day13.jpg", 128, -1, 1)]),
    ("face_landmarker.task", "face_landmarks_detector.tflite", lambda s: [image_input(s, "face_mesh1.jpg", 256, 0, 1)]),
    ("face_landmarker.task", "face_blendshapes.tflite", lambda s: [blendshape_input(s)]),
    ("hand_landmarker.task", "hand_detector.tflite", lambda s: [image_input(s, "hand_two_palms.png", 192, 0, 1)]),
    ("hand_landmarker.task", "hand_landmarks_detector.tflite", lambda s: [image_input(s, "hand_f5547.jpg", 224, 0, 1)]),
    ("gesture_recognizer.task", "hand_gesture_recognizer.task/gesture_embedder.tflite", "gesture"),
    ("gesture_recognizer.task", "hand_gesture_recognizer.task/canned_gesture_classifier.tflite", "classifier"),
    ("selfie_segmentation.tflite", "", lambda s: [image_input(s, "face_day13.jpg", 256, 0, 1)]),
]


def read_member(path, member):
    data = open(path, "rb").read()
    for part in member.split("/") if member else []:
        data = zipfile.ZipFile(io.BytesIO(data)).read(part)
    return data


def run(content, inputs):
    interpreter = Interpreter(
        model_content=content, experimental_preserve_all_tensors=True,
        experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    interpreter.allocate_tensors()
    details = interpreter.get_input_details()
    for detail, value in zip(details, inputs):
        interpreter.set_tensor(detail["index"], value.reshape(detail["shape"]))
    interpreter.invoke()
    return interpreter


def backend_spread(content, inputs, golden):
    """How far LiteRT's own CPU configurations land from each other on the same input, per output: the largest
    pairwise worst |a − b| / max(1, |b|) among builtin kernels at 1 and 2 threads, XNNPACK at 1 and 2 threads and
    the reference kernels. Float32 rounding compounds in a different order in each; an end-to-end result no
    further from the golden than LiteRT's configurations are from each other is as right as LiteRT is."""
    configurations = [golden]
    for threads, resolver in ((2, OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES), (1, OpResolverType.AUTO),
                              (2, OpResolverType.AUTO), (1, OpResolverType.BUILTIN_REF)):
        other = Interpreter(model_content=content, num_threads=threads, experimental_op_resolver_type=resolver)
        other.allocate_tensors()
        for detail, value in zip(other.get_input_details(), inputs):
            other.set_tensor(detail["index"], value.reshape(detail["shape"]))
        other.invoke()
        configurations.append(other)
    outputs = [[c.get_tensor(d["index"]).astype(np.float64) for d in c.get_output_details()] for c in configurations]
    alternatives = {f"alt{i}_{k}": out.astype(np.float32) for i, config in enumerate(outputs[1:]) for k, out in enumerate(config)}
    spread = []
    for k in range(len(outputs[0])):
        worst = 0.0
        for a in outputs:
            for b in outputs:
                worst = max(worst, float((np.abs(a[k] - b[k]) / np.maximum(1, np.abs(b[k]))).max()))
        spread.append(worst)
    return spread, alternatives


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="Models")
    parser.add_argument("--shared", default=os.path.join("..", "shared"))
    parser.add_argument("--out", default=os.path.join(".cache", "goldens"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    script_time = os.path.getmtime(__file__)
    embedding = None
    for bundle, member, make in MEMBERS:
        content = read_member(os.path.join(args.models, bundle), member)
        if bundle == "selfie_segmentation.tflite":
            content = with_builtin_transpose_conv(content)
        key = f"{bundle}#{member}".replace("/", "_")
        target = os.path.join(args.out, key + ".npz")
        if make == "gesture":
            named = gesture_inputs(args.shared)
            probe = Interpreter(model_content=content)
            inputs = [named[d["name"]] for d in probe.get_input_details()]
        elif make == "classifier":
            inputs = [embedding]
        else:
            inputs = make(args.shared)
        if os.path.exists(target) and os.path.getmtime(target) > script_time and make != "gesture":
            print(f"ok       {key}")
            continue
        interpreter = run(content, inputs)
        if make == "gesture":
            embedding = interpreter.get_tensor(interpreter.get_output_details()[0]["index"]).copy()
            if os.path.exists(target) and os.path.getmtime(target) > script_time:
                print(f"ok       {key}")
                continue
        ops = interpreter._get_ops_details()
        produced = {int(t) for op in ops for t in op["outputs"]}
        wanted = produced | {int(d["index"]) for d in interpreter.get_input_details()}
        arrays = {f"t{t}": interpreter.get_tensor(t) for t in sorted(wanted)}
        arrays["ops.json"] = np.frombuffer(json.dumps(
            [[op["op_name"], [int(x) for x in op["inputs"]], [int(x) for x in op["outputs"]]] for op in ops]).encode(), dtype=np.uint8)
        arrays["inputs.json"] = np.frombuffer(json.dumps([int(d["index"]) for d in interpreter.get_input_details()]).encode(), dtype=np.uint8)
        spread, alternatives = backend_spread(content, inputs, interpreter)
        arrays["spread.json"] = np.frombuffer(json.dumps(spread).encode(), dtype=np.uint8)
        arrays.update(alternatives)
        arrays["model.json"] = np.frombuffer(json.dumps({"bundle": bundle, "member": member}).encode(), dtype=np.uint8)
        arrays["outputs.json"] = np.frombuffer(json.dumps([int(d["index"]) for d in interpreter.get_output_details()]).encode(), dtype=np.uint8)
        np.savez(target + ".partial.npz", **arrays)
        os.replace(target + ".partial.npz", target)
        print(f"wrote    {key} ({os.path.getsize(target) / 1e6:.1f} MB, {len(ops)} operators)")


if __name__ == "__main__":
    main()
