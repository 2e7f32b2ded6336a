#!/usr/bin/env python3
"""Kernel sweeps: synthetic one-operator models over shape and parameter sweeps, and LiteRT's outputs for them.

As XNNPACK tests its micro-kernels, every operator family is run over a grid of shapes and parameters chosen to
hit the edges of a kernel: spatial sizes 1×1, 5×7, 9×9, 16×16, channel counts that are no multiple of 8 or 16 (1,
3, 7, 13, 17, 33), odd and non-square kernels, strides, SAME and VALID padding, dilation, fused activations,
broadcasting. Each configuration is made in float32, in uint8 with per-tensor asymmetric quantization and in int8
(weights, where the operator has them, quantized symmetrically per output channel; int32 bias with scale
input_scale × weight_scale). Models are built with LiteRT's flatbuffer object API (ModelT, schema version 3, file
identifier TFL3) with the operator code version LiteRT's converter would give (op_version.cc; see version).

Quantization: activations get scales 0.02–0.1 and zero points anywhere in the type's range (LOGISTIC and TANH
inputs: scales 0.02–0.05 and 0.01–0.025, zero points in the middle half, so that they span the curve rather than
its flat ends); weights scales from 0.001 up to 0.015/√fan_in (see weights). An output whose range depends on the
data (convolutions, fully connected, add, sub, mul, mean, concatenation of differently quantized inputs) gets the
scale and zero point a converter would calibrate: the operator is run first as a float twin (every constant and
input dequantized) and the output's range — with zero in it, the extreme 0.2% of a large output left out, a little
margin where a value is not a clamp — is mapped onto the type's range. Operators whose output must share the
input's quantization (pools, pad, resize) get it; softmax and logistic get 1/256 (zero point 0 uint8, −128 int8),
tanh 1/128 (128 uint8, 0 int8). Inputs are random with a fixed seed per family: quantized inputs uniformly over the
whole type range, float inputs uniformly in [−2, 2]. A case whose builtin output is all one value or more than
half saturated is drawn again (up to DRAWS times), unless it is constant by definition (softmax over one element).

One .npz per family is written to the cache directory (conv2d.npz, depthwise_conv2d.npz, fully_connected.npz,
add.npz, sub.npz, mul.npz, pool.npz (average and max), mean.npz, softmax.npz, logistic.npz, tanh.npz,
concatenation.npz, pad.npz (PAD and PADV2), resize_bilinear.npz, quantize.npz, dequantize.npz), holding for case i:

- `m<i>`: the model, its bytes as a uint8 array;
- `a<i>_<j>`: graph input j;
- `o<i>_<k>`: output k from LiteRT with OpResolverType.AUTO (the XNNPACK delegate where it takes the operator),
  1 thread; absent when the AUTO interpreter fails (auto_error);
- `b<i>_<k>`: output k from LiteRT's builtin kernels (BUILTIN_WITHOUT_DEFAULT_DELEGATES), 1 thread;
- `cases.json`: per case {"label": type and parameters, "op": the builtin operator's name, "type": float32, uint8
  or int8 (for QUANTIZE the output's), "version": the operator code version, "delegated": whether XNNPACK took it
  (a DELEGATE node in the AUTO interpreter), "max_diff": per output the largest |AUTO − builtin| (LSB for integer
  outputs, absolute for float ones; null without AUTO outputs), "saturated": per output the share of quantized
  outputs at a limit of the type that is not the output's zero point (null for float; a RELU6 clamp at the top
  counts), "constant": per output whether all its values are equal, "draws": how many random draws it took, and
  "constant_by_definition" / "auto_error" where they apply};
- `rejected.json`: [label, error] of every model LiteRT's builtin kernels refuse; it gets no index. Expected
  there: CONV_2D and DEPTHWISE_CONV_2D with the bias omitted (see CONV) and int8 CONCATENATION of differently
  quantized inputs (LiteRT's int8 kernel needs every input quantized as the output; uint8 requantizes).

A summary is printed when a family is regenerated (or for all with --summary): cases, how many XNNPACK took and,
per case, the largest AUTO − builtin difference and the largest saturated share; cases still degenerate after
DRAWS draws are flagged DEGENERATE.

Usage: pip install ai-edge-litert numpy flatbuffers
       python3 tools/litert_kernel_sweeps.py [--out .cache/kernel-sweeps] [--families conv2d,mean] [--force]
           [--summary]
Regenerates a family's .npz only when it is missing or older than this script.
"""
import argparse
import json
import math
import os
import zlib
from functools import partial

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as schema
from ai_edge_litert.interpreter import Interpreter, OpResolverType

KINDS = ["float32", "uint8", "int8"]
DRAWS = 8  # draws of a case's random tensors before a degenerate one is kept
NUMPY = {"float32": np.float32, "uint8": np.uint8, "int8": np.int8, "int32": np.int32}
TENSOR_TYPE = {"float32": schema.TensorType.FLOAT32, "uint8": schema.TensorType.UINT8,
               "int8": schema.TensorType.INT8, "int32": schema.TensorType.INT32}
LIMITS = {"uint8": (0, 255), "int8": (-128, 127)}
ACTIVATION = {"NONE": schema.ActivationFunctionType.NONE, "RELU": schema.ActivationFunctionType.RELU,
              "RELU6": schema.ActivationFunctionType.RELU6}
PADDING = {"SAME": schema.Padding.SAME, "VALID": schema.Padding.VALID}


