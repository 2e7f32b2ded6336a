#!/usr/bin/env python3
"""Goldens for the custom operator TFLite_Detection_PostProcess, computed by LiteRT's kernel (the outside truth).

Each case is a model holding that one operator and LiteRT's four outputs for it on given inputs. Ties decide which
boxes are kept, so the cases lean on them: the real operator of Models/ssd_mobilenet_v1.tflite on inputs captured
from the real model on photos, its options rewritten, its class predictions requantized, float versions of it, and
small synthetic models full of equal scores, identical and zero-area boxes.

One file, `cases.npz` in the cache directory, holds per case i:

- `m<i>`: the model's bytes (uint8). `a<i>_<j>`: its graph input j, in the model's input order: box encodings,
  class predictions, and the anchors when they are not a constant of the model.
- `o<i>_<k>`: output k as LiteRT computes it (BUILTIN_WITHOUT_DEFAULT_DELEGATES, 1 thread): boxes [1, D, 4]
  (ymin, xmin, ymax, xmax), classes [1, D], scores [1, D], count [1], with D = max_detections ×
  max_classes_per_detection. LiteRT leaves some slots unwritten (their bytes are whatever the arena held): on the
  fast path every slot past the selected anchors' and, when max_classes_per_detection > num_classes, the columns
  past num_classes; on the regular path the slots past max_detections. Those slots are stored as 0 (the outputs
  are prefilled with a NaN pattern before the invoke, so which slots LiteRT wrote is observed, not assumed).
- `n<i>` (int32 [1]): how many leading slots LiteRT wrote, the ones to compare: on the fast path
  (count − 1) · max_classes_per_detection + min(max_classes_per_detection, num_classes) (the count itself when
  max_classes_per_detection is 1; 0 when nothing is selected), on the regular path max_detections (slots past the
  count are written as zeros). num_detections is always written.
- `cases.json`: per case {"label", "group" (ssd, ssd-requantized, float, synthetic), "path" (fast or regular),
  "options" (the custom options as stored), "inputs" (names of the graph inputs), "count", "slots" (= n<i>),
  "unwritten" (slots not written among the D)}.

Groups:
- ssd: operator 63 of ssd_mobilenet_v1 as stored (uint8 box encodings and class predictions, uint8 constant
  anchors, output tensors without shapes), its inputs captured from the whole model run by LiteRT's builtin kernels
  on photos of ../shared/images (RGB, bilinear resize to 300×300, uint8). Options as shipped (the custom options'
  bytes untouched) and rewritten (regular NMS with detections_per_class 1, 3, 100; max_classes_per_detection 2
  and 3; score threshold 0.5; IoU threshold 0.3 and 1.0; max_detections 1, 5, 25, …).
- ssd-requantized: the same with the class predictions requantized to a non-dyadic scale and a non-zero zero
  point (q' = clamp(round(q · scale / scale' + zero point'))), which separates LiteRT's two dequantization forms
  on x86 (in vectors of 8: float(q) × scale + float(−zp × scale); the last size % 8: float(double(scale) ·
  (q − zp))); once with the constant anchors requantized to a non-zero zero point as well.
- float: the same operator with float inputs and float anchors (the uint8 values dequantized as the kernel does),
  as a constant and as a graph input; and mixed types (float boxes with uint8 scores, uint8 boxes with float
  scores).
- synthetic: small models (fixed random seed) with equal scores across anchors and across classes, identical
  boxes (IoU threshold 1.0 and below), zero-area boxes, IoU exactly at the threshold, scores exactly at the score
  threshold, random tie-heavy scores (float, and uint8 with non-zero zero points), dense cases that output every
  score of every anchor, 6 values per box encoding, num_classes equal to the class columns (no background) and one
  fewer (column 0 is background).

Multi-threaded runs are left out: LiteRT's regular path splits classes across threads and its tie order then
varies from run to run.

Usage: pip install ai-edge-litert pillow numpy flatbuffers
       python3 tools/litert_postprocess_goldens.py [--models Models] [--shared ../shared]
           [--out .cache/goldens-postprocess]
Regenerates cases.npz only when it is missing or older than this script, the model or one of the photos.
"""
import argparse
import copy
import json
import os

