#!/usr/bin/env python3
"""Per-operator and end-to-end goldens for the quantized models, computed by LiteRT's interpreter (the outside truth).

The quantized models are Models/ssd_mobilenet_v1.tflite, bird_classifier.tflite, efficientnet_lite0.tflite,
mobilenet_v1_0.25_128_quant.tflite and every Tests/Fixtures/int8_*.tflite present when the script runs. For each,
one .npz is written to the cache directory (named after the model file, e.g. ssd_mobilenet_v1.npz) holding:

- `t<index>`: every tensor an operator produces, and the graph's inputs, from one run with LiteRT's builtin
  kernels (BUILTIN_WITHOUT_DEFAULT_DELEGATES, 1 thread, experimental_preserve_all_tensors) on a real input;
  `ops.json` ([name, inputs, outputs] per operator), `inputs.json`/`outputs.json` (the graph's input and output
  tensor indices) and `model.json` ({"bundle": the model's path relative to the repository, "member": ""}), as
  tools/litert_goldens.py writes them for the float models. Constants stored in the model are not written.
- `x<op>_<k>`: output k of operator <op> run alone by LiteRT with OpResolverType.AUTO (the XNNPACK delegate),
  1 thread, on the builtin run's values of that operator's inputs. The one-operator model keeps the operator
  (options, custom options and custom code included), its tensors with their quantization and its constant
  buffers; its other inputs become graph inputs and its outputs graph outputs (see one_operator_model).
  `delegated.json`: per operator, whether XNNPACK took it (a DELEGATE node in the one-operator interpreter). An
  operator XNNPACK does not take still gets `x<op>_<k>`, from LiteRT's builtin kernel under AUTO; one LiteRT
  cannot run alone at all (say, control flow) gets none, is recorded as not delegated and printed.
- `in<i>`: end-to-end input i, made from photo i of END_TO_END_IMAGES (`in<i>_<j>` for input j of a model with
  several), and `e<c>_<i>_<k>`: output k on input i under configuration c, an index into `configs.json`
  (CONFIGS: XNNPACK 1 thread, XNNPACK 2 threads, builtin kernels 1 thread, reference kernels BUILTIN_REF).
- `stats.json`: per operator and output the largest |builtin − XNNPACK one-operator| (`op_max_diff`) and the
  share of elements that differ at all (`op_differing_share`); operators that failed alone (`op_failed`); how
  many DELEGATE partitions each configuration's interpreter has (`delegate_partitions`); end to end, per pair
  of configurations and per output, the largest difference over all inputs (`end_to_end_max_diff`). Integer
  outputs are compared in LSB (quantized steps), float outputs (dequantized results, detection
  post-processing) in absolute value. A summary is printed when a model is regenerated.

Inputs: an image from ../shared/images, RGB, resized with Pillow's bilinear filter to the input's height and width
(grayscale for one channel), as uint8 pixels q. A uint8 input gets q as is; an int8 input gets q − 128 (the same
pixels in int8's range, which is what a uint8 → int8 model conversion feeds); a float input (float I/O around a
quantized body) gets (v − zero_point) · scale with the scale and zero point of the QUANTIZE operator that
consumes it and v = q if that operator quantizes to uint8, q − 128 if to int8, so that it quantizes back exactly
to the pixels a quantized input would get; a float input without such an operator gets q / 255. Other integer
inputs get q − 128. An input that is not [1, H, W, 1 or 3] is filled with the first values of the image's
pixels (RGB, resized to a square just large enough), flattened.

Usage: pip install ai-edge-litert pillow numpy flatbuffers
       python3 tools/litert_quantized_goldens.py [--models Models] [--fixtures Tests/Fixtures] [--shared ../shared]
           [--out .cache/goldens-quantized]
Regenerates a model's .npz only when it is missing or older than this script or the model file.
"""
import argparse
import glob
import json
import math
import os