class T:
    """A tensor of a one-operator model: shape (None: left for LiteRT to infer), type, constant data (None for a
    graph input or output), quantization (scale and zero point lists, None for none; axis for per-channel) and,
    for a graph input, the value fed to it."""

    def __init__(self, shape, kind, data=None, scale=None, zero_point=None, axis=0, value=None):
        self.shape = None if shape is None else [int(s) for s in shape]
        self.kind = kind
        self.data = data
        self.scale = None if scale is None else [float(np.float32(s)) for s in scale]
        self.zero_point = None if zero_point is None else [int(z) for z in zero_point]
        self.axis = axis
        self.value = value

    def quantized(self):
        return self.kind in LIMITS

    def dequantized(self, array):
        shape = [1] * array.ndim
        if len(self.scale) > 1:
            shape[self.axis] = len(self.scale)
        scale = np.array(self.scale, dtype=np.float64).reshape(shape)
        zero_point = np.array(self.zero_point, dtype=np.float64).reshape(shape)
        return ((array.astype(np.float64) - zero_point) * scale).astype(np.float32)

    def real(self):
        """The float twin: the same tensor in float32 with its constant data and input value dequantized."""
        if self.scale is None or self.kind == "float32":
            return self
        return T(self.shape, "float32",
                 None if self.data is None else self.dequantized(self.data),
                 value=None if self.value is None else self.dequantized(self.value))


class Case:
    def __init__(self, label, op, kind, inputs, outputs, options=None, **parameters):
        self.label, self.op, self.kind = f"{kind} {label}", op, kind
        self.inputs, self.outputs, self.options = inputs, outputs, options
        self.parameters = parameters  # what version() needs to know


class AlignedBufferT(schema.BufferT):
    """A constant buffer packed 16-byte aligned, as LiteRT's converter writes them."""

    def Pack(self, builder):
        data = None
        if self.data is not None and len(self.data):
            raw = np.asarray(self.data, dtype=np.uint8).tobytes()
            builder.StartVector(1, len(raw), 16)
            builder.head = builder.head - len(raw)
            builder.Bytes[builder.head:builder.head + len(raw)] = raw
            data = builder.EndVector()
        schema.BufferStart(builder)
        if data is not None:
            schema.BufferAddData(builder, data)
        return schema.BufferEnd(builder)


def version(case):
    """The operator code version LiteRT's converter gives this operator (op_version.cc)."""
    op, kind, p = case.op, case.kind, case.parameters
    int8 = kind == "int8"
    if op == "CONV_2D":
        return 3 if int8 else 1
    if op == "DEPTHWISE_CONV_2D":
        return 3 if int8 else 2 if p.get("dilation", 1) != 1 else 1
    if op == "FULLY_CONNECTED":
        return 6 if len(case.inputs) == 2 else 5 if p["keep_num_dims"] else 4 if int8 else 1
    if op == "MUL":
        a, b, out = case.inputs[0], case.inputs[1], case.outputs[0]
        if a.scale and b.scale and out.scale and a.scale[0] * b.scale[0] / out.scale[0] >= 1:
            return 3
        return 2 if int8 else 1
    if op == "RESIZE_BILINEAR":
        return 3 if p["half_pixel_centers"] else 2 if int8 else 1
    if op == "DEQUANTIZE":
        return (5 if len(case.inputs[0].scale) > 1 else 2) if case.inputs[0].kind == "int8" else 1
    if op == "QUANTIZE":
        return 1
    # ADD, SUB, pools, MEAN, SOFTMAX, LOGISTIC, TANH, CONCATENATION, PAD, PADV2
    return 2 if int8 else 1