import flatbuffers
import numpy as np
from flatbuffers import flexbuffers
from PIL import Image
from ai_edge_litert import schema_py_generated as schema
from litert_flatbuffers import AlignedBufferT  # tools/litert_flatbuffers.py
from ai_edge_litert.interpreter import Interpreter, OpResolverType

MODEL = "ssd_mobilenet_v1.tflite"
OPERATOR = b"TFLite_Detection_PostProcess"
# A street with people and cars, people in a kitchen, two cats on a sofa, a bird, an empty kitchen.
IMAGES = ["obj_street_people.jpg", "obj_kitchen_people.jpg", "obj_cat.jpg", "coral_bird.png", "obj_kitchen_empty.jpg"]
STREET, KITCHEN, CAT, BIRD, EMPTY = IMAGES
# Written into the outputs before each invoke to see which slots LiteRT writes (a quiet NaN no result carries).
SENTINEL = np.uint32(0x7FC0FFEE)
F32, U8 = schema.TensorType.FLOAT32, schema.TensorType.UINT8

# ssd: (label, option overrides (None: the stored bytes), photos)
SSD_CASES = [
    ("shipped", None, IMAGES),
    ("regular, detections_per_class 1", dict(use_regular_nms=True, detections_per_class=1), [STREET, KITCHEN]),
    ("regular, detections_per_class 3", dict(use_regular_nms=True, detections_per_class=3), [STREET, CAT]),
    ("regular, detections_per_class 100, max_detections 25",
     dict(use_regular_nms=True, detections_per_class=100, max_detections=25), [KITCHEN, BIRD]),
    ("fast, max_classes_per_detection 2", dict(max_classes_per_detection=2), [STREET, CAT]),
    ("fast, max_classes_per_detection 3", dict(max_classes_per_detection=3), [KITCHEN, BIRD]),
    ("fast, score threshold 0.5, max_detections 25", dict(nms_score_threshold=0.5, max_detections=25),
     [STREET, KITCHEN]),
    ("regular, score threshold 0.5, max_detections 25",
     dict(use_regular_nms=True, nms_score_threshold=0.5, max_detections=25), [STREET, KITCHEN]),
    ("fast, IoU 0.3, max_detections 25", dict(nms_iou_threshold=0.3, max_detections=25), [KITCHEN]),
    ("regular, IoU 0.3, detections_per_class 5, max_detections 25",
     dict(use_regular_nms=True, nms_iou_threshold=0.3, detections_per_class=5, max_detections=25), [STREET]),
    ("fast, IoU 1.0, max_detections 25", dict(nms_iou_threshold=1.0, max_detections=25), [CAT]),
    ("regular, IoU 1.0, detections_per_class 25, max_detections 25",
     dict(use_regular_nms=True, nms_iou_threshold=1.0, detections_per_class=25, max_detections=25), [BIRD]),
    ("fast, max_detections 1", dict(max_detections=1), [STREET]),
    ("fast, max_detections 5", dict(max_detections=5), [KITCHEN]),
    ("fast, max_detections 25", dict(max_detections=25), [EMPTY]),
    ("regular, max_detections 1", dict(use_regular_nms=True, max_detections=1), [CAT]),
    ("regular, detections_per_class 3, max_detections 5",
     dict(use_regular_nms=True, detections_per_class=3, max_detections=5), [KITCHEN]),
    ("regular, max_classes_per_detection 2, max_detections 8 (slots past 8 unwritten)",
     dict(use_regular_nms=True, max_classes_per_detection=2, max_detections=8), [STREET]),
    ("fast, max_classes_per_detection 3, score threshold 0.5 (secondary classes below it)",
     dict(max_classes_per_detection=3, nms_score_threshold=0.5, max_detections=20), [KITCHEN]),
]
# ssd-requantized: (label, option overrides, photo, class predictions (scale, zero point), anchors (scale, zero point))
REQUANTIZED_CASES = [
    ("shipped", None, STREET, (0.00401, 7), None),
    ("fast, max_classes_per_detection 3", dict(max_classes_per_detection=3), KITCHEN, (0.0047, 40), None),
    ("regular, detections_per_class 3", dict(use_regular_nms=True, detections_per_class=3), STREET, (0.00401, 7), None),
    ("regular, IoU 1.0, detections_per_class 100, max_detections 100",
     dict(use_regular_nms=True, nms_iou_threshold=1.0, detections_per_class=100, max_detections=100), CAT,
     (0.0043, 21), None),
    ("fast, every anchor (score threshold -1, IoU 1.0, max_detections 1917)",
     dict(nms_score_threshold=-1.0, nms_iou_threshold=1.0, max_detections=1917), BIRD, (0.00401, 7), None),
    ("shipped, anchors requantized too", None, KITCHEN, (0.0047, 40), (0.0071, 12)),
]
# float: (label, option overrides, photo, box encodings and anchors float, class predictions float, anchors an input)
FLOAT_CASES = [
    ("float, shipped", None, STREET, True, True, False),
    ("float, regular, detections_per_class 3", dict(use_regular_nms=True, detections_per_class=3), KITCHEN,
     True, True, False),
    ("float, fast, max_classes_per_detection 3, anchors an input", dict(max_classes_per_detection=3), CAT,
     True, True, True),
    ("float boxes and anchors, uint8 scores, regular, detections_per_class 1",
     dict(use_regular_nms=True, detections_per_class=1), STREET, True, False, False),
    ("uint8 boxes and anchors, float scores, fast, max_classes_per_detection 2",
     dict(max_classes_per_detection=2), KITCHEN, False, True, False),
]
# Options of the synthetic models unless a case says otherwise (SSD's scales).
SYNTHETIC_DEFAULTS = dict(max_detections=10, max_classes_per_detection=1, nms_score_threshold=0.0,
                          nms_iou_threshold=0.5, y_scale=10.0, x_scale=10.0, h_scale=5.0, w_scale=5.0)