import flatbuffers
import numpy as np
from PIL import Image
from ai_edge_litert import schema_py_generated as schema
from litert_flatbuffers import AlignedBufferT  # tools/litert_flatbuffers.py
from ai_edge_litert.interpreter import Interpreter, OpResolverType

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# model file in --models → the photo of the per-operator run
MODELS = {
    "ssd_mobilenet_v1.tflite": "obj_street_people.jpg",
    "bird_classifier.tflite": "coral_bird.png",
    "efficientnet_lite0.tflite": "coral_cat.png",
    "mobilenet_v1_0.25_128_quant.tflite": "coral_cat.png",
}
FIXTURE_IMAGE = "obj_cat.jpg"
# End to end: a street with people and cars, two cats on a sofa, a bird, people in a kitchen, a cat.
END_TO_END_IMAGES = ["obj_street_people.jpg", "obj_cat.jpg", "coral_bird.png", "obj_kitchen_people.jpg", "coral_cat.png"]
CONFIGS = [
    ("xnnpack1", OpResolverType.AUTO, 1),
    ("xnnpack2", OpResolverType.AUTO, 2),
    ("builtin1", OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES, 1),
    ("reference", OpResolverType.BUILTIN_REF, 1),
]


def pixels(shared, name, shape):
    """uint8 pixels of an image from ../shared/images for an input of this shape (see the module docstring)."""
    image = Image.open(os.path.join(shared, "images", name))
    if len(shape) == 4 and shape[0] == 1 and shape[3] in (1, 3):
        image = image.convert("L" if shape[3] == 1 else "RGB").resize((int(shape[2]), int(shape[1])), Image.BILINEAR)
        return np.asarray(image, dtype=np.uint8).reshape(shape)
    count = int(np.prod(shape))
    side = max(1, math.ceil(math.sqrt(count / 3)))
    flat = np.asarray(image.convert("RGB").resize((side, side), Image.BILINEAR), dtype=np.uint8).reshape(-1)
    return flat[:count].reshape(shape)


def quantize_consumer(model, tensor):
    """(scale, zero point, type) of the output of the QUANTIZE operator that reads a float graph input, or None."""
    graph = model.subgraphs[0]
    for op in graph.operators:
        code = model.operatorCodes[op.opcodeIndex]
        if max(code.builtinCode, code.deprecatedBuiltinCode) == schema.BuiltinOperator.QUANTIZE and op.inputs[0] == tensor:
            out = graph.tensors[op.outputs[0]]
            if out.quantization is None or out.quantization.scale is None or not len(out.quantization.scale):
                return None
            kind = np.int8 if out.type == schema.TensorType.INT8 else np.uint8
            return float(out.quantization.scale[0]), int(out.quantization.zeroPoint[0]), kind
    return None


def model_input(shared, name, detail, consumer):
    q = pixels(shared, name, detail["shape"])
    dtype = np.dtype(detail["dtype"])
    if dtype == np.uint8:
        return q
    if dtype == np.int8:
        return (q.astype(np.int16) - 128).astype(np.int8)
    if dtype == np.float32:
        if consumer is None:
            return (q / 255.0).astype(np.float32)
        scale, zero_point, kind = consumer
        values = q.astype(np.float64) - (128 if kind == np.int8 else 0)
        return ((values - zero_point) * scale).astype(np.float32)
    return (q.astype(np.int32) - 128).astype(dtype)



def is_constant(model, tensor):
    data = model.buffers[tensor.buffer].data if tensor.buffer > 0 else None
    return data is not None and len(data) > 0


def one_operator_model(model, index):
    """A model of operator `index` of the first subgraph alone: its tensors (quantization, shape signature and
    sparsity kept) renumbered in order of appearance, its constant buffers, its operator code (custom code kept) and
    its options (custom options kept). Non-constant inputs become the graph's inputs, its outputs the outputs."""
    graph = model.subgraphs[0]
    op = graph.operators[index]
    used = []
    for t in list(op.inputs) + list(op.outputs) + list(op.intermediates if op.intermediates is not None else []):
        if t >= 0 and t not in used:
            used.append(t)
    remap = {t: i for i, t in enumerate(used)}
    buffers = [schema.BufferT()]
    tensors = []
    for t in used:
        old = graph.tensors[t]
        tensor = schema.TensorT()
        tensor.__dict__.update(old.__dict__)
        tensor.buffer = 0
        if is_constant(model, old):
            buffer = AlignedBufferT()
            buffer.data = model.buffers[old.buffer].data
            buffers.append(buffer)
            tensor.buffer = len(buffers) - 1
        tensors.append(tensor)
    single = schema.OperatorT()
    single.__dict__.update(op.__dict__)
    single.opcodeIndex = 0
    single.inputs = [remap[t] if t >= 0 else -1 for t in op.inputs]
    single.outputs = [remap[t] for t in op.outputs]
    if op.intermediates is not None:
        single.intermediates = [remap[t] for t in op.intermediates]
    subgraph = schema.SubGraphT()
    subgraph.tensors = tensors
    subgraph.operators = [single]
    subgraph.inputs = []
    for t in op.inputs:
        if t >= 0 and not is_constant(model, graph.tensors[t]) and not graph.tensors[t].isVariable \
                and remap[t] not in subgraph.inputs:
            subgraph.inputs.append(remap[t])
    subgraph.outputs = [remap[t] for t in op.outputs]
    subgraph.name = b"one_operator"
    one = schema.ModelT()
    one.version = 3
    one.operatorCodes = [model.operatorCodes[op.opcodeIndex]]
    one.subgraphs = [subgraph]
    one.buffers = buffers
    one.description = b"one operator of " + (model.description or b"")
    builder = flatbuffers.Builder(1024)
    builder.Finish(one.Pack(builder), file_identifier=b"TFL3")
    inputs = [used[i] for i in subgraph.inputs]
    return bytes(builder.Output()), inputs