def build(case, version_number, inputs, outputs):
    """The flatbuffer of a model holding the case's operator alone over these tensors (None: an omitted optional
    input, index −1). Tensors without data and not among the outputs become the graph's inputs, in order."""
    tensors, buffers, index = [], [schema.BufferT()], {}

    def add(t):
        if t is None:
            return -1
        if id(t) in index:
            return index[id(t)]
        tensor = schema.TensorT()
        tensor.shape = list(t.shape) if t.shape is not None else []
        tensor.type = TENSOR_TYPE[t.kind]
        tensor.name = f"t{len(tensors)}".encode()
        tensor.buffer = 0
        if t.data is not None:
            buffer = AlignedBufferT()
            buffer.data = np.frombuffer(np.ascontiguousarray(t.data, dtype=NUMPY[t.kind]).tobytes(), dtype=np.uint8)
            buffers.append(buffer)
            tensor.buffer = len(buffers) - 1
        if t.scale is not None:
            q = schema.QuantizationParametersT()
            q.scale, q.zeroPoint, q.quantizedDimension = list(t.scale), list(t.zero_point), t.axis
            tensor.quantization = q
        tensors.append(tensor)
        index[id(t)] = len(tensors) - 1
        return index[id(t)]

    op_inputs = [add(t) for t in inputs]
    op_outputs = [add(t) for t in outputs]
    code = schema.OperatorCodeT()
    code.builtinCode = getattr(schema.BuiltinOperator, case.op)
    code.deprecatedBuiltinCode = min(code.builtinCode, 127)
    code.version = version_number
    op = schema.OperatorT()
    op.opcodeIndex = 0
    op.inputs, op.outputs = op_inputs, op_outputs
    if case.options is not None:
        op.builtinOptionsType, op.builtinOptions = case.options
    subgraph = schema.SubGraphT()
    subgraph.tensors = tensors
    subgraph.operators = [op]
    subgraph.inputs = []
    for t, i in zip(inputs, op_inputs):
        if t is not None and t.data is None and i not in subgraph.inputs:
            subgraph.inputs.append(i)
    subgraph.outputs = op_outputs
    subgraph.name = b"main"
    model = schema.ModelT()
    model.version = 3
    model.operatorCodes = [code]
    model.subgraphs = [subgraph]
    model.buffers = buffers
    model.description = b"kernel sweep: " + case.label.encode()
    builder = flatbuffers.Builder(1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def graph_inputs(inputs):
    seen, values = set(), []
    for t in inputs:
        if t is not None and t.data is None and id(t) not in seen:
            seen.add(id(t))
            values.append(t.value)
    return values


def run(content, values, resolver):
    interpreter = Interpreter(model_content=content, num_threads=1, experimental_op_resolver_type=resolver)
    interpreter.allocate_tensors()
    for detail, value in zip(interpreter.get_input_details(), values):
        interpreter.set_tensor(detail["index"], np.asarray(value).reshape(detail["shape"]))
    interpreter.invoke()
    outputs = [interpreter.get_tensor(d["index"]).copy() for d in interpreter.get_output_details()]
    delegated = any(node["op_name"] == "DELEGATE" for node in interpreter._get_ops_details())
    return outputs, delegated


def fit(values, kind):
    """(scale, zero point) mapping the range of these real values, zero included, onto the type's range, as a
    converter calibrates: the extreme 0.2% of a large output left out, 2% margin on a side that is not a clamp."""
    v = values.astype(np.float64).ravel()
    lo, hi = (np.percentile(v, [0.2, 99.8]) if v.size >= 100 else (v.min(), v.max()))
    margin = 0.02 * max(hi - lo, abs(lo), abs(hi), 1e-3)
    if np.mean(v <= lo) < 0.01 or v.size < 100:
        lo -= margin if lo < 0 else 0
    if np.mean(v >= hi) < 0.01 or v.size < 100:
        hi += margin if hi > 0 else 0
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    if hi - lo < 1e-3:
        hi = lo + 1e-3
    qmin, qmax = LIMITS[kind]
    scale = float(np.float32((hi - lo) / (qmax - qmin)))
    zero_point = int(np.clip(round(qmin - lo / scale), qmin, qmax))
    return scale, zero_point


def difference(a, b):
    """Largest |a − b|: in LSB for integer tensors, absolute for float ones."""
    if a.size == 0:
        return 0
    if np.issubdtype(a.dtype, np.integer):
        return int(np.abs(a.astype(np.int64) - b.astype(np.int64)).max())
    return float(np.abs(a.astype(np.float64) - b.astype(np.float64)).max())


def saturated(t, value):
    """Share of a quantized output's values at a limit of its type that is not its zero point (a ReLU's or a
    probability's zero sitting at the lower limit is no saturation); None for a float output."""
    if not t.quantized():
        return None
    limits = [q for q in LIMITS[t.kind] if q != t.zero_point[0]]
    return float(np.mean(np.isin(value, limits)))


def execute(case):
    """Calibrate the case's open output quantization on its float twin, settle output shapes, build the model
    and run it with the builtin kernels. Returns (model bytes, inputs, builtin outputs)."""
    values = graph_inputs(case.inputs)
    open_quantization = [t for t in case.outputs if t.quantized() and t.scale is None]
    if open_quantization or any(t.shape is None for t in case.outputs):
        if open_quantization or case.kind == "float32":
            probe_inputs = [None if t is None else t.real() for t in case.inputs]
            probe_outputs = [T(None, "float32") for _ in case.outputs]
            probe_values = graph_inputs(probe_inputs)
        else:
            probe_inputs, probe_values = case.inputs, values
            probe_outputs = [T(None, t.kind, scale=t.scale, zero_point=t.zero_point, axis=t.axis) for t in case.outputs]
        probe = build(case, version(case), probe_inputs, probe_outputs)
        real, _ = run(probe, probe_values, OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
        for t, value in zip(case.outputs, real):
            if t.shape is None:
                t.shape = list(value.shape)
            if t.quantized() and t.scale is None:
                scale, zero_point = fit(value, t.kind)
                t.scale, t.zero_point = [scale], [zero_point]
    content = build(case, version(case), case.inputs, case.outputs)
    builtin, _ = run(content, values, OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    return content, values, builtin


def constant(value):
    return bool(value.size > 1 and np.all(value == value.flat[0]))


def degenerate(case, builtin):
    """Whether an output is all one value or mostly saturated (unless it is constant by definition)."""
    if case.parameters.get("constant"):
        return False
    return any(constant(b) or (saturated(t, b) or 0) > 0.5 for t, b in zip(case.outputs, builtin))


def message(error):
    return " | ".join(str(error).split("\n")).strip() or repr(error)


# ---------------------------------------------------------------------------------------------- tensor makers

def log_uniform(rng, lo, hi):
    return float(np.float32(math.exp(rng.uniform(math.log(lo), math.log(hi)))))


def activation(rng, kind, shape, scale=None, zero_point=None):
    """A graph input: float uniformly in [−2, 2]; quantized with a scale of 0.02–0.1 and a zero point anywhere in
    the range (unless given), values uniformly over the whole type range."""
    if kind == "float32":
        return T(shape, kind, value=rng.uniform(-2, 2, shape).astype(np.float32))
    qmin, qmax = LIMITS[kind]
    scale = log_uniform(rng, 0.02, 0.1) if scale is None else scale
    zero_point = int(rng.integers(qmin, qmax + 1)) if zero_point is None else zero_point
    return T(shape, kind, scale=[scale], zero_point=[zero_point],
             value=rng.integers(qmin, qmax + 1, shape).astype(NUMPY[kind]))


def like(t, shape, rng):
    """Another graph input quantized as t is, with its own random values."""
    if t.kind == "float32":
        return activation(rng, "float32", shape)
    return activation(rng, t.kind, shape, t.scale[0], t.zero_point[0])


def output(kind, shape=None, scale=None, zero_point=None):
    """A graph output; quantized without a scale it is calibrated on the float twin (see fit)."""
    return T(shape, kind, scale=None if scale is None else [scale],
             zero_point=None if zero_point is None else [zero_point])


def same_as(t, shape=None):
    return T(shape, t.kind, scale=t.scale, zero_point=t.zero_point)


def weights(rng, kind, shape, axis, fan_in):
    """Constant weights: float ~ U(−1, 1)·2/√fan_in; uint8 per-tensor asymmetric (zero point 118–138, values over
    the whole range); int8 symmetric per channel along axis (values in [−127, 127]). Quantized scales are drawn
    log-uniformly from 0.001 up to 0.015/√fan_in (at most 0.05, at least 0.0015), so that accumulators keep a
    realistic spread and RELU6 does not clamp most outputs."""
    if kind == "float32":
        return T(shape, kind, (rng.uniform(-1, 1, shape) * 2 / math.sqrt(fan_in)).astype(np.float32))
    top = min(0.05, max(0.0015, 0.015 / math.sqrt(fan_in)))
    if kind == "uint8":
        return T(shape, kind, rng.integers(0, 256, shape).astype(np.uint8),
                 scale=[log_uniform(rng, 0.001, top)], zero_point=[int(rng.integers(118, 139))])
    channels = shape[axis]
    return T(shape, kind, rng.integers(-127, 128, shape).astype(np.int8),
             scale=[log_uniform(rng, 0.001, top) for _ in range(channels)], zero_point=[0] * channels, axis=axis)


def bias(rng, kind, channels, x, w, fan_in, zero=False):
    """Constant bias: float ~ U(−0.5, 0.5); quantized int32 with scale input_scale × weight_scale (per channel for
    int8) and zero point 0, its real value up to about half the accumulator's spread. zero: all zeros (what a
    converter stores for a layer without bias)."""
    if kind == "float32":
        return T([channels], kind, rng.uniform(-0.5, 0.5, channels).astype(np.float32) * (0 if zero else 1))
    scales = [float(np.float32(x.scale[0]) * np.float32(s)) for s in w.scale]
    spread = 0.5 * math.sqrt(fan_in) * (x.scale[0] * 74) * (float(np.mean(w.scale)) * 74)
    per_channel = np.array(scales if len(scales) > 1 else scales * channels)
    data = np.round(rng.uniform(-1, 1, channels) * spread / per_channel * (0 if zero else 1)).astype(np.int32)
    return T([channels], "int32", data, scale=scales, zero_point=[0] * len(scales), axis=0)


def int32(values):
    array = np.array(values, dtype=np.int32)
    return T(array.shape, "int32", array)


def options(kind, **fields):
    value = getattr(schema, kind + "T")()
    for key, field in fields.items():
        setattr(value, key, field)
    return getattr(schema.BuiltinOptions, kind), value


def act_label(name):
    return "" if name == "NONE" else " " + name


# ---------------------------------------------------------------------------------------------- families
# A family is a generator of makers: each a function of no arguments that draws a case's random tensors and returns
# the Case; sweep calls a maker again (new draws) when a case comes out degenerate (see sweep).

# (H, W, Cin, Cout, kernel h, kernel w, stride, padding, dilation, activation, bias). LiteRT's CONV_2D and
# DEPTHWISE_CONV_2D need a bias tensor (an omitted one, index −1, fails to prepare: "Tensor at index 2 was optional
# but was expected"; CONV_2D with two inputs fails "has_bias was not true"; DEPTHWISE_CONV_2D with two inputs
# crashes the process), so a configuration without bias gets an all-zero bias as converters write it, and the
# first such configuration is also tried once per type with the bias omitted (−1), which lands in rejected.json.
CONV = [
    (5, 7, 3, 5, 1, 1, 1, "SAME", 1, "NONE", True),
    (9, 9, 13, 16, 1, 1, 1, "VALID", 1, "NONE", False),
    (16, 16, 8, 33, 1, 1, 2, "SAME", 1, "RELU", True),
    (1, 1, 13, 19, 1, 1, 1, "VALID", 1, "RELU6", True),
    (5, 7, 3, 16, 3, 3, 1, "SAME", 1, "RELU", True),
    (16, 16, 3, 16, 3, 3, 2, "SAME", 1, "RELU6", True),
    (9, 9, 8, 19, 3, 3, 1, "VALID", 1, "NONE", False),
    (9, 9, 13, 5, 3, 3, 2, "VALID", 1, "RELU", True),
    (5, 7, 1, 1, 3, 3, 1, "SAME", 1, "NONE", True),
    (5, 7, 8, 1, 3, 3, 2, "SAME", 1, "NONE", True),
    (1, 1, 13, 16, 3, 3, 1, "SAME", 1, "RELU", True),
    (16, 16, 13, 33, 3, 3, 1, "SAME", 2, "RELU6", True),
    (9, 9, 3, 5, 3, 3, 1, "VALID", 2, "NONE", True),
    (9, 9, 8, 19, 3, 3, 2, "SAME", 2, "RELU", False),
    (9, 9, 3, 19, 5, 5, 1, "SAME", 1, "RELU", True),
    (16, 16, 8, 16, 5, 5, 2, "SAME", 1, "NONE", False),
    (5, 7, 1, 5, 5, 5, 1, "VALID", 1, "RELU6", True),
    (9, 9, 13, 1, 5, 5, 2, "VALID", 1, "NONE", True),
    (16, 16, 3, 5, 5, 5, 1, "SAME", 2, "RELU", True),
    (9, 9, 8, 16, 3, 1, 1, "SAME", 1, "RELU", True),
    (5, 7, 13, 19, 1, 3, 1, "SAME", 1, "NONE", False),
    (16, 16, 3, 33, 3, 1, 2, "VALID", 1, "RELU6", True),
    (9, 9, 1, 5, 1, 3, 2, "SAME", 1, "NONE", True),
]


def conv2d(rng):
    def make(kind, config, omit_bias=False):
        h, w, cin, cout, kh, kw, stride, padding, dilation, act, has_bias = config
        x = activation(rng, kind, [1, h, w, cin])
        fan_in = kh * kw * cin
        filter_ = weights(rng, kind, [cout, kh, kw, cin], 0, fan_in)
        b = None if omit_bias else bias(rng, kind, cout, x, filter_, fan_in, zero=not has_bias)
        label = (f"1x{h}x{w}x{cin} k{kh}x{kw} s{stride} {padding}" + (f" d{dilation}" if dilation > 1 else "")
                 + act_label(act) + ("" if has_bias else " no bias (-1)" if omit_bias else " zero-bias")
                 + f" -> {cout}")
        return Case(label, "CONV_2D", kind, [x, filter_, b], [output(kind)],
                    options("Conv2DOptions", padding=PADDING[padding], strideW=stride, strideH=stride,
                            fusedActivationFunction=ACTIVATION[act], dilationWFactor=dilation,
                            dilationHFactor=dilation))

    for kind in KINDS:
        omitted = False
        for config in CONV:
            yield partial(make, kind, config)
            if not config[-1] and not omitted:
                omitted = True
                yield partial(make, kind, config, True)


# (H, W, C, multiplier, kernel, stride, padding, dilation, activation, bias); bias as for CONV
DEPTHWISE = [
    (16, 16, 8, 1, 3, 1, "SAME", 1, "NONE", True),
    (9, 9, 13, 1, 3, 2, "SAME", 1, "RELU6", True),
    (5, 7, 7, 2, 3, 1, "VALID", 1, "RELU", True),
    (16, 16, 24, 1, 3, 2, "VALID", 1, "RELU6", True),
    (9, 9, 33, 1, 3, 1, "SAME", 2, "NONE", True),
    (1, 1, 1, 2, 3, 1, "SAME", 1, "NONE", True),
    (9, 9, 24, 1, 3, 1, "SAME", 1, "RELU", False),
    (9, 9, 13, 1, 5, 1, "SAME", 1, "RELU", True),
    (16, 16, 8, 2, 5, 2, "SAME", 1, "NONE", True),
    (5, 7, 1, 1, 5, 1, "VALID", 1, "NONE", True),
    (16, 16, 24, 1, 5, 2, "VALID", 1, "NONE", True),
    (9, 9, 7, 1, 2, 2, "VALID", 1, "NONE", True),
    (5, 7, 13, 2, 2, 1, "SAME", 1, "RELU", True),
    (16, 16, 33, 1, 2, 1, "VALID", 1, "RELU6", True),
    (9, 9, 8, 1, 7, 1, "SAME", 1, "NONE", True),
    (16, 16, 13, 1, 7, 2, "SAME", 1, "RELU", True),
    (9, 9, 1, 2, 7, 1, "VALID", 1, "NONE", True),
    (16, 16, 7, 2, 3, 1, "VALID", 2, "RELU6", True),
]


def depthwise_conv2d(rng):
    def make(kind, config, omit_bias=False):
        h, w, c, multiplier, k, stride, padding, dilation, act, has_bias = config
        x = activation(rng, kind, [1, h, w, c])
        cout = c * multiplier
        filter_ = weights(rng, kind, [1, k, k, cout], 3, k * k)
        b = None if omit_bias else bias(rng, kind, cout, x, filter_, k * k, zero=not has_bias)
        label = (f"1x{h}x{w}x{c} k{k}x{k} m{multiplier} s{stride} {padding}"
                 + (f" d{dilation}" if dilation > 1 else "") + act_label(act)
                 + ("" if has_bias else " no bias (-1)" if omit_bias else " zero-bias"))
        return Case(label, "DEPTHWISE_CONV_2D", kind, [x, filter_, b], [output(kind)],
                    options("DepthwiseConv2DOptions", padding=PADDING[padding], strideW=stride, strideH=stride,
                            depthMultiplier=multiplier, fusedActivationFunction=ACTIVATION[act],
                            dilationWFactor=dilation, dilationHFactor=dilation),
                    dilation=dilation)

    for kind in KINDS:
        omitted = False
        for config in DEPTHWISE:
            yield partial(make, kind, config)
            if not config[-1] and not omitted:
                omitted = True
                yield partial(make, kind, config, True)


# (depth, units, rows, input rank, keep_num_dims, activation, bias); without bias the bias input is omitted (−1),
# which LiteRT's FULLY_CONNECTED accepts
FULLY_CONNECTED = [
    (1, 1, 1, 2, False, "NONE", True),
    (1, 10, 3, 3, True, "RELU", True),
    (7, 17, 1, 2, False, "NONE", True),
    (7, 10, 3, 3, False, "RELU6", True),
    (7, 1, 3, 2, True, "NONE", False),
    (64, 1, 3, 3, True, "NONE", True),
    (64, 17, 1, 2, True, "RELU", True),
    (64, 10, 3, 2, False, "NONE", True),
    (64, 17, 3, 3, False, "RELU6", True),
    (130, 17, 3, 3, True, "RELU6", True),
    (130, 1, 1, 2, False, "RELU", True),
    (130, 10, 1, 3, True, "NONE", True),
]


def fully_connected(rng):
    def make(kind, config):
        depth, units, rows, rank, keep, act, has_bias = config
        shape = [rows, depth] if rank == 2 else [1, rows, depth]
        x = activation(rng, kind, shape)
        w = weights(rng, kind, [units, depth], 0, depth)
        b = bias(rng, kind, units, x, w, depth) if has_bias else None
        label = ("x".join(map(str, shape)) + f" -> {units}" + (" keep_num_dims" if keep else "")
                 + act_label(act) + ("" if has_bias else " no bias (-1)"))
        return Case(label, "FULLY_CONNECTED", kind, [x, w, b], [output(kind)],
                    options("FullyConnectedOptions", fusedActivationFunction=ACTIVATION[act], keepNumDims=keep),
                    keep_num_dims=keep)

    for kind in KINDS:
        for config in FULLY_CONNECTED:
            yield partial(make, kind, config)


# (shape a, shape b, activation, both inputs quantized alike)
BINARY = [
    ([1, 4, 5, 7], [1, 4, 5, 7], "NONE", True),
    ([1, 4, 5, 7], [1, 4, 5, 7], "RELU", False),
    ([1, 4, 5, 7], [7], "RELU6", False),
    ([1, 4, 5, 7], [1, 1, 1, 7], "NONE", False),
    ([1, 4, 5, 7], [1, 4, 1, 1], "RELU", False),
    ([1, 4, 5, 7], [1, 7], "NONE", False),
    ([1, 1, 1, 7], [1, 4, 5, 7], "RELU6", False),
]


def binary(name, options_name):
    def family(rng):
        def make(kind, config):
            shape_a, shape_b, act, alike = config
            a = activation(rng, kind, shape_a)
            b = like(a, shape_b, rng) if alike else activation(rng, kind, shape_b)
            label = ("x".join(map(str, shape_a)) + " " + "x".join(map(str, shape_b)) + act_label(act)
                     + (" same-q" if alike and kind != "float32" else ""))
            return Case(label, name, kind, [a, b], [output(kind)],
                        options(options_name, fusedActivationFunction=ACTIVATION[act]))

        for kind in KINDS:
            for config in BINARY:
                yield partial(make, kind, config)
    return family


# (filter h, filter w, stride, padding, H, W, C, activation); a filter of None is the whole input (global)
POOL = [
    (2, 2, 2, "VALID", 16, 16, 7, "NONE"),
    (3, 3, 1, "SAME", 9, 9, 13, "NONE"),
    (3, 3, 2, "VALID", 9, 9, 33, "RELU6"),
    (None, None, 1, "VALID", 5, 7, 17, "NONE"),
    (2, 2, 2, "SAME", 5, 7, 3, "RELU"),
]


def pool(rng):
    def make(name, kind, config):
        fh, fw, stride, padding, h, w, c, act = config
        x = activation(rng, kind, [1, h, w, c])
        whole = fh is None
        fh, fw = (h, w) if whole else (fh, fw)
        label = (f"{name} 1x{h}x{w}x{c} " + ("global" if whole else f"{fh}x{fw} s{stride} {padding}")
                 + act_label(act))
        return Case(label, name, kind, [x], [same_as(x) if kind != "float32" else output(kind)],
                    options("Pool2DOptions", padding=PADDING[padding], strideW=stride, strideH=stride,
                            filterWidth=fw, filterHeight=fh, fusedActivationFunction=ACTIVATION[act]))

    for name in ("AVERAGE_POOL_2D", "MAX_POOL_2D"):
        for kind in KINDS:
            for config in POOL:
                yield partial(make, name, kind, config)


# (H, W, C, keep_dims, output quantized as the input (quantized types only))
MEAN = [
    (5, 7, 13, True, False),
    (5, 7, 13, False, False),
    (9, 9, 3, True, True),
    (16, 16, 33, False, False),
    (1, 1, 7, True, False),
    (16, 16, 17, False, True),
]


def mean(rng):
    def make(kind, config):
        h, w, c, keep, alike = config
        x = activation(rng, kind, [1, h, w, c])
        label = f"1x{h}x{w}x{c} axes 1,2" + (" keep_dims" if keep else "") + (" same-q" if alike else "")
        return Case(label, "MEAN", kind, [x, int32([1, 2])], [same_as(x) if alike else output(kind)],
                    options("ReducerOptions", keepDims=keep))

    for kind in KINDS:
        for config in MEAN:
            if not (config[-1] and kind == "float32"):
                yield partial(make, kind, config)


# (rows, depth, beta); softmax over one element is 1 everywhere by definition
SOFTMAX = [(1, 10, 1.0), (3, 10, 0.5), (1, 1001, 1.0), (3, 1001, 0.5), (1, 1, 1.0), (3, 1, 0.5), (3, 17, 1.0)]


def softmax(rng):
    def make(kind, config):
        rows, depth, beta = config
        x = activation(rng, kind, [rows, depth])
        out = output(kind) if kind == "float32" else output(kind, None, 1 / 256, LIMITS[kind][0])
        return Case(f"{rows}x{depth} beta {beta}", "SOFTMAX", kind, [x], [out], options("SoftmaxOptions", beta=beta),
                    constant=depth == 1)

    for kind in KINDS:
        for config in SOFTMAX:
            yield partial(make, kind, config)


def elementwise(name, scale, zero_points, input_scales):
    """LOGISTIC or TANH on a few shapes. The quantized input's scale is drawn from input_scales and its zero point
    from the middle half of the range, so that the input spans the curve rather than its flat ends."""
    shapes = [[1, 5, 7, 3], [1, 1001], [3, 17]]

    def family(rng):
        def make(kind, shape):
            if kind == "float32":
                x = activation(rng, kind, shape)
            else:
                qmin, qmax = LIMITS[kind]
                x = activation(rng, kind, shape, log_uniform(rng, *input_scales),
                               int(rng.integers(qmin + 64, qmax - 63)))
            out = output(kind) if kind == "float32" else output(kind, None, scale, zero_points[kind])
            return Case("x".join(map(str, shape)), name, kind, [x], [out])

        for kind in KINDS:
            for shape in shapes:
                yield partial(make, kind, shape)
    return family


# (axis, input shapes, quantized alike)
CONCATENATION = [
    (3, [[1, 5, 7, 3], [1, 5, 7, 13]], True),
    (3, [[1, 4, 4, 7], [1, 4, 4, 1], [1, 4, 4, 17]], False),
    (1, [[1, 3, 5, 7], [1, 4, 5, 7]], True),
    (1, [[1, 2, 5, 7], [1, 5, 5, 7]], False),
    (1, [[3, 7], [3, 10]], False),
]


def concatenation(rng):
    def make(kind, config):
        axis, shapes, alike = config
        first = activation(rng, kind, shapes[0])
        inputs = [first] + [like(first, s, rng) if alike else activation(rng, kind, s) for s in shapes[1:]]
        out = same_as(first) if alike and kind != "float32" else output(kind)
        label = f"axis {axis} " + " ".join("x".join(map(str, s)) for s in shapes) + (
            "" if kind == "float32" else " same-q" if alike else " different-q")
        return Case(label, "CONCATENATION", kind, inputs, [out], options("ConcatenationOptions", axis=axis))

    for kind in KINDS:
        for config in CONCATENATION:
            yield partial(make, kind, config)


# (op, input shape, paddings, constant value as a real number: None is the zero point / 0.0)
PAD = [
    ("PAD", [1, 5, 7, 3], [[0, 0], [1, 1], [2, 2], [0, 0]], None),
    ("PAD", [1, 9, 9, 13], [[0, 0], [0, 2], [1, 0], [0, 0]], None),
    ("PAD", [1, 5, 7, 7], [[0, 0], [0, 0], [0, 0], [0, 0]], None),
    ("PAD", [1, 4, 4, 7], [[0, 0], [0, 0], [0, 0], [1, 3]], None),
    ("PAD", [1, 3, 5, 3], [[1, 0], [2, 1], [0, 3], [0, 0]], None),
    ("PADV2", [1, 5, 7, 3], [[0, 0], [1, 1], [2, 2], [0, 0]], None),
    ("PADV2", [1, 9, 9, 13], [[0, 0], [0, 2], [1, 0], [0, 0]], 1.0),
    ("PADV2", [1, 4, 4, 17], [[0, 0], [3, 0], [0, 1], [2, 0]], -0.5),
]


def pad(rng):
    def make(kind, config):
        name, shape, paddings, constant = config
        x = activation(rng, kind, shape)
        inputs = [x, int32(paddings)]
        real = 0.0 if constant is None else constant
        if name == "PADV2":
            if kind == "float32":
                value = np.array([real], dtype=np.float32)
            else:
                qmin, qmax = LIMITS[kind]
                value = np.array([np.clip(round(real / x.scale[0]) + x.zero_point[0], qmin, qmax)], dtype=NUMPY[kind])
            inputs.append(T([1], kind, value, scale=x.scale, zero_point=x.zero_point))
        label = (f"{name} " + "x".join(map(str, shape)) + " pad " + ",".join(f"{a}/{b}" for a, b in paddings)
                 + ("" if name == "PAD" else f" value {real}"))
        return Case(label, name, kind, inputs, [same_as(x) if kind != "float32" else output(kind)],
                    options("PadOptions" if name == "PAD" else "PadV2Options"))

    for kind in KINDS:
        for config in PAD:
            yield partial(make, kind, config)


# (H, W, C, new H, new W, align_corners, half_pixel_centers)
RESIZE = [
    (4, 4, 3, 8, 8, False, False),
    (5, 7, 7, 10, 14, False, True),
    (3, 5, 13, 7, 4, False, False),
    (3, 5, 3, 7, 4, True, False),
    (3, 5, 7, 7, 4, False, True),
    (9, 9, 3, 4, 4, False, False),
    (16, 16, 17, 5, 7, False, True),
    (9, 9, 1, 4, 4, True, False),
]


def resize_bilinear(rng):
    def make(kind, config):
        h, w, c, nh, nw, align, half = config
        x = activation(rng, kind, [1, h, w, c])
        label = (f"1x{h}x{w}x{c} -> {nh}x{nw}" + (" align_corners" if align else "")
                 + (" half_pixel_centers" if half else ""))
        return Case(label, "RESIZE_BILINEAR", kind, [x, int32([nh, nw])],
                    [same_as(x) if kind != "float32" else output(kind)],
                    options("ResizeBilinearOptions", alignCorners=align, halfPixelCenters=half),
                    half_pixel_centers=half)

    for kind in KINDS:
        for config in RESIZE:
            yield partial(make, kind, config)


# (input type, input scale, input zero point, output type, output scale, output zero point); no input scale: float
QUANTIZE = [
    ("float32", None, None, "uint8", 0.025, 120),
    ("float32", None, None, "int8", 0.03, -10),
    ("uint8", 0.05, 140, "int8", 0.05, 12),
    ("uint8", 0.05, 100, "uint8", 0.07, 140),
    ("int8", 0.04, 5, "int8", 0.06, -20),
    ("int8", 0.04, -30, "uint8", 0.04, 98),
]


def quantize(rng):
    def make(shape, config):
        kind_in, scale_in, zero_in, kind_out, scale_out, zero_out = config
        x = activation(rng, kind_in, shape, scale_in, zero_in)
        label = (f"{kind_in}" + ("" if scale_in is None else f"({scale_in},{zero_in})")
                 + f" -> {kind_out}({scale_out},{zero_out}) " + "x".join(map(str, shape)))
        return Case(label, "QUANTIZE", kind_out, [x], [output(kind_out, shape, scale_out, zero_out)])

    for shape in ([1, 5, 7, 3], [3, 17]):
        for config in QUANTIZE:
            yield partial(make, shape, config)


# (input type, shape, per-channel axis or None)
DEQUANTIZE = [("uint8", [1, 5, 7, 3], None), ("uint8", [3, 17], None), ("int8", [1, 9, 9, 7], None),
              ("int8", [5, 3, 3, 7], 0), ("int8", [1, 3, 3, 13], 3)]


def dequantize(rng):
    def make(config):
        kind, shape, axis = config
        if axis is None:
            x = activation(rng, kind, shape)
        else:
            channels = shape[axis]
            x = T(shape, kind, scale=[log_uniform(rng, 0.001, 0.05) for _ in range(channels)],
                  zero_point=[0] * channels, axis=axis, value=rng.integers(-128, 128, shape).astype(np.int8))
        label = "x".join(map(str, shape)) + (" per-tensor" if axis is None else f" per-channel axis {axis}")
        return Case(label, "DEQUANTIZE", kind, [x], [output("float32", shape)])

    for config in DEQUANTIZE:
        yield partial(make, config)


FAMILIES = {
    "conv2d": conv2d,
    "depthwise_conv2d": depthwise_conv2d,
    "fully_connected": fully_connected,
    "add": binary("ADD", "AddOptions"),
    "sub": binary("SUB", "SubOptions"),
    "mul": binary("MUL", "MulOptions"),
    "pool": pool,
    "mean": mean,
    "softmax": softmax,
    "logistic": elementwise("LOGISTIC", 1 / 256, {"uint8": 0, "int8": -128}, (0.02, 0.05)),
    "tanh": elementwise("TANH", 1 / 128, {"uint8": 128, "int8": 0}, (0.01, 0.025)),
    "concatenation": concatenation,
    "pad": pad,
    "resize_bilinear": resize_bilinear,
    "quantize": quantize,
    "dequantize": dequantize,
}


def sweep(family):
    """Every case of a family: a degenerate one is drawn anew (up to DRAWS times, the last draw kept); a model the
    builtin kernels refuse goes to rejected; one AUTO refuses keeps its builtin outputs and records auto_error."""
    rng = np.random.default_rng(zlib.crc32(family.encode()))
    arrays, cases, rejected = {}, [], []
    for make in FAMILIES[family](rng):
        for draw in range(DRAWS):
            case = make()
            try:
                content, values, builtin = execute(case)
            except Exception as error:  # LiteRT refused the model: recorded, no index
                rejected.append([case.label, message(error)])
                case = None
                break
            if not degenerate(case, builtin):
                break
        if case is None:
            continue
        try:
            auto, delegated = run(content, values, OpResolverType.AUTO)
            auto_error = None
        except Exception as error:
            auto, delegated, auto_error = None, False, message(error)
        i = len(cases)
        arrays[f"m{i}"] = np.frombuffer(content, dtype=np.uint8)
        for j, value in enumerate(values):
            arrays[f"a{i}_{j}"] = np.asarray(value)
        for k, b in enumerate(builtin):
            arrays[f"b{i}_{k}"] = b
            if auto is not None:
                arrays[f"o{i}_{k}"] = auto[k]
        entry = {
            "label": case.label, "op": case.op, "type": case.kind, "version": version(case), "delegated": delegated,
            "max_diff": None if auto is None else [difference(a, b) for a, b in zip(auto, builtin)],
            "saturated": [saturated(t, b) for t, b in zip(case.outputs, builtin)],
            "constant": [constant(b) for b in builtin],
            "draws": draw + 1,
        }
        if case.parameters.get("constant"):
            entry["constant_by_definition"] = True
        if auto_error is not None:
            entry["auto_error"] = auto_error
        cases.append(entry)
    arrays["cases.json"] = cases
    arrays["rejected.json"] = rejected
    return arrays


def report(family, cases, rejected):
    print(f"  {family}: {len(cases)} cases, XNNPACK takes {sum(c['delegated'] for c in cases)}"
          + (f", {len(rejected)} rejected" if rejected else ""))
    for i, c in enumerate(cases):
        if c["max_diff"] is None:
            diff = "AUTO failed"
        else:
            diff = " / ".join(f"{d:g}" + (" LSB" if s is not None else "") for d, s in zip(c["max_diff"], c["saturated"]))
        sat = [s for s in c["saturated"] if s is not None]
        flag = ""
        if c.get("constant_by_definition"):
            flag = " (constant by definition)"
        elif any(c["constant"]) or any(s > 0.5 for s in sat):
            flag = f" DEGENERATE after {c['draws']} draws"
        elif c["draws"] > 1:
            flag = f" ({c['draws']} draws)"
        print(f"    {i:3d} {'X' if c['delegated'] else '-'} {c['label']:62s} diff {diff:11s}"
              + (f" sat {max(sat):5.1%}" if sat else "") + flag)
        if "auto_error" in c:
            print(f"        AUTO: {c['auto_error']}")
    for label, error in rejected:
        print(f"    rejected {label}: {error}")


def load_json(npz, key):
    return json.loads(bytes(npz[key]).decode()) if key in npz else []


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=os.path.join(".cache", "kernel-sweeps"))
    parser.add_argument("--families", default=",".join(FAMILIES), help="comma-separated subset of " + ", ".join(FAMILIES))
    parser.add_argument("--force", action="store_true", help="regenerate even what is up to date")
    parser.add_argument("--summary", action="store_true", help="print the summary of families already up to date too")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    script_time = os.path.getmtime(__file__)
    totals = [0, 0, 0]
    for family in args.families.split(","):
        target = os.path.join(args.out, family + ".npz")
        if not args.force and os.path.exists(target) and os.path.getmtime(target) > script_time:
            print(f"ok       {family}")
            if args.summary:
                with np.load(target) as npz:
                    cases, rejected = load_json(npz, "cases.json"), load_json(npz, "rejected.json")
                report(family, cases, rejected)
                totals = [totals[0] + len(cases), totals[1] + sum(c["delegated"] for c in cases), totals[2] + len(rejected)]
            continue
        arrays = sweep(family)
        encoded = {k: np.frombuffer(json.dumps(v).encode(), dtype=np.uint8) if k.endswith(".json") else v
                   for k, v in arrays.items()}
        np.savez(target + ".partial.npz", **encoded)
        os.replace(target + ".partial.npz", target)
        cases, rejected = arrays["cases.json"], arrays["rejected.json"]
        print(f"wrote    {family} ({os.path.getsize(target) / 1e3:.0f} kB, {len(cases)} cases)")
        report(family, cases, rejected)
        totals = [totals[0] + len(cases), totals[1] + sum(c["delegated"] for c in cases), totals[2] + len(rejected)]
    if totals[0] or totals[2]:
        print(f"total    {totals[0]} cases, XNNPACK takes {totals[1]}, {totals[2]} rejected")


if __name__ == "__main__":
    main()