def flex_options(options):
    """Custom options as the converter writes them: a FlexBuffer map, ints as Int, floats 4 bytes wide, bools as
    Bool."""
    builder = flexbuffers.Builder()
    with builder.Map():
        for key in sorted(options):
            value = options[key]
            builder.Key(key)
            if isinstance(value, bool):
                builder.Bool(value)
            elif isinstance(value, int):
                builder.Int(value)
            elif isinstance(value, float):
                builder.Float(float(np.float32(value)), byte_width=4)
            else:
                raise TypeError(f"option {key} is {value!r}")
    return bytes(builder.Finish())


def quantization(scale, zero_point):
    q = schema.QuantizationParametersT()
    q.scale = [float(scale)]
    q.zeroPoint = [int(zero_point)]
    return q


def new_tensor(name, kind, shape, quant=None):
    tensor = schema.TensorT()
    tensor.name = name.encode()
    tensor.type = kind
    tensor.shape = list(shape)
    tensor.quantization = quant
    return tensor



def pack(inputs, outputs, options, description):
    """A model of TFLite_Detection_PostProcess alone. inputs: three (TensorT, constant bytes or None); the ones
    without bytes become the graph's inputs, in this order. outputs: four TensorT. options: the custom options."""
    buffers = [schema.BufferT()]
    tensors = []
    for tensor, data in inputs:
        tensor = copy.copy(tensor)
        tensor.buffer = 0
        if data is not None:
            buffer = AlignedBufferT()
            buffer.data = np.frombuffer(data, dtype=np.uint8)
            buffers.append(buffer)
            tensor.buffer = len(buffers) - 1
        tensors.append(tensor)
    for tensor in outputs:
        tensor = copy.copy(tensor)
        tensor.buffer = 0
        tensors.append(tensor)
    code = schema.OperatorCodeT()
    code.builtinCode = schema.BuiltinOperator.CUSTOM
    code.deprecatedBuiltinCode = schema.BuiltinOperator.CUSTOM
    code.customCode = OPERATOR
    code.version = 1
    op = schema.OperatorT()
    op.opcodeIndex = 0
    op.inputs = [0, 1, 2]
    op.outputs = [3, 4, 5, 6]
    op.customOptions = np.frombuffer(options, dtype=np.uint8)
    op.customOptionsFormat = schema.CustomOptionsFormat.FLEXBUFFERS
    subgraph = schema.SubGraphT()
    subgraph.tensors = tensors
    subgraph.operators = [op]
    subgraph.inputs = [i for i, (_, data) in enumerate(inputs) if data is None]
    subgraph.outputs = [3, 4, 5, 6]
    subgraph.name = b"detection_postprocess"
    model = schema.ModelT()
    model.version = 3
    model.operatorCodes = [code]
    model.subgraphs = [subgraph]
    model.buffers = buffers
    model.description = description.encode()
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def run(model, values):
    """LiteRT's outputs for the graph inputs `values`, with the slots it does not write set to 0, and the written
    mask per slot."""
    interpreter = Interpreter(model_content=model, num_threads=1,
                              experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    interpreter.allocate_tensors()
    details = interpreter.get_input_details()
    assert len(details) == len(values)
    for detail, value in zip(details, values):
        interpreter.set_tensor(detail["index"], value)
    for detail in interpreter.get_output_details():
        interpreter.set_tensor(detail["index"], np.full(detail["shape"], SENTINEL, dtype=np.uint32).view(np.float32))
    interpreter.invoke()
    outputs = [interpreter.get_tensor(d["index"]).copy() for d in interpreter.get_output_details()]
    unset = [o.view(np.uint32) == SENTINEL for o in outputs]
    assert not unset[3].any(), "num_detections not written"
    slots = outputs[1].shape[1]
    per_slot = [unset[0].reshape(slots, 4).all(1), unset[1].reshape(slots), unset[2].reshape(slots)]
    assert all(np.array_equal(per_slot[0], s) for s in per_slot[1:]) and not any(
        u.reshape(slots, -1).any(1)[~per_slot[0]].any() for u in unset[:3]), "slots written in part"
    for o, u in zip(outputs, unset):
        o[u] = 0
    return outputs, ~per_slot[0]


def expected_written(options, count, slots):
    """Which of the `slots` output slots LiteRT's kernel writes (see the module docstring)."""
    written = np.zeros(slots, dtype=bool)
    if options.get("use_regular_nms", False):
        written[:options["max_detections"]] = True
    else:
        per = options["max_classes_per_detection"]
        for o in range(count):
            written[per * o:per * o + min(per, options["num_classes"])] = True
    return written


class SSDOperator:
    """Operator TFLite_Detection_PostProcess of the SSD model: its tensors, constant anchors and options, and the
    inputs it gets from the whole model on photos."""

    def __init__(self, path, shared):
        with open(path, "rb") as f:
            content = f.read()
        model = schema.ModelT.InitFromPackedBuf(content, 0)
        graph = model.subgraphs[0]
        (index, op), = [(i, op) for i, op in enumerate(graph.operators)
                        if model.operatorCodes[op.opcodeIndex].customCode == OPERATOR]
        self.inputs = [graph.tensors[t] for t in op.inputs]
        self.outputs = [graph.tensors[t] for t in op.outputs]
        anchors = self.inputs[2]
        self.anchors = np.asarray(model.buffers[anchors.buffer].data, dtype=np.uint8).reshape(anchors.shape)
        self.options = bytes(op.customOptions)
        interpreter = Interpreter(model_content=content, num_threads=1, experimental_preserve_all_tensors=True,
                                  experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
        interpreter.allocate_tensors()
        detail = interpreter.get_input_details()[0]
        _, height, width, _ = detail["shape"]
        self.captured = {}
        for name in IMAGES:
            image = Image.open(os.path.join(shared, "images", name)).convert("RGB")
            image = image.resize((width, height), Image.BILINEAR)
            interpreter.set_tensor(detail["index"], np.asarray(image, dtype=np.uint8)[np.newaxis])
            interpreter.invoke()
            self.captured[name] = [interpreter.get_tensor(t).copy() for t in op.inputs[:2]]
        self.index = index

    def quant(self, j):
        q = self.inputs[j].quantization
        return float(q.scale[0]), int(q.zeroPoint[0])

    def dequantized(self, j, q):
        """Box encodings or anchors as the kernel dequantizes them (float32: (float(q) − zp) · scale); class
        predictions as its tail form, exact here (zero point 0, scale 1/256)."""
        scale, zero_point = self.quant(j)
        if j == 1:
            assert zero_point == 0 and scale == 2.0 ** -8
        return ((q.astype(np.float32) - np.float32(zero_point)) * np.float32(scale)).astype(np.float32)

    def options_with(self, overrides):
        if overrides is None:
            return self.options
        options = flexbuffers.Loads(self.options)
        options.update(overrides)
        return flex_options(options)


def ssd_cases(ssd):
    cases = []
    box, scores, anchors = ssd.inputs
    for label, overrides, photos in SSD_CASES:
        for photo in photos:
            inputs = [(box, None), (scores, None), (anchors, ssd.anchors.tobytes())]
            model = pack(inputs, ssd.outputs, ssd.options_with(overrides), f"ssd_mobilenet_v1 operator {ssd.index}")
            cases.append(dict(label=f"ssd {photo}: {label}", group="ssd", model=model, values=ssd.captured[photo]))
    for label, overrides, photo, (scale, zero_point), anchor_quant in REQUANTIZED_CASES:
        q, (old_scale, old_zero) = ssd.captured[photo][1], ssd.quant(1)
        real = (q.astype(np.float64) - old_zero) * old_scale
        requantized = quantize(real, scale, zero_point)
        scores_t = copy.copy(scores)
        scores_t.quantization = quantization(scale, zero_point)
        anchors_t, anchor_bytes = anchors, ssd.anchors.tobytes()
        if anchor_quant is not None:
            real = (ssd.anchors.astype(np.float64) - ssd.quant(2)[1]) * ssd.quant(2)[0]
            anchors_t = copy.copy(anchors)
            anchors_t.quantization = quantization(*anchor_quant)
            anchor_bytes = quantize(real, *anchor_quant).tobytes()
        inputs = [(box, None), (scores_t, None), (anchors_t, anchor_bytes)]
        model = pack(inputs, ssd.outputs, ssd.options_with(overrides),
                     f"ssd_mobilenet_v1 operator {ssd.index}, requantized")
        what = f"class predictions requantized to scale {scale} zero point {zero_point}"
        if anchor_quant is not None:
            what += f", anchors to scale {anchor_quant[0]} zero point {anchor_quant[1]}"
        cases.append(dict(label=f"ssd {photo}: {label}; {what}", group="ssd-requantized", model=model,
                          values=[ssd.captured[photo][0], requantized]))
    for label, overrides, photo, float_boxes, float_scores, anchors_input in FLOAT_CASES:
        box_q, scores_q = ssd.captured[photo]
        values, inputs = [], []
        if float_boxes:
            values.append(ssd.dequantized(0, box_q))
            inputs.append((new_tensor("box_encodings", F32, box.shape), None))
        else:
            values.append(box_q)
            inputs.append((box, None))
        if float_scores:
            values.append(ssd.dequantized(1, scores_q))
            inputs.append((new_tensor("class_predictions", F32, scores.shape), None))
        else:
            values.append(scores_q)
            inputs.append((scores, None))
        if float_boxes:
            float_anchors = ssd.dequantized(2, ssd.anchors)
            tensor = new_tensor("anchors", F32, anchors.shape)
            if anchors_input:
                values.append(float_anchors)
                inputs.append((tensor, None))
            else:
                inputs.append((tensor, float_anchors.tobytes()))
        else:
            inputs.append((anchors, ssd.anchors.tobytes()))
        model = pack(inputs, ssd.outputs, ssd.options_with(overrides), f"ssd_mobilenet_v1 operator {ssd.index}, float")
        cases.append(dict(label=f"ssd {photo}: {label}", group="float", model=model, values=values))
    return cases


def synthetic_model(box, scores, anchors, options, quant=None, anchors_input=False):
    """A model for float (or, with quant = {"box": (scale, zp), "scores": …, "anchors": …}, uint8) inputs."""
    quant = quant or {}
    kinds = [U8 if a.dtype == np.uint8 else F32 for a in (box, scores, anchors)]
    names = ["box_encodings", "class_predictions", "anchors"]
    tensors = [new_tensor(n, k, a.shape, quantization(*quant[key]) if key in quant else None)
               for n, k, a, key in zip(names, kinds, (box, scores, anchors), ("box", "scores", "anchors"))]
    full = dict(SYNTHETIC_DEFAULTS)
    full.update(options)
    d = full["max_detections"] * full["max_classes_per_detection"]
    outputs = [new_tensor("detection_boxes", F32, [1, d, 4]), new_tensor("detection_classes", F32, [1, d]),
               new_tensor("detection_scores", F32, [1, d]), new_tensor("num_detections", F32, [1])]
    inputs = [(tensors[0], None), (tensors[1], None), (tensors[2], None if anchors_input else anchors.tobytes())]
    model = pack(inputs, outputs, flex_options(full), "synthetic")
    return model, [box, scores] + ([anchors] if anchors_input else [])


def random_anchors(rng, n, clustered):
    lo, hi = (0.4, 0.6) if clustered else (0.0, 1.0)
    centres = rng.uniform(lo, hi, (n, 2))
    sizes = rng.uniform(0.05, 0.5, (n, 2))
    return np.concatenate([centres, sizes], 1).astype(np.float32)


def quantize(values, scale, zero_point):
    return np.clip(np.round(values / scale + zero_point), 0, 255).astype(np.uint8)


def synthetic_cases():
    rng = np.random.default_rng(20251123)
    cases = []

    def add(label, box, scores, anchors, options, quant=None, anchors_input=False):
        model, values = synthetic_model(box, scores, anchors, options, quant, anchors_input)
        cases.append(dict(label=label, group="synthetic", model=model, values=values))

    # Equal scores across anchors and across classes, disjoint boxes: anchor order, and the heap's class order.
    n = 12
    anchors = np.array([[0.5, 2.0 * i, 1, 1] for i in range(n)], np.float32)
    box = np.zeros((1, n, 4), np.float32)
    equal = np.full((1, n, 4), 0.5, np.float32)
    for per in (1, 2, 3):
        add(f"equal scores, background + 3 classes, fast, max_classes_per_detection {per}", box, equal, anchors,
            dict(num_classes=3, max_detections=7, max_classes_per_detection=per))
    add("equal scores, background + 3 classes, regular, detections_per_class 3, max_detections 7", box, equal, anchors,
        dict(num_classes=3, max_detections=7, detections_per_class=3, use_regular_nms=True))
    add("equal scores, 4 classes without background, fast, max_classes_per_detection 2", box, equal, anchors,
        dict(num_classes=4, max_detections=7, max_classes_per_detection=2), anchors_input=True)
    add("equal scores, 4 classes without background, regular, detections_per_class 2", box, equal, anchors,
        dict(num_classes=4, max_detections=9, detections_per_class=2, use_regular_nms=True), anchors_input=True)

    # Identical boxes: IoU 1 is not above a threshold of 1.0, so all stay; below it they suppress each other.
    anchors = np.array([[0.5, 0.5, 0.2, 0.2]] * 5, np.float32)
    box = np.zeros((1, 5, 4), np.float32)
    scores = np.array([[0, .3, .3], [0, .3, .4], [0, .4, .3], [0, .3, .3], [0, .4, .4]], np.float32)[None]
    add("identical boxes, IoU threshold 1.0, fast", box, scores, anchors, dict(num_classes=2, nms_iou_threshold=1.0))
    add("identical boxes, IoU threshold 1.0, regular", box, scores, anchors,
        dict(num_classes=2, nms_iou_threshold=1.0, use_regular_nms=True))
    add("identical boxes, IoU threshold 0.99, regular", box, scores, anchors,
        dict(num_classes=2, nms_iou_threshold=0.99, use_regular_nms=True))

    # Zero-area boxes neither suppress nor are suppressed.
    anchors = np.array([[0.5, 0.5, 0.0, 0.3], [0.5, 0.5, 0.0, 0.3], [0.5, 0.5, 0.3, 0.0], [0.5, 0.5, 0.3, 0.3],
                        [0.5, 0.5, 0.3, 0.3]], np.float32)
    box = np.zeros((1, 5, 4), np.float32)
    scores = np.array([[.9], [.8], [.7], [.6], [.6]], np.float32)[None]
    add("zero-area boxes, 1 class without background, fast", box, scores, anchors, dict(num_classes=1))
    add("zero-area boxes, 1 class without background, regular", box, scores, anchors,
        dict(num_classes=1, use_regular_nms=True))

    # IoU exactly 0.5 against a threshold of 0.5: kept (suppression needs IoU above the threshold).
    anchors = np.array([[0.5, 0.5, 1, 1], [0.5, 0.25, 1, 0.5], [0.5, 0.75, 1, 0.5]], np.float32)
    box = np.zeros((1, 3, 4), np.float32)
    scores = np.array([[0, .9], [0, .8], [0, .7]], np.float32)[None]
    add("IoU exactly at the threshold 0.5, fast", box, scores, anchors, dict(num_classes=1, nms_iou_threshold=0.5))

    # Scores exactly at the score threshold are kept; fewer candidates than max_detections (zeros written).
    anchors = np.array([[0.5, 3.0 * i, 1, 1] for i in range(5)], np.float32)
    box = np.zeros((1, 5, 4), np.float32)
    scores = np.array([[0, .5, .25], [0, .5000001, .5], [0, .4999999, .7], [0, .1, .5], [0, .5, .5]], np.float32)[None]
    add("scores at the score threshold 0.5, regular, max_detections 12", box, scores, anchors,
        dict(num_classes=2, nms_score_threshold=0.5, max_detections=12, use_regular_nms=True))
    add("scores at the score threshold 0.5, fast, max_classes_per_detection 3 (> num_classes 2)", box, scores, anchors,
        dict(num_classes=2, nms_score_threshold=0.5, max_classes_per_detection=3))

    # Random tie-heavy scores (few distinct levels), boxes decoded from random encodings.
    levels = np.array([0.0, 0.1, 0.25, 0.25, 0.5, 0.75, 0.9], np.float32)
    n, classes = 80, 6
    anchors = random_anchors(rng, n, clustered=True)
    box = rng.normal(0, 1.0, (1, n, 6)).astype(np.float32)
    scores = rng.choice(levels, (1, n, classes)).astype(np.float32)
    add("tie-heavy float, 6 classes without background, 6 values per encoding, fast, max_classes_per_detection 4, "
        "IoU 0.3, anchors an input", box, scores, anchors,
        dict(num_classes=classes, max_detections=15, max_classes_per_detection=4, nms_iou_threshold=0.3),
        anchors_input=True)
    scores = rng.choice(levels, (1, n, classes + 1)).astype(np.float32)
    add("tie-heavy float, background + 6 classes, regular, detections_per_class 4, max_detections 20, score "
        "threshold 0.25", box, scores, anchors,
        dict(num_classes=classes, max_detections=20, detections_per_class=4, nms_score_threshold=0.25,
             use_regular_nms=True))
    n, classes = 120, 9
    anchors = random_anchors(rng, n, clustered=False)
    box = rng.normal(0, 1.0, (1, n, 4)).astype(np.float32)
    scores = rng.choice(levels, (1, n, classes + 1)).astype(np.float32)
    add("tie-heavy float, background + 9 classes, fast, max_classes_per_detection 9, IoU 0.7", box, scores, anchors,
        dict(num_classes=classes, max_detections=25, max_classes_per_detection=9, nms_iou_threshold=0.7))

    # uint8 with non-zero zero points everywhere, scores on few levels (some below the zero point: negative).
    def uint8_inputs(n, columns, quant):
        real_anchors = random_anchors(rng, n, clustered=True)
        anchors = quantize(real_anchors, *quant["anchors"])
        box = rng.integers(0, 256, (1, n, 4), dtype=np.uint8)
        zero = quant["scores"][1]
        scores = rng.choice(np.array([zero - 3, zero, zero + 9, zero + 30, zero + 30, zero + 60, 255]),
                            (1, n, columns)).astype(np.uint8)
        return box, scores, anchors

    quant = dict(box=(0.0371, 143), scores=(0.0117, 17), anchors=(0.0057, 9))
    box, scores, anchors = uint8_inputs(150, 8, quant)
    add("tie-heavy uint8 (zero points 143, 17, 9), background + 7 classes, fast, max_classes_per_detection 3",
        box, scores, anchors, dict(num_classes=7, max_detections=20, max_classes_per_detection=3), quant)
    quant = dict(box=(0.0523, 77), scores=(0.0039, 41), anchors=(0.0049, 3))
    box, scores, anchors = uint8_inputs(97, 5, quant)
    add("tie-heavy uint8 (zero points 77, 41, 3), 5 classes without background, regular, detections_per_class 6, "
        "max_detections 18, anchors an input", box, scores, anchors,
        dict(num_classes=5, max_detections=18, detections_per_class=6, use_regular_nms=True), quant, anchors_input=True)

    # Dense: every score of every anchor is output (IoU 1.0, score threshold far below), the flattened class
    # predictions' size not a multiple of 8, so the last size % 8 take the scalar dequantization.
    for n, columns, background in ((53, 7, True), (41, 5, False)):
        quant = dict(box=(0.0291, 120), scores=(0.0133, 97), anchors=(0.0061, 11))
        anchors = quantize(random_anchors(rng, n, clustered=False), *quant["anchors"])
        box = rng.integers(0, 256, (1, n, 4), dtype=np.uint8)
        scores = rng.integers(0, 256, (1, n, columns), dtype=np.uint8)
        classes = columns - 1 if background else columns
        assert n * columns % 8
        add(f"dense uint8, {n} anchors × {columns} columns ({'background + ' if background else ''}{classes} classes), "
            f"fast, every class of every anchor", box, scores, anchors,
            dict(num_classes=classes, max_detections=n, max_classes_per_detection=classes, nms_iou_threshold=1.0,
                 nms_score_threshold=-1e30), quant)
    return cases


def generate(models, shared):
    ssd = SSDOperator(os.path.join(models, MODEL), shared)
    cases = ssd_cases(ssd) + synthetic_cases()
    arrays, labels = {}, []
    for i, case in enumerate(cases):
        outputs, written = run(case["model"], case["values"])
        options = flexbuffers.Loads(bytes(schema.ModelT.InitFromPackedBuf(case["model"], 0)
                                          .subgraphs[0].operators[0].customOptions))
        count = int(outputs[3][0])
        assert np.array_equal(written, expected_written(options, count, len(written))), \
            f"{case['label']}: LiteRT wrote other slots than expected"
        slots = int(np.nonzero(written)[0][-1]) + 1 if written.any() else 0
        arrays[f"m{i}"] = np.frombuffer(case["model"], dtype=np.uint8)
        for j, value in enumerate(case["values"]):
            arrays[f"a{i}_{j}"] = value
        for k, value in enumerate(outputs):
            arrays[f"o{i}_{k}"] = value
        arrays[f"n{i}"] = np.array([slots], dtype=np.int32)
        model = schema.ModelT.InitFromPackedBuf(case["model"], 0).subgraphs[0]
        labels.append(dict(label=case["label"], group=case["group"],
                           path="regular" if options.get("use_regular_nms", False) else "fast", options=options,
                           inputs=[model.tensors[t].name.decode() for t in model.inputs], count=count, slots=slots,
                           unwritten=int((~written).sum())))
    arrays["cases.json"] = labels
    return arrays


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="Models")
    parser.add_argument("--shared", default=os.path.join("..", "shared"))
    parser.add_argument("--out", default=os.path.join(".cache", "goldens-postprocess"))
    args = parser.parse_args()
    target = os.path.join(args.out, "cases.npz")
    sources = [__file__, os.path.join(args.models, MODEL)] + [os.path.join(args.shared, "images", n) for n in IMAGES]
    if os.path.exists(target) and os.path.getmtime(target) > max(os.path.getmtime(p) for p in sources):
        print("ok       postprocess cases")
        return
    os.makedirs(args.out, exist_ok=True)
    arrays = generate(args.models, args.shared)
    encoded = {k: np.frombuffer(json.dumps(v).encode(), dtype=np.uint8) if k.endswith(".json") else v
               for k, v in arrays.items()}
    np.savez(target + ".partial.npz", **encoded)
    os.replace(target + ".partial.npz", target)
    labels = arrays["cases.json"]
    print(f"wrote    postprocess cases ({os.path.getsize(target) / 1e6:.1f} MB, {len(labels)} cases)")
    for i, case in enumerate(labels):
        print(f"  {i:2d} {case['path']:7s} count {case['count']:4d} slots {case['slots']:4d}  {case['label']}")


if __name__ == "__main__":
    main()