def feed(interpreter, values):
    for detail, value in zip(interpreter.get_input_details(), values):
        interpreter.set_tensor(detail["index"], np.asarray(value).reshape(detail["shape"]))


def difference(a, b):
    """Largest |a − b|: in LSB for integer tensors, absolute for float ones."""
    if a.size == 0:
        return 0
    if np.issubdtype(a.dtype, np.integer):
        return int(np.abs(a.astype(np.int64) - b.astype(np.int64)).max())
    return float(np.abs(a.astype(np.float64) - b.astype(np.float64)).max())


def goldens(content, path, image, shared):
    model = schema.ModelT.InitFromPackedBuf(content, 0)
    interpreter = Interpreter(
        model_content=content, num_threads=1, experimental_preserve_all_tensors=True,
        experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    interpreter.allocate_tensors()
    input_details = interpreter.get_input_details()
    consumers = [quantize_consumer(model, int(d["index"])) for d in input_details]
    feed(interpreter, [model_input(shared, image, d, c) for d, c in zip(input_details, consumers)])
    interpreter.invoke()
    ops = interpreter._get_ops_details()
    assert len(ops) == len(model.subgraphs[0].operators), "builtin run's nodes are not the model's operators"
    produced = {int(t) for op in ops for t in op["outputs"]}
    wanted = produced | {int(d["index"]) for d in input_details}
    arrays = {f"t{t}": interpreter.get_tensor(t) for t in sorted(wanted)}
    arrays["ops.json"] = [[op["op_name"], [int(x) for x in op["inputs"]], [int(x) for x in op["outputs"]]] for op in ops]
    arrays["inputs.json"] = [int(d["index"]) for d in input_details]
    arrays["outputs.json"] = [int(d["index"]) for d in interpreter.get_output_details()]
    arrays["model.json"] = {"bundle": os.path.relpath(os.path.abspath(path), REPO), "member": ""}

    delegated, op_stats, op_share, failed = [], [], [], {}
    for i, op in enumerate(ops):
        assert [int(x) for x in op["inputs"]] == list(model.subgraphs[0].operators[i].inputs)
        try:
            single, single_inputs = one_operator_model(model, i)
            alone = Interpreter(model_content=single, num_threads=1, experimental_op_resolver_type=OpResolverType.AUTO)
            alone.allocate_tensors()
            feed(alone, [arrays[f"t{t}"] for t in single_inputs])
            alone.invoke()
        except Exception as error:  # an operator LiteRT cannot run alone (say, control flow): no x<op>_<k>
            print(f"  operator {i} ({op['op_name']}) does not run alone: {error}")
            failed[i] = str(error)
            delegated.append(False), op_stats.append([]), op_share.append([])
            continue
        delegated.append(any(node["op_name"] == "DELEGATE" for node in alone._get_ops_details()))
        diffs, shares = [], []
        for k, detail in enumerate(alone.get_output_details()):
            value = alone.get_tensor(detail["index"])
            arrays[f"x{i}_{k}"] = value
            golden = arrays[f"t{int(op['outputs'][k])}"]
            diffs.append(difference(golden, value))
            shares.append(float(np.mean(golden != value)) if golden.size else 0.0)
        op_stats.append(diffs)
        op_share.append(shares)
    arrays["delegated.json"] = delegated

    configurations, partitions = [], {}
    for name, resolver, threads in CONFIGS:
        other = Interpreter(model_content=content, num_threads=threads, experimental_op_resolver_type=resolver)
        other.allocate_tensors()
        configurations.append(other)
        partitions[name] = sum(node["op_name"] == "DELEGATE" for node in other._get_ops_details())
    outputs = [[] for _ in CONFIGS]
    for i, picture in enumerate(END_TO_END_IMAGES):
        values = [model_input(shared, picture, d, c) for d, c in zip(input_details, consumers)]
        for j, value in enumerate(values):
            arrays[f"in{i}" if len(values) == 1 else f"in{i}_{j}"] = value
        for c, other in enumerate(configurations):
            feed(other, values)
            other.invoke()
            result = [other.get_tensor(d["index"]).copy() for d in other.get_output_details()]
            outputs[c].append(result)
            for k, value in enumerate(result):
                arrays[f"e{c}_{i}_{k}"] = value
    arrays["configs.json"] = [name for name, _, _ in CONFIGS]
    pairs = {}
    for a in range(len(CONFIGS)):
        for b in range(a + 1, len(CONFIGS)):
            pairs[f"{CONFIGS[a][0]}-{CONFIGS[b][0]}"] = [
                max(difference(x[k], y[k]) for x, y in zip(outputs[a], outputs[b])) for k in range(len(outputs[a][0]))]
    arrays["stats.json"] = {"op_max_diff": op_stats, "op_differing_share": op_share, "op_failed": failed,
                            "delegate_partitions": partitions, "end_to_end_max_diff": pairs}
    return arrays


def report(arrays):
    ops = arrays["ops.json"]
    delegated = arrays["delegated.json"]
    stats = arrays["stats.json"]
    print(f"  {len(ops)} operators, XNNPACK takes {sum(delegated)} alone; not taken: "
          + (", ".join(f"{i}:{ops[i][0]}" for i, d in enumerate(delegated) if not d) or "none"))
    kinds = {}
    for (name, _, _), diffs, shares, d in zip(ops, stats["op_max_diff"], stats["op_differing_share"], delegated):
        worst, count, differ, share = kinds.get(name, (0, 0, 0, 0.0))
        kinds[name] = (max([worst] + diffs), count + 1, differ + bool(diffs and max(diffs)), max([share] + shares))
    print("  builtin vs XNNPACK one-operator (max | operators that differ / all | largest share of elements that differ):")
    for name, (worst, count, differ, share) in sorted(kinds.items()):
        print(f"    {name:32s} {worst:<10g} {differ:3d}/{count:<3d} {share:.2%}")
    print(f"  end to end over {len(END_TO_END_IMAGES)} images, max per output (DELEGATE partitions: "
          + ", ".join(f"{k} {v}" for k, v in stats["delegate_partitions"].items()) + "):")
    for pair, values in stats["end_to_end_max_diff"].items():
        print(f"    {pair:22s} " + " / ".join(f"{v:g}" for v in values))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="Models")
    parser.add_argument("--fixtures", default=os.path.join("Tests", "Fixtures"))
    parser.add_argument("--shared", default=os.path.join("..", "shared"))
    parser.add_argument("--out", default=os.path.join(".cache", "goldens-quantized"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    script_time = os.path.getmtime(__file__)
    models = [(os.path.join(args.models, name), image) for name, image in MODELS.items()]
    models += [(path, FIXTURE_IMAGE) for path in sorted(glob.glob(os.path.join(args.fixtures, "int8_*.tflite")))]
    for path, image in models:
        key = os.path.splitext(os.path.basename(path))[0]
        target = os.path.join(args.out, key + ".npz")
        if os.path.exists(target) and os.path.getmtime(target) > max(script_time, os.path.getmtime(path)):
            print(f"ok       {key}")
            continue
        with open(path, "rb") as f:
            content = f.read()
        arrays = goldens(content, path, image, args.shared)
        encoded = {k: np.frombuffer(json.dumps(v).encode(), dtype=np.uint8) if k.endswith(".json") else v
                   for k, v in arrays.items()}
        np.savez(target + ".partial.npz", **encoded)
        os.replace(target + ".partial.npz", target)
        print(f"wrote    {key} ({os.path.getsize(target) / 1e6:.1f} MB, {len(arrays['ops.json'])} operators)")
        report(arrays)


if __name__ == "__main__":
    main()
