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

After each family's grid come extra cases (appended, so that the grid keeps its indices) for every path of LiteRT's
quantized arithmetic, uint8 and int8 each, labelled with the path they aim at ("builtin-fallback …", "xnnpack …",
"builtin …") and checked against it (expected_path): ADD and SUB with an input/output scale ratio outside
[1/1024, 256) and inside (boundaries exactly), MUL with (a·b)/out outside [1/65536, 256), broadcasting, zero points at
the ends of the range; fused RELU_N1_TO_1 everywhere, with output scales that put activation bounds exactly on .5
(where XNNPACK rounds half to even and the builtin kernels half away); same-type QUANTIZE with ratios outside [1/256,
128], uint8 <-> int8 with n % 16 ≠ 0, float inputs on .5 ties and ±inf, NaN, ±1e30; MAX_POOL_2D with stride > filter
and 1×1 filters; AVERAGE_POOL_2D with SAME partial windows and depth > 256; MEAN over {1}, {2}, {3}, {1,2,3};
SOFTMAX ties (p·256 = .5) and uint8 output zero points the kernel ignores; LOGISTIC and TANH with other output
parameters; RESIZE_BILINEAR to a side of 1 and downsampling with half_pixel_centers; convolutions with depth
multiplier 3 and output zero points at the range ends. Extra cases fix some quantization parameters (see the *_EXTRA
tables), an output zero point kept while its scale is calibrated (see fit), and some inputs' values near their zero
point (see spread_input). LOGISTIC with output parameters other than 1/256 is one XNNPACK runs and the builtin kernel
refuses: those cases keep AUTO's outputs alone (builtin_error).

One .npz per family is written to the cache directory (conv2d.npz, depthwise_conv2d.npz, fully_connected.npz,
add.npz, sub.npz, mul.npz, pool.npz (average and max), mean.npz, softmax.npz, logistic.npz, tanh.npz,
concatenation.npz, pad.npz (PAD and PADV2), resize_bilinear.npz, resize_nearest_neighbor.npz, quantize.npz,
dequantize.npz, relu.npz (RELU, RELU6, RELU_N1_TO_1), hard_swish.npz, split.npz (SPLIT and SPLIT_V), depth_to_space.npz, transpose_conv.npz), holding for
case i:

- `m<i>`: the model, its bytes as a uint8 array;
- `a<i>_<j>`: graph input j;
- `o<i>_<k>`: output k from LiteRT with OpResolverType.AUTO (the XNNPACK delegate where it takes the operator),
  1 thread; absent when the AUTO interpreter fails (auto_error);
- `b<i>_<k>`: output k from LiteRT's builtin kernels (BUILTIN_WITHOUT_DEFAULT_DELEGATES), 1 thread; absent when
  the builtin kernel refuses a case that XNNPACK runs (builtin_error);
- `cases.json`: per case {"label": type and parameters, "op": the builtin operator's name, "type": float32, uint8
  or int8 (for QUANTIZE the output's), "version": the operator code version, "delegated": whether XNNPACK took it
  (a DELEGATE node in the AUTO interpreter), "max_diff": per output the largest |AUTO − builtin| (LSB for integer
  outputs, absolute for float ones; null without AUTO or builtin outputs), "saturated": per output the share of
  quantized outputs at a limit of the type that is not the output's zero point (null for float; a RELU6 clamp at the
  top counts), "constant": per output whether all its values are equal, "draws": how many random draws it took, and
  "constant_by_definition" / "auto_error" / "builtin_error" where they apply, and for extra cases
  "expected_path": "xnnpack" or "builtin", the path the spec of LiteRT's quantized arithmetic gives them};
- `rejected.json`: [label, error] of every model LiteRT's builtin kernels refuse; it gets no index. Expected
  there: CONV_2D and DEPTHWISE_CONV_2D with the bias omitted (see CONV) and int8 CONCATENATION of differently
  quantized inputs (LiteRT's int8 kernel needs every input quantized as the output; uint8 requantizes).

A summary is printed when a family is regenerated (or for all with --summary): cases, how many XNNPACK took and,
per case, the largest AUTO − builtin difference and the largest saturated share; cases still degenerate after
DRAWS draws are flagged DEGENERATE, and extra cases that XNNPACK took or left against their expected_path are flagged
UNEXPECTED PATH.

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
from litert_flatbuffers import AlignedBufferT  # tools/litert_flatbuffers.py
from ai_edge_litert.interpreter import Interpreter, OpResolverType

KINDS = ["float32", "uint8", "int8"]
DRAWS = 8  # draws of a case's random tensors before a degenerate one is kept
NUMPY = {"float32": np.float32, "uint8": np.uint8, "int8": np.int8, "int32": np.int32}
TENSOR_TYPE = {"float32": schema.TensorType.FLOAT32, "uint8": schema.TensorType.UINT8,
               "int8": schema.TensorType.INT8, "int32": schema.TensorType.INT32}
LIMITS = {"uint8": (0, 255), "int8": (-128, 127)}
ACTIVATION = {"NONE": schema.ActivationFunctionType.NONE, "RELU": schema.ActivationFunctionType.RELU,
              "RELU6": schema.ActivationFunctionType.RELU6, "RELU_N1_TO_1": schema.ActivationFunctionType.RELU_N1_TO_1}
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
    if op == "RESIZE_NEAREST_NEIGHBOR":
        return 3 if p["half_pixel_centers"] or p["align_corners"] else 2 if int8 else 1
    if op == "DEQUANTIZE":
        return (5 if len(case.inputs[0].scale) > 1 else 2) if case.inputs[0].kind == "int8" else 1
    if op == "QUANTIZE":
        return 1
    if op == "TRANSPOSE_CONV":
        return 4 if p.get("fused") else 3 if len(case.inputs) == 4 else 2 if int8 else 1
    if op in ("RELU", "RELU6"):
        return 2 if kind in LIMITS else 1
    if op in ("RELU_N1_TO_1", "HARD_SWISH"):  # LiteRT registers version 1 alone, for every type
        return 1
    # ADD, SUB, pools, MEAN, SOFTMAX, LOGISTIC, TANH, CONCATENATION, PAD, PADV2, SPLIT, SPLIT_V, DEPTH_TO_SPACE
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


def fit(values, kind, zero_point=None):
    """(scale, zero point) mapping the range of these real values, zero included, onto the type's range, as a
    converter calibrates: the extreme 0.2% of a large output left out, 2% margin on a side that is not a clamp.
    With a zero point given (one at a limit of the type, say) only the scale is fitted: the smallest that keeps
    the range on the zero point's sides that have room."""
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
    if zero_point is not None:
        sides = ([hi / (qmax - zero_point)] if qmax > zero_point else []) + (
            [-lo / (zero_point - qmin)] if zero_point > qmin else [])
        return float(np.float32(max(max(sides), 1e-3 / (qmax - qmin)))), int(zero_point)
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
                scale, zero_point = fit(value, t.kind, t.zero_point[0] if t.zero_point else None)
                t.scale, t.zero_point = [scale], [zero_point]
    content = build(case, version(case), case.inputs, case.outputs)
    try:
        builtin, _ = run(content, values, OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    except Exception as error:
        if not case.parameters.get("builtin_may_refuse"):
            raise
        return content, values, None, message(error)
    return content, values, builtin, None


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


def zero_point_of(rng, kind, spec):
    """A zero point: a number, None (drawn anywhere in the type's range), "min", "max" or "mid" (uint8 128, int8 0)."""
    qmin, qmax = LIMITS[kind]
    if spec is None:
        return int(rng.integers(qmin, qmax + 1))
    return {"min": qmin, "max": qmax, "mid": (qmin + qmax + 1) // 2}.get(spec, spec)


def spread_input(rng, kind, shape, scale=None, zero_point=None, spread=None):
    """A quantized graph input with this scale (None: drawn from 0.02–0.1) and zero point (see zero_point_of) whose
    values are uniform over the type (spread None), within ±spread of the zero point (a number), "sparse": the
    zero point 70% of the time, else 1 or 2 from it (for scale ratios so large that any other value saturates), or
    "mixed": the zero point 60% of the time, else uniform over the type (far enough from the zero point, with such
    ratios, to overflow 16-bit intermediates)."""
    qmin, qmax = LIMITS[kind]
    zero_point = zero_point_of(rng, kind, zero_point)
    x = activation(rng, kind, shape, scale, zero_point)
    if spread is not None:
        if spread == "mixed":
            offsets = np.where(rng.random(shape) < 0.6, 0, x.value.astype(np.int64) - zero_point)
        elif spread == "sparse":
            offsets = rng.choice([-2, -1, 0, 1, 2], size=shape, p=[0.075, 0.075, 0.7, 0.075, 0.075])
        else:
            offsets = rng.integers(-spread, spread + 1, shape)
        x.value = np.clip(zero_point + offsets, qmin, qmax).astype(NUMPY[kind])
    return x


def output(kind, shape=None, scale=None, zero_point=None):
    """A graph output; quantized without a scale it is calibrated on the float twin (see fit), keeping the zero
    point if one is given."""
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


def tagged(extra):
    """An extra case's (tag, input zero point, output (scale, zero point), path) (see CONV_EXTRA); none for a
    case of the main grid."""
    return extra or ("", None, (None, None), None)


def extra_input(rng, kind, shape, zero_point):
    return activation(rng, kind, shape) if kind == "float32" or zero_point is None else spread_input(
        rng, kind, shape, None, zero_point)


def extra_output(rng, kind, y):
    scale, zero_point = y
    if kind == "float32" or (scale is None and zero_point is None):
        return output(kind)
    return output(kind, None, scale, zero_point_of(rng, kind, zero_point))


# Extra cases of the convolutions and fully connected (tag, configuration as in the main grid, input zero point,
# output (scale, zero point), path per the spec, quantized only). A scale of None is calibrated (keeping the zero
# point given); zero points as in zero_point_of. RELU_N1_TO_1 with an output scale of 0.4 puts the bounds on .5
# (zp ± 2.5), where XNNPACK's bounds round half to even.
CONV_EXTRA = [
    ("RELU_N1_TO_1", (9, 9, 8, 16, 3, 3, 1, "SAME", 1, "RELU_N1_TO_1", True), None, (None, "mid"), "xnnpack", False),
    ("RELU_N1_TO_1 bounds at .5 (output scale 0.4)", (5, 7, 3, 7, 1, 1, 1, "VALID", 1, "RELU_N1_TO_1", True), None,
     (0.4, "mid"), "xnnpack", True),
    ("input zp max, output zp min", (9, 9, 13, 5, 3, 3, 2, "SAME", 1, "NONE", True), "max", (None, "min"), "xnnpack",
     True),
    ("input zp min, output zp max", (5, 7, 8, 19, 3, 3, 1, "VALID", 1, "NONE", True), "min", (None, "max"), "xnnpack",
     True),
    ("output zp min RELU6", (9, 9, 3, 16, 3, 3, 1, "SAME", 1, "RELU6", True), None, (None, "min"), "xnnpack", True),
    # BlazeFace's stem (an RGB image into 24 channels, 5 × 5 stride 2, SAME): the direct stem kernel, its row ends
    # (windows copied with zeros) and its top and bottom rows (im2col)
    ("BlazeFace's stem", (18, 18, 3, 24, 5, 5, 2, "SAME", 1, "RELU", True), None, (None, None), "xnnpack", False),
    ("RGB stem, odd width", (9, 13, 3, 16, 3, 3, 2, "SAME", 1, "RELU6", True), None, (None, None), "xnnpack", False),
    # Dilations past the map (DeepLab v3's ASPP at rates 12 and 18 over 17 x 17): taps that read padding for every
    # output, which our float kernel drops with their weights. Only the centre tap lands inside; only the centre row
    # (a 5-high map at rate 6: a 1 x 3 filter remains); the centre at stride 2.
    ("dilation past the map: the centre tap alone", (9, 9, 16, 24, 3, 3, 1, "SAME", 12, "RELU", True), None, (None, None),
     "xnnpack", False),
    ("dilation past the map's height: the centre row", (5, 17, 8, 16, 3, 3, 1, "SAME", 6, "NONE", True), None,
     (None, None), "xnnpack", False),
    ("dilation past the map at stride 2", (9, 9, 8, 16, 3, 3, 2, "SAME", 10, "RELU6", True), None, (None, None),
     "xnnpack", False),
    # Fewer output pixels than two threads' bands (our float kernel then splits the output channels over the
    # threads): windows read through pointers, a filter over 1 MB (through the pointer tiles too, not OpenBLAS),
    # and a dilated 5 x 5 whose patches are gathered
    ("few pixels, channels split over threads", (9, 9, 16, 40, 3, 3, 1, "SAME", 1, "RELU", True), None, (None, None),
     "xnnpack", False),
    ("few pixels, a filter over 1 MB", (7, 7, 128, 264, 3, 3, 1, "SAME", 1, "NONE", True), None, (None, None),
     "xnnpack", False),
    ("few pixels, dilated 5 x 5 gathered", (9, 9, 8, 40, 5, 5, 1, "SAME", 2, "RELU6", True), None, (None, None),
     "xnnpack", False),
]


def conv2d(rng):
    def make(kind, config, omit_bias=False, extra=None):
        h, w, cin, cout, kh, kw, stride, padding, dilation, act, has_bias = config
        tag, x_zp, y, path = tagged(extra)
        x = extra_input(rng, kind, [1, h, w, cin], x_zp)
        fan_in = kh * kw * cin
        filter_ = weights(rng, kind, [cout, kh, kw, cin], 0, fan_in)
        b = None if omit_bias else bias(rng, kind, cout, x, filter_, fan_in, zero=not has_bias)
        label = ((f"{tag}: " if tag else "") + f"1x{h}x{w}x{cin} k{kh}x{kw} s{stride} {padding}"
                 + (f" d{dilation}" if dilation > 1 else "")
                 + act_label(act) + ("" if has_bias else " no bias (-1)" if omit_bias else " zero-bias")
                 + f" -> {cout}")
        return Case(label, "CONV_2D", kind, [x, filter_, b], [extra_output(rng, kind, y)],
                    options("Conv2DOptions", padding=PADDING[padding], strideW=stride, strideH=stride,
                            fusedActivationFunction=ACTIVATION[act], dilationWFactor=dilation,
                            dilationHFactor=dilation), path=path)

    for kind in KINDS:
        omitted = False
        for config in CONV:
            yield partial(make, kind, config)
            if not config[-1] and not omitted:
                omitted = True
                yield partial(make, kind, config, True)
    for tag, config, x_zp, y, path, quantized_only in CONV_EXTRA:  # appended: the main grid keeps its indices
        for kind in KINDS:
            if not (quantized_only and kind == "float32"):
                yield partial(make, kind, config, extra=(tag, x_zp, y, path if kind != "float32" else None))


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
    # 1 × 1 filters (a scale per channel, as MediaPipe's hand re-crop model has): whole vectors, a scalar tail,
    # fewer channels than a vector, stride 2
    (16, 16, 8, 1, 1, 1, "SAME", 1, "NONE", True),
    (9, 9, 13, 1, 1, 2, "SAME", 1, "RELU6", True),
    (5, 7, 3, 1, 1, 1, "VALID", 1, "RELU", True),
    (9, 9, 33, 1, 1, 1, "VALID", 1, "NONE", False),
]


# as CONV_EXTRA, with DEPTHWISE configurations
DEPTHWISE_EXTRA = [
    ("multiplier 3", (9, 9, 5, 3, 3, 1, "SAME", 1, "RELU6", True), None, (None, None), "xnnpack", False),
    ("multiplier 3", (5, 7, 7, 3, 3, 2, "VALID", 1, "NONE", True), None, (None, None), "xnnpack", False),
    ("multiplier 3", (1, 1, 2, 3, 3, 1, "SAME", 1, "RELU", True), None, (None, None), "xnnpack", False),
    ("RELU_N1_TO_1", (9, 9, 8, 1, 3, 1, "SAME", 1, "RELU_N1_TO_1", True), None, (None, "mid"), "xnnpack", False),
    ("multiplier 3 RELU_N1_TO_1 bounds at .5 (output scale 0.4)", (5, 7, 4, 3, 3, 1, "SAME", 1, "RELU_N1_TO_1", True),
     None, (0.4, "mid"), "xnnpack", True),
    ("input zp max, output zp min", (9, 9, 13, 1, 3, 2, "SAME", 1, "NONE", True), "max", (None, "min"), "xnnpack",
     True),
    ("input zp min, output zp max", (9, 9, 7, 2, 3, 1, "VALID", 1, "NONE", True), "min", (None, "max"), "xnnpack",
     True),
    # Dilated 3 x 3 over 8 channels or more (DeepLab v3's backbone at rate 2): whole vectors and a tail, SAME and VALID
    ("dilated", (17, 17, 16, 1, 3, 1, "SAME", 2, "RELU6", True), None, (None, None), None, False),
    ("dilated", (10, 12, 21, 1, 3, 1, "VALID", 3, "NONE", True), None, (None, None), None, False),
    ("dilated", (6, 6, 8, 1, 3, 1, "SAME", 4, "RELU", True), None, (None, None), None, False),
    # ... and over so many channels that the padded copy goes in blocks of channels (three rows of it over 64 KB)
    ("dilated, blocks", (17, 17, 264, 1, 3, 1, "SAME", 2, "NONE", True), None, (None, None), None, False),
]


def depthwise_conv2d(rng):
    def make(kind, config, omit_bias=False, extra=None):
        h, w, c, multiplier, k, stride, padding, dilation, act, has_bias = config
        tag, x_zp, y, path = tagged(extra)
        x = extra_input(rng, kind, [1, h, w, c], x_zp)
        cout = c * multiplier
        filter_ = weights(rng, kind, [1, k, k, cout], 3, k * k)
        b = None if omit_bias else bias(rng, kind, cout, x, filter_, k * k, zero=not has_bias)
        label = ((f"{tag}: " if tag else "") + f"1x{h}x{w}x{c} k{k}x{k} m{multiplier} s{stride} {padding}"
                 + (f" d{dilation}" if dilation > 1 else "") + act_label(act)
                 + ("" if has_bias else " no bias (-1)" if omit_bias else " zero-bias"))
        return Case(label, "DEPTHWISE_CONV_2D", kind, [x, filter_, b], [extra_output(rng, kind, y)],
                    options("DepthwiseConv2DOptions", padding=PADDING[padding], strideW=stride, strideH=stride,
                            depthMultiplier=multiplier, fusedActivationFunction=ACTIVATION[act],
                            dilationWFactor=dilation, dilationHFactor=dilation),
                    dilation=dilation, path=path)

    for kind in KINDS:
        omitted = False
        for config in DEPTHWISE:
            yield partial(make, kind, config)
            if not config[-1] and not omitted:
                omitted = True
                yield partial(make, kind, config, True)
    for tag, config, x_zp, y, path, quantized_only in DEPTHWISE_EXTRA:
        for kind in KINDS:
            if not (quantized_only and kind == "float32"):
                yield partial(make, kind, config, extra=(tag, x_zp, y, path if kind != "float32" else None))


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


# as CONV_EXTRA, with FULLY_CONNECTED configurations
FULLY_CONNECTED_EXTRA = [
    ("RELU_N1_TO_1", (64, 17, 3, 2, False, "RELU_N1_TO_1", True), None, (None, "mid"), "xnnpack", False),
    ("RELU_N1_TO_1 bounds at .5 (output scale 0.4)", (7, 10, 3, 2, False, "RELU_N1_TO_1", True), None, (0.4, "mid"),
     "xnnpack", True),
    ("input zp max, output zp min", (33, 13, 3, 2, False, "NONE", True), "max", (None, "min"), "xnnpack", True),
    ("input zp min, output zp max", (33, 13, 1, 3, True, "NONE", False), "min", (None, "max"), "xnnpack", True),
]


def fully_connected(rng):
    def make(kind, config, extra=None):
        depth, units, rows, rank, keep, act, has_bias = config
        tag, x_zp, y, path = tagged(extra)
        shape = [rows, depth] if rank == 2 else [1, rows, depth]
        x = extra_input(rng, kind, shape, x_zp)
        w = weights(rng, kind, [units, depth], 0, depth)
        b = bias(rng, kind, units, x, w, depth) if has_bias else None
        label = ((f"{tag}: " if tag else "") + "x".join(map(str, shape)) + f" -> {units}"
                 + (" keep_num_dims" if keep else "") + act_label(act) + ("" if has_bias else " no bias (-1)"))
        return Case(label, "FULLY_CONNECTED", kind, [x, w, b], [extra_output(rng, kind, y)],
                    options("FullyConnectedOptions", fusedActivationFunction=ACTIVATION[act], keepNumDims=keep),
                    keep_num_dims=keep, path=path)

    for kind in KINDS:
        for config in FULLY_CONNECTED:
            yield partial(make, kind, config)
    for tag, config, x_zp, y, path, quantized_only in FULLY_CONNECTED_EXTRA:
        for kind in KINDS:
            if not (quantized_only and kind == "float32"):
                yield partial(make, kind, config, extra=(tag, x_zp, y, path if kind != "float32" else None))


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

# An image less its per-channel mean, times its per-channel scale (Keras's Normalization in front of a network): runs
# of three, which the kernels read through a repeated tile over many of its lengths, from either side. Generated after
# every other case of the family, so that the cases above keep their random draws.
BINARY_REPEATED_RUNS = [
    ([1, 24, 24, 3], [1, 1, 1, 3], "NONE", False),
    ([3], [1, 24, 24, 3], "RELU", False),
]


A = [1, 4, 5, 7]
# Extra ADD / SUB / MUL cases (uint8 and int8) over the paths of LiteRT's quantized arithmetic: XNNPACK takes ADD and
# SUB when each input scale / output scale lies in [1/1024, 256), MUL when (a scale × b scale) / output scale lies in
# [1/65536, 256); otherwise LiteRT's builtin kernels run ("builtin-fallback": fixed-point rescaling, activation bounds
# rounded half away from zero). An output scale of 0.4 puts RELU_N1_TO_1's bounds on .5 (zp ± 2.5), 0.48 RELU6's top
# (zp + 12.5), where XNNPACK (half to even) and the builtin kernels (half away) differ. "sparse" inputs (mostly their
# zero point) keep a ratio ≥ 256 from saturating everything.
# (tag, shape a, shape b, activation, a, b, output, path per the spec), a and b (scale, zero point, spread), the
# output (scale, zero point). A scale is a number, None (an input's drawn from 0.02–0.1, the output's calibrated,
# keeping its zero point), "drawn" (the output's, 0.02–0.1) or ("y", r): r × the output's scale. Zero points as in
# zero_point_of, spreads as in spread_input. SUB gets b's zero point at the other end, so that a − b keeps one sign.
ADD_SUB_EXTRA = [
    ("builtin-fallback b/y=1/2000", A, A, "NONE", (("y", 0.8), "mid", None), (("y", 1 / 2000), None, None),
     ("drawn", "mid"), "builtin"),
    ("builtin-fallback b/y=1/1500 broadcast", A, [1, 1, 1, 7], "RELU", (("y", 1.2), "mid", None),
     (("y", 1 / 1500), None, None), ("drawn", "mid"), "builtin"),
    ("builtin-fallback b/y=1/3000 broadcast", A, [1], "RELU6", (("y", 1.0), "mid", None),
     (("y", 1 / 3000), None, None), ("drawn", "mid"), "builtin"),
    ("builtin-fallback a/y=300 sparse broadcast", A, [1, 4, 1, 1], "NONE", (("y", 300), "mid", "sparse"),
     (("y", 0.5), None, None), ("drawn", "mid"), "builtin"),
    ("builtin-fallback a/y=256 exactly sparse", A, A, "RELU", (2 ** -2, "mid", "sparse"), (2 ** -11, None, None),
     (2 ** -10, "mid"), "builtin"),
    ("builtin-fallback b/y=1/2000 RELU_N1_TO_1 bounds at .5, zero points at range ends", A, [1, 4, 1, 1],
     "RELU_N1_TO_1", (0.008, "min", None), (("y", 1 / 2000), "max", None), (0.4, "mid"), "builtin"),
    ("builtin-fallback b/y=1/2000 RELU6 top at .5, zero points at range ends", A, [1, 4, 5, 1], "RELU6",
     (0.02, "min", None), (("y", 1 / 2000), "min", None), (0.48, "min"), "builtin"),
    ("xnnpack a/y=255 sparse broadcast", A, [7], "NONE", (("y", 255), "mid", "sparse"), (("y", 0.7), None, None),
     ("drawn", "mid"), "xnnpack"),
    ("xnnpack b/y=1/1024 exactly", A, A, "NONE", (2 ** -6, "mid", None), (2 ** -16, None, None), (2 ** -6, "mid"),
     "xnnpack"),
    ("xnnpack RELU_N1_TO_1 bounds at .5, zero points at range ends", A, [1, 4, 1, 1], "RELU_N1_TO_1",
     (0.008, "min", None), (0.006, "max", None), (0.4, "mid"), "xnnpack"),
    ("xnnpack RELU_N1_TO_1 broadcast", A, [7], "RELU_N1_TO_1", (0.006, None, None), (0.004, None, None),
     (None, "mid"), "xnnpack"),
    ("xnnpack zero points at range ends", A, [1, 1, 1, 7], "NONE", (None, "max", None), (None, "max", None),
     (None, "max"), "xnnpack"),
    ("xnnpack RELU6 top at .5, zero points at range ends", A, A, "RELU6", (0.02, "min", None), (0.01, "min", None),
     (0.48, "min"), "xnnpack"),
    ("builtin-fallback a/y=300 mixed (beyond int16 before the clamp)", A, A, "NONE", (("y", 300), "mid", "mixed"),
     (("y", 0.5), None, None), ("drawn", "mid"), "builtin"),
    ("builtin-fallback a/y=300 mixed (beyond int16 before the clamp) broadcast, output zp min", A, [7], "NONE",
     (("y", 300), "mid", "mixed"), (("y", 0.5), None, None), ("drawn", "min"), "builtin"),
]
MUL_EXTRA = [
    ("builtin-fallback ab/y=1/70000, zero points min", A, A, "NONE", (0.05, "min", None), (0.05, "min", None),
     (0.05 * 0.05 * 70000, "mid"), "builtin"),
    ("builtin-fallback ab/y=1/100000 broadcast, zero points min", A, [7], "RELU", (0.04, "min", None),
     (0.03, "min", None), (0.04 * 0.03 * 100000, None), "builtin"),
    ("xnnpack ab/y=1/65536 exactly, zero points min", A, A, "NONE", (2 ** -4, "min", None), (2 ** -4, "min", None),
     (2 ** 8, "mid"), "xnnpack"),
    ("builtin-fallback ab/y=1/65536 x 0.999, zero points min", A, A, "NONE", (2 ** -4, "min", None),
     (2 ** -4, "min", None), (2 ** 8 * 1.001, "mid"), "builtin"),
    ("builtin-fallback ab/y=300 sparse broadcast", A, [1, 4, 1, 1], "NONE", (0.05, "mid", "sparse"),
     (0.04, "mid", None), (0.05 * 0.04 / 300, "mid"), "builtin"),
    ("builtin-fallback ab/y=256 exactly sparse", A, A, "RELU", (2 ** -2, "mid", "sparse"), (2 ** -3, "mid", "sparse"),
     (2 ** -13, "mid"), "builtin"),
    ("xnnpack RELU_N1_TO_1 bounds at .5 broadcast", A, [1, 4, 1, 1], "RELU_N1_TO_1", (0.01, None, None),
     (0.02, None, None), (0.4, "mid"), "xnnpack"),
    ("xnnpack zero points at range ends", A, [7], "NONE", (None, "max", None), (None, "min", None), (None, "max"),
     "xnnpack"),
    ("builtin-fallback ab/y=300 mixed (beyond int16 before the clamp)", A, A, "NONE", (0.05, "mid", "mixed"),
     (0.04, "mid", "mixed"), (0.05 * 0.04 / 300, "mid"), "builtin"),
    ("builtin-fallback ab/y=300 mixed (beyond int16 before the clamp), output zp min", A, A, "NONE",
     (0.05, "mid", "mixed"), (0.04, "mid", "mixed"), (0.05 * 0.04 / 300, "min"), "builtin"),
    ("builtin-fallback ab/y=300 mixed (beyond int16 before the clamp) broadcast, output zp min", A, [1, 1, 1, 7],
     "NONE", (0.05, "mid", "mixed"), (0.04, "mid", None), (0.05 * 0.04 / 300, "min"), "builtin"),
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

        def make_extra(kind, config):
            tag, shape_a, shape_b, act, qa, qb, (y_scale, y_zp), path = config
            if y_scale == "drawn":
                y_scale = log_uniform(rng, 0.02, 0.1)

            def operand(shape, q, flip):
                scale, zero_point, spread = q
                if isinstance(scale, tuple):
                    scale = scale[1] * y_scale
                if flip and zero_point in ("min", "max"):
                    zero_point = "max" if zero_point == "min" else "min"
                return spread_input(rng, kind, shape, None if scale is None else float(np.float32(scale)),
                                    zero_point, spread)

            a = operand(shape_a, qa, False)
            b = operand(shape_b, qb, name == "SUB")
            out = output(kind, None, y_scale,
                         None if y_zp is None and y_scale is None else zero_point_of(rng, kind, y_zp))
            label = f"{tag}: " + "x".join(map(str, shape_a)) + " " + "x".join(map(str, shape_b)) + act_label(act)
            return Case(label, name, kind, [a, b], [out],
                        options(options_name, fusedActivationFunction=ACTIVATION[act]), path=path)

        for kind in KINDS:
            for config in BINARY:
                yield partial(make, kind, config)
        for config in MUL_EXTRA if name == "MUL" else ADD_SUB_EXTRA:  # appended: the main grid keeps its indices
            for kind in ("uint8", "int8"):
                yield partial(make_extra, kind, config)
        for kind in KINDS:
            for config in BINARY_REPEATED_RUNS:
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


# Extra pool cases: (op, tag, filter h, filter w, stride h, stride w, padding, H, W, C, activation, quantized input
# (scale, spread) or None for a drawn one, quantized only, path per the spec). MAX_POOL_2D runs builtin when a stride
# exceeds the filter; a 1×1 filter becomes an XNNPACK clamp; AVERAGE_POOL_2D is always builtin. An input scale of 0.4
# puts RELU_N1_TO_1's bounds on .5, 0.48 RELU6's top (the input's values kept within ±spread of its zero point, which
# is 128 / 0: with an even zero point half to even and half away from zero give different bounds).
POOL_EXTRA = [
    ("MAX_POOL_2D", "builtin-fallback stride > filter", 2, 2, 3, 3, "VALID", 9, 9, 7, "NONE", None, False, "builtin"),
    ("MAX_POOL_2D", "builtin-fallback stride > filter in H", 2, 2, 3, 2, "SAME", 10, 10, 13, "RELU6", None, False,
     "builtin"),
    ("MAX_POOL_2D", "builtin-fallback stride > filter in H", 1, 2, 2, 1, "VALID", 8, 8, 5, "RELU", None, False,
     "builtin"),
    ("MAX_POOL_2D", "builtin-fallback 1x1 filter stride 2", 1, 1, 2, 2, "VALID", 5, 7, 3, "NONE", None, False,
     "builtin"),
    ("MAX_POOL_2D", "xnnpack 1x1 filter (clamp)", 1, 1, 1, 1, "VALID", 5, 7, 17, "RELU", None, False, "xnnpack"),
    # 2 x 2 windows at stride 2 all inside the input over 8 channels or more (BlazeFace's pools): our float kernel's
    # fixed-offset loop, with a last partial vector of channels
    ("MAX_POOL_2D", "2x2 stride 2 inside, 42 channels", 2, 2, 2, 2, "SAME", 8, 10, 42, "RELU", None, False, "xnnpack"),
    ("MAX_POOL_2D", "2x2 stride 2 inside, odd input", 2, 2, 2, 2, "VALID", 9, 7, 16, "NONE", None, False, "xnnpack"),
    ("MAX_POOL_2D", "xnnpack 1x1 filter (clamp) RELU_N1_TO_1 bounds at .5", 1, 1, 1, 1, "VALID", 4, 4, 33,
     "RELU_N1_TO_1", (0.4, 6), True, "xnnpack"),
    ("MAX_POOL_2D", "xnnpack RELU_N1_TO_1 bounds at .5", 3, 3, 2, 2, "SAME", 9, 9, 7, "RELU_N1_TO_1", (0.4, 6), True,
     "xnnpack"),
    ("MAX_POOL_2D", "builtin-fallback stride > filter RELU_N1_TO_1 bounds at .5", 2, 2, 3, 3, "SAME", 9, 9, 7,
     "RELU_N1_TO_1", (0.4, 6), True, "builtin"),
    ("MAX_POOL_2D", "builtin-fallback stride > filter RELU6 top at .5", 2, 2, 3, 3, "VALID", 9, 9, 13, "RELU6",
     (0.48, 20), True, "builtin"),
    ("MAX_POOL_2D", "xnnpack RELU6 top at .5", 3, 3, 1, 1, "SAME", 5, 7, 13, "RELU6", (0.48, 20), True, "xnnpack"),
    ("AVERAGE_POOL_2D", "builtin SAME partial windows", 3, 3, 2, 2, "SAME", 6, 8, 5, "NONE", None, False, "builtin"),
    ("AVERAGE_POOL_2D", "builtin SAME partial windows", 5, 5, 1, 1, "SAME", 5, 7, 3, "NONE", None, False, "builtin"),
    ("AVERAGE_POOL_2D", "builtin SAME partial windows both sides", 4, 4, 3, 3, "SAME", 7, 7, 6, "RELU", None, False,
     "builtin"),
    ("AVERAGE_POOL_2D", "builtin depth > 256", 2, 2, 1, 1, "SAME", 4, 4, 300, "RELU6", None, False, "builtin"),
    ("AVERAGE_POOL_2D", "builtin depth > 256 global", 3, 5, 1, 1, "VALID", 3, 5, 300, "RELU6", None, False,
     "builtin"),
    ("AVERAGE_POOL_2D", "builtin depth > 256", 3, 3, 2, 2, "VALID", 7, 7, 260, "NONE", None, False, "builtin"),
    ("AVERAGE_POOL_2D", "builtin RELU_N1_TO_1 bounds at .5", 3, 3, 1, 1, "SAME", 5, 7, 7, "RELU_N1_TO_1", (0.4, 6),
     True, "builtin"),
    ("AVERAGE_POOL_2D", "builtin RELU6 top at .5", 2, 2, 2, 2, "SAME", 5, 7, 9, "RELU6", (0.48, 20), True,
     "builtin"),
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

    def make_extra(kind, config):
        name, tag, fh, fw, sh, sw, padding, h, w, c, act, q, _, path = config
        if kind == "float32" or q is None:
            x = activation(rng, kind, [1, h, w, c])
        else:
            x = spread_input(rng, kind, [1, h, w, c], q[0], "mid", q[1])
        label = (f"{name} {tag}: 1x{h}x{w}x{c} {fh}x{fw} s{sh}" + (f"x{sw}" if sw != sh else "") + f" {padding}"
                 + act_label(act))
        return Case(label, name, kind, [x], [same_as(x) if kind != "float32" else output(kind)],
                    options("Pool2DOptions", padding=PADDING[padding], strideW=sw, strideH=sh,
                            filterWidth=fw, filterHeight=fh, fusedActivationFunction=ACTIVATION[act]),
                    path=path if kind != "float32" else None)

    for name in ("AVERAGE_POOL_2D", "MAX_POOL_2D"):
        for kind in KINDS:
            for config in POOL:
                yield partial(make, name, kind, config)
    for config in POOL_EXTRA:  # appended: the main grid keeps its indices
        for kind in KINDS:
            if not (config[-2] and kind == "float32"):
                yield partial(make_extra, kind, config)


# (H, W, C, keep_dims, output quantized as the input (quantized types only))
MEAN = [
    (5, 7, 13, True, False),
    (5, 7, 13, False, False),
    (9, 9, 3, True, True),
    (16, 16, 33, False, False),
    (1, 1, 7, True, False),
    (16, 16, 17, False, True),
]


# Extra MEAN cases over single axes and all three, keep_dims both: (input shape, axes, keep_dims, output quantized as
# the input). 1x4x4x16 reduces over N = 4 or 16 values (many exact .5 ties), 1x4x6x5 over 4, 6, 5 and 120.
MEAN_EXTRA = [
    ([1, 4, 6, 5], [1], True, False), ([1, 4, 4, 16], [1], False, True),
    ([1, 4, 4, 16], [2], True, True), ([1, 4, 6, 5], [2], False, False),
    ([1, 4, 6, 5], [3], True, True), ([1, 4, 4, 16], [3], False, False),
    ([1, 4, 6, 5], [1, 2, 3], True, False), ([1, 4, 4, 16], [1, 2, 3], False, True),
    ([1, 4, 4, 16], [1], True, False), ([1, 4, 6, 5], [3], False, False),
]


def mean(rng):
    def make(kind, config):
        h, w, c, keep, alike = config
        x = activation(rng, kind, [1, h, w, c])
        label = f"1x{h}x{w}x{c} axes 1,2" + (" keep_dims" if keep else "") + (" same-q" if alike else "")
        return Case(label, "MEAN", kind, [x, int32([1, 2])], [same_as(x) if alike else output(kind)],
                    options("ReducerOptions", keepDims=keep))

    def make_extra(kind, config):
        shape, axes, keep, alike = config
        x = activation(rng, kind, shape)
        n = int(np.prod([shape[a] for a in axes]))
        label = ("axes sweep: " + "x".join(map(str, shape)) + " axes " + ",".join(map(str, axes)) + f" (N {n})"
                 + (" keep_dims" if keep else "") + (" same-q" if alike else ""))
        return Case(label, "MEAN", kind, [x, int32(axes)], [same_as(x) if alike else output(kind)],
                    options("ReducerOptions", keepDims=keep), path="xnnpack" if kind != "float32" else None)

    for kind in KINDS:
        for config in MEAN:
            if not (config[-1] and kind == "float32"):
                yield partial(make, kind, config)
    for config in MEAN_EXTRA:  # appended: the main grid keeps its indices
        for kind in KINDS:
            if not (config[-1] and kind == "float32"):
                yield partial(make_extra, kind, config)


# (rows, depth, beta); softmax over one element is 1 everywhere by definition
SOFTMAX = [(1, 10, 1.0), (3, 10, 0.5), (1, 1001, 1.0), (3, 1001, 0.5), (1, 1, 1.0), (3, 1, 0.5), (3, 17, 1.0)]


# Extra SOFTMAX cases (quantized only; the builtin kernel runs): (tag, rows, depth, beta, input pattern, uint8 output
# zero point (None: 0; int8's is always −128), constant by definition). Patterns: "equal" rows (p = 1/depth: 1/512
# scales to exactly .5 at 1/256), "equal-first" (row 0 equal, the others random), "half-max" (each row's first half at
# the type's top, the rest at its bottom, input scale 0.1: the rest's exponentials vanish in the sum, p = 2/depth),
# "random". Inputs have scale 0.02 (0.1 for half-max). LiteRT's x86 uint8 kernel ignores a non-zero
# output zero point (its arm64 one adds it).
SOFTMAX_EXTRA = [
    ("ties (p*256 = .5): equal rows of 512", 2, 512, 1.0, "equal", None, True),
    ("ties (p*256 = .5): row 0 equal, others random", 3, 512, 0.7, "equal-first", None, False),
    ("ties (p*256 = .5): half of each row at the top, half 25.5 below", 2, 1024, 1.0, "half-max", None, False),
    ("equal rows of 2", 2, 2, 1.0, "equal", None, True),
    ("uint8 output zero point 7 (ignored)", 3, 17, 1.0, "random", 7, False),
    ("uint8 output zero point 128 (ignored)", 3, 10, 0.5, "random", 128, False),
    ("uint8 output zero point 7 (ignored), equal rows of 512", 1, 512, 1.0, "equal", 7, True),
    # LiteRT's arm64 build sums a 16-bit table in integers where its x86 build sums floats (QuantizedSoftmax.swift):
    # the two round apart in about one output of a thousand, too rarely for the cases above to tell them apart.
    ("many short rows (where the arm64 and x86 builds round apart)", 1000, 10, 1.0, "random", None, False),
]


def softmax(rng):
    def make(kind, config):
        rows, depth, beta = config
        x = activation(rng, kind, [rows, depth])
        out = output(kind) if kind == "float32" else output(kind, None, 1 / 256, LIMITS[kind][0])
        return Case(f"{rows}x{depth} beta {beta}", "SOFTMAX", kind, [x], [out], options("SoftmaxOptions", beta=beta),
                    constant=depth == 1)

    def make_extra(kind, config):
        tag, rows, depth, beta, pattern, zero_point, constant_ = config
        qmin, qmax = LIMITS[kind]
        x = activation(rng, kind, [rows, depth], 0.1 if pattern == "half-max" else 0.02)
        if pattern == "equal":
            x.value = np.repeat(rng.integers(qmin, qmax + 1, (rows, 1)), depth, axis=1).astype(NUMPY[kind])
        elif pattern == "equal-first":
            x.value[0] = x.value[0, 0]
        elif pattern == "half-max":
            x.value[:, :depth // 2], x.value[:, depth // 2:] = qmax, qmin
        out = output(kind, None, 1 / 256, LIMITS[kind][0] if zero_point is None else zero_point)
        return Case(f"{tag}: {rows}x{depth} beta {beta}", "SOFTMAX", kind, [x], [out],
                    options("SoftmaxOptions", beta=beta), constant=constant_, path="builtin")

    for kind in KINDS:
        for config in SOFTMAX:
            yield partial(make, kind, config)
    for config in SOFTMAX_EXTRA:  # appended: the main grid keeps its indices
        for kind in ("uint8", "int8"):
            if config[5] is None or kind == "uint8":
                yield partial(make_extra, kind, config)


def elementwise(name, scale, zero_points, input_scales, extra=(), path=None, refuse=False):
    """LOGISTIC or TANH on a few shapes. The quantized input's scale is drawn from input_scales and its zero point
    from the middle half of the range, so that the input spans the curve rather than its flat ends. extra: cases
    appended, quantized only: (tag, shape, {type: output (scale, zero point)}, input scales or None for
    input_scales); path: the one the spec gives them; refuse: the builtin kernel may refuse them (LOGISTIC's needs
    the output scale 1/256; XNNPACK takes any), so that AUTO's outputs alone are kept."""
    shapes = [[1, 5, 7, 3], [1, 1001], [3, 17]]

    def family(rng):
        def make(kind, shape, tag="", out_q=None, scales=None):
            if kind == "float32":
                x = activation(rng, kind, shape)
            else:
                qmin, qmax = LIMITS[kind]
                x = activation(rng, kind, shape, log_uniform(rng, *(scales or input_scales)),
                               int(rng.integers(qmin + 64, qmax - 63)))
            out_scale, out_zero_point = out_q or (scale, zero_points.get(kind))
            out = output(kind) if kind == "float32" else output(kind, shape if tag else None, out_scale, out_zero_point)
            return Case((f"{tag}: " if tag else "") + "x".join(map(str, shape)), name, kind, [x], [out],
                        path=path if tag else None, builtin_may_refuse=bool(tag) and refuse)

        for kind in KINDS:
            for shape in shapes:
                yield partial(make, kind, shape)
        for tag, shape, out_q, scales in extra:  # appended: the main grid keeps its indices
            for kind in ("uint8", "int8"):
                yield partial(make, kind, shape, tag, out_q[kind], scales)
    return family


# Extra LOGISTIC and TANH cases: (tag, shape, output (scale, zero point) per type, input scales)
LOGISTIC_EXTRA = [
    ("non-standard output params", [1, 37], {"uint8": (1 / 200, 20), "int8": (1 / 200, -100)}, None),
    ("non-standard output params", [2, 3, 5, 7], {"uint8": (1 / 128, 100), "int8": (1 / 128, -64)}, None),
    ("non-standard output params, input into the flat ends", [1, 1001], {"uint8": (1 / 255, 0),
                                                                         "int8": (1 / 255, -128)}, (0.05, 0.1)),
]
TANH_EXTRA = [
    ("non-standard output params", [1, 37], {"uint8": (1 / 100, 100), "int8": (1 / 120, -10)}, None),
    ("non-standard output params", [2, 3, 5, 7], {"uint8": (1 / 64, 128), "int8": (1 / 64, 0)}, None),
    ("input into the flat ends", [1, 1001], {"uint8": (1 / 128, 128), "int8": (1 / 128, 0)}, (0.025, 0.04)),
]


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


# Extra RESIZE_BILINEAR cases (as RESIZE): an output side of 1 (align_corners then uses the scale n_in / n_out, not
# (n_in − 1) / (n_out − 1)), downsampling with half_pixel_centers, and upsampling several times over with channels that
# are not a multiple of eight (DeepLab v3's 17 → 257 over 21 classes: each input row read by many output rows)
RESIZE_EXTRA = [
    (5, 7, 3, 1, 1, True, False),
    (5, 7, 7, 1, 4, True, False),
    (4, 6, 3, 1, 1, False, False),
    (5, 7, 3, 1, 1, False, True),
    (9, 9, 5, 4, 4, False, True),
    (7, 5, 3, 3, 2, False, True),
    (16, 12, 3, 5, 5, False, True),
    (9, 9, 21, 65, 65, True, False),
    (6, 5, 9, 24, 20, False, True),
]


def resize_bilinear(rng):
    def make(kind, config, extra=False):
        h, w, c, nh, nw, align, half = config
        x = activation(rng, kind, [1, h, w, c])
        label = (("output side 1: " if extra and 1 in (nh, nw) else "upsampling: " if extra and nh > h else
                  "downsampling: " if extra else "")
                 + f"1x{h}x{w}x{c} -> {nh}x{nw}" + (" align_corners" if align else "")
                 + (" half_pixel_centers" if half else ""))
        return Case(label, "RESIZE_BILINEAR", kind, [x, int32([nh, nw])],
                    [same_as(x) if kind != "float32" else output(kind)],
                    options("ResizeBilinearOptions", alignCorners=align, halfPixelCenters=half),
                    half_pixel_centers=half, path="xnnpack" if extra and kind != "float32" else None)

    for kind in KINDS:
        for config in RESIZE:
            yield partial(make, kind, config)
    for config in RESIZE_EXTRA:  # appended: the main grid keeps its indices
        for kind in KINDS:
            yield partial(make, kind, config, True)


# Extra RESIZE_NEAREST_NEIGHBOR cases (as RESIZE): exact .5 positions under align_corners (3 -> 5: scale 0.5, where
# rounding half away from zero and flooring part), EfficientDet-Lite's feature-pyramid upsampling (3 -> 5, 5 -> 10,
# 10 -> 20, no flags) and a 2x upsampling with half-pixel centres.
RESIZE_NEAREST_EXTRA = [
    (3, 3, 5, 5, 5, True, False),
    (3, 3, 8, 5, 5, False, False),
    (5, 5, 3, 10, 10, False, False),
    (10, 10, 17, 20, 20, False, False),
    (4, 6, 3, 8, 12, False, True),
]


def resize_nearest_neighbor(rng):
    """RESIZE_NEAREST_NEIGHBOR over RESIZE's grid and its extra cases (XNNPACK's delegate does not take it: LiteRT runs
    its builtin kernel, a gather that copies quantized bytes as they are)."""
    def make(kind, config):
        h, w, c, nh, nw, align, half = config
        x = activation(rng, kind, [1, h, w, c])
        label = f"1x{h}x{w}x{c} -> {nh}x{nw}" + (" align_corners" if align else "") + (" half_pixel_centers" if half else "")
        return Case(label, "RESIZE_NEAREST_NEIGHBOR", kind, [x, int32([nh, nw])], [same_as(x) if kind != "float32" else output(kind)],
                    options("ResizeNearestNeighborOptions", alignCorners=align, halfPixelCenters=half),
                    half_pixel_centers=half, align_corners=align)

    for kind in KINDS:
        for config in RESIZE + RESIZE_EXTRA + RESIZE_NEAREST_EXTRA:
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


# Extra QUANTIZE cases: (tag, input type, input scale, input zero point, input spread, output type, output scale,
# output zero point, element count n, path per the spec); zero points as in zero_point_of, spreads as in
# spread_input. Same-type requantization runs in XNNPACK when input scale / output scale is in [1/256, 128], else
# builtin; uint8 <-> int8 always runs builtin, whose NEON loop (16 at a time, ties up) and scalar tail (ties away)
# round differently: n % 16 != 0 exercises both, ratios with few bits (0.5, 0.25, 0.75, 1.5) give exact ties. Float
# inputs (see float_ties) sit on exact .5 ties (scales that are powers of two) or near them, with ±inf, NaN, ±1e30.
QUANTIZE_EXTRA = [
    ("builtin-fallback ratio 200", "uint8", 0.05, "mid", "sparse", "uint8", 0.05 / 200, "mid", 37, "builtin"),
    ("builtin-fallback ratio 129", "int8", 129 * 2 ** -10, "mid", "sparse", "int8", 2 ** -10, "min", 100, "builtin"),
    ("builtin-fallback ratio 129", "uint8", 129 * 2 ** -10, 100, "sparse", "uint8", 2 ** -10, "min", 16, "builtin"),
    ("xnnpack ratio 128 exactly", "int8", 2 ** -3, "mid", "sparse", "int8", 2 ** -10, "min", 37, "xnnpack"),
    ("xnnpack ratio 1/256 exactly", "uint8", 2 ** -10, "min", None, "uint8", 2 ** -2, 10, 37, "xnnpack"),
    ("builtin-fallback ratio 1/300", "uint8", 0.003, "min", None, "uint8", 0.9, 5, 51, "builtin"),
    ("builtin-fallback ratio 1/400", "int8", 0.0025, "min", None, "int8", 1.0, "mid", 100, "builtin"),
    ("builtin-fallback ratio 1/300", "int8", 0.003, "min", None, "int8", 0.9, -100, 7, "builtin"),
    ("builtin ratio 0.5", "uint8", 0.05, 140, None, "int8", 0.1, -5, 37, "builtin"),
    ("builtin ratio 0.75", "uint8", 0.03, 100, None, "int8", 0.04, 10, 100, "builtin"),
    ("builtin ratio 0.25", "uint8", 0.0625, "mid", None, "int8", 0.25, "mid", 1003, "builtin"),
    ("builtin ratio 2", "uint8", 0.1, 64, 60, "int8", 0.05, "mid", 33, "builtin"),
    ("builtin ratio 0.5", "int8", 0.05, -3, None, "uint8", 0.1, "mid", 37, "builtin"),
    ("builtin ratio 4/3", "int8", 0.04, 20, 90, "uint8", 0.03, 120, 7, "builtin"),
    ("builtin ratio 1.5", "int8", 0.0375, "mid", 80, "uint8", 0.025, "mid", 51, "builtin"),
    ("builtin ratio 0.4 (no tail)", "int8", 0.02, "min", None, "uint8", 0.05, "min", 16, "builtin"),
    ("builtin ratio 0.75", "int8", 0.03, "max", None, "uint8", 0.04, "max", 1003, "builtin"),
    ("ties, +-inf, NaN, +-1e30", "float32", None, None, None, "uint8", 0.25, "mid", 100, "xnnpack"),
    ("ties, +-inf, NaN, +-1e30", "float32", None, None, None, "int8", 0.25, "mid", 100, "xnnpack"),
    ("near ties, +-inf, NaN, +-1e30", "float32", None, None, None, "uint8", 0.1, "min", 37, "xnnpack"),
    ("near ties, +-inf, NaN, +-1e30", "float32", None, None, None, "int8", 0.03, "min", 37, "xnnpack"),
    ("ties, +-inf, NaN, +-1e30, zero point max", "float32", None, None, None, "uint8", 0.5, "max", 51, "xnnpack"),
    ("ties, +-inf, NaN, +-1e30, zero point max", "float32", None, None, None, "int8", 0.125, "max", 51, "xnnpack"),
]
SPECIAL_FLOATS = [np.inf, -np.inf, np.nan, 1e30, -1e30, 3.4e38, -3.4e38, -0.0, 1e-30]


def float_ties(rng, kind, n, scale, zero_point):
    """n float inputs (k + 0.5) × scale in float32, k drawn so that most land in the output's range, with
    SPECIAL_FLOATS and ±40000 × scale (beyond the int16 the kernel saturates to first) spread over the positions,
    the last ones in the tail a vector loop leaves."""
    qmin, qmax = LIMITS[kind]
    k = rng.integers(qmin - zero_point - 8, qmax - zero_point + 8, n)
    values = ((k + 0.5) * np.float32(scale)).astype(np.float32)
    specials = SPECIAL_FLOATS + [40000 * scale, -40000 * scale]
    positions = np.unique(np.round(np.linspace(0, n - 1, len(specials))).astype(int))
    values[positions] = np.array(specials[:len(positions)], dtype=np.float32)
    return values


def quantize(rng):
    def make(shape, config):
        kind_in, scale_in, zero_in, kind_out, scale_out, zero_out = config
        x = activation(rng, kind_in, shape, scale_in, zero_in)
        label = (f"{kind_in}" + ("" if scale_in is None else f"({scale_in},{zero_in})")
                 + f" -> {kind_out}({scale_out},{zero_out}) " + "x".join(map(str, shape)))
        return Case(label, "QUANTIZE", kind_out, [x], [output(kind_out, shape, scale_out, zero_out)])

    def make_extra(config):
        tag, kind_in, scale_in, zero_in, spread, kind_out, scale_out, zero_out, n, path = config
        zero_out = zero_point_of(rng, kind_out, zero_out)
        if kind_in == "float32":
            x = T([1, n], kind_in, value=float_ties(rng, kind_out, n, scale_out, zero_out))
        else:
            x = spread_input(rng, kind_in, [1, n], scale_in, zero_in, spread)
        label = (f"{tag}: {kind_in}" + ("" if scale_in is None else f"({scale_in:.6g},{x.zero_point[0]})")
                 + f" -> {kind_out}({scale_out:.6g},{zero_out}) 1x{n}")
        return Case(label, "QUANTIZE", kind_out, [x], [output(kind_out, [1, n], scale_out, zero_out)], path=path)

    for shape in ([1, 5, 7, 3], [3, 17]):
        for config in QUANTIZE:
            yield partial(make, shape, config)
    for config in QUANTIZE_EXTRA:  # appended: the main grid keeps its indices
        yield partial(make_extra, config)


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


# (op, input shape, output quantization: "calibrated" as a converter writes it after an ADD, "same" as the input's,
# or an explicit (scale, zero point) per type)
RELU = [
    ("RELU", [1, 5, 7, 3], "calibrated"),
    ("RELU", [1, 9, 9, 13], "calibrated"),
    ("RELU", [3, 17], "same"),
    ("RELU", [1, 4, 4, 7], {"uint8": (0.011, 3), "int8": (0.013, -100)}),   # zero point above the type's minimum
    ("RELU6", [1, 5, 7, 3], "calibrated"),
    ("RELU6", [1, 9, 9, 13], {"uint8": (0.01, 0), "int8": (0.01, -128)}),   # 6 beyond the range: no upper clamp
    ("RELU6", [3, 17], "same"),
    ("RELU_N1_TO_1", [1, 5, 7, 3], "calibrated"),
    ("RELU_N1_TO_1", [3, 17], "same"),
]


def relu(rng):
    """RELU, RELU6 and RELU_N1_TO_1 as standalone operators (a MiDaS-like decoder's RELUs after residual ADDs, which
    the converter cannot fuse): quantized with the output calibrated on its own range, or quantized as the input."""
    def make(kind, config):
        name, shape, out_q = config
        x = activation(rng, kind, shape)
        if kind == "float32":
            out = output(kind)
        elif out_q == "same":
            out = same_as(x)
        elif out_q == "calibrated":
            out = output(kind)
        else:
            out = output(kind, None, *out_q[kind])
        label = f"{name} " + "x".join(map(str, shape)) + ("" if kind == "float32" else
                                                          f" {out_q if isinstance(out_q, str) else 'fixed'}-q")
        return Case(label, name, kind, [x], [out])

    for kind in KINDS:
        for config in RELU:
            yield partial(make, kind, config)


# (input shape, input scale range, output quantization: "calibrated", "same" or (scale, zero point) per type)
HARD_SWISH = [
    ([1, 5, 7, 3], (0.02, 0.1), "calibrated"),
    ([1, 9, 9, 13], (0.02, 0.1), "calibrated"),
    ([3, 17], (0.02, 0.1), "same"),
    ([1, 4, 4, 7], (0.002, 0.005), "calibrated"),    # a narrow input: the relu-ish multiplier shifts right
    ([1, 6, 6, 16], (0.1, 0.3), "calibrated"),       # a wide one: it shifts left and saturates
    ([1, 1001], (0.02, 0.1), {"uint8": (0.05, 20), "int8": (0.04, -110)}),
]


def hard_swish(rng):
    """HARD_SWISH (MobileNetV3): x · relu6(x + 3) / 6. XNNPACK's delegate takes the float one only; quantized it is
    LiteRT's builtin int16 fixed-point kernel."""
    def make(kind, config):
        shape, scales, out_q = config
        x = activation(rng, kind, shape, None if kind == "float32" else log_uniform(rng, *scales))
        if kind == "float32":
            out = output(kind)
        elif out_q == "same":
            out = same_as(x)
        elif out_q == "calibrated":
            out = output(kind)
        else:
            out = output(kind, None, *out_q[kind])
        label = "x".join(map(str, shape)) + ("" if kind == "float32" else
                                             f" input scale {x.scale[0]:.3g} {out_q if isinstance(out_q, str) else 'fixed'}-q")
        return Case(label, "HARD_SWISH", kind, [x], [out])

    for kind in KINDS:
        for config in HARD_SWISH:
            yield partial(make, kind, config)


# (op, input shape, axis, pieces: a count for SPLIT, the size_splits for SPLIT_V, −1 = the rest)
SPLIT = [
    ("SPLIT", [1, 5, 7, 16], 3, 2),        # YOLOv8's C2f: channels in two halves
    ("SPLIT", [1, 4, 6, 9], 3, 3),
    ("SPLIT", [1, 6, 5, 3], 1, 2),
    ("SPLIT", [1, 30, 4], -1, 2),          # YOLOv8's box decoding: left-top and right-bottom distances
    ("SPLIT", [3, 7], 0, 3),
    ("SPLIT_V", [1, 5, 7, 17], 3, [5, -1, 4]),
    ("SPLIT_V", [1, 30, 144], 2, [64, 80]),  # boxes (4 × 16 DFL bins) from 80 class scores
    ("SPLIT_V", [1, 8, 6, 3], -3, [3, 5]),
]


def split(rng):
    """SPLIT and SPLIT_V: pure moves, quantized outputs keep the input's quantization (as the converter writes
    them)."""
    def make(kind, config):
        name, shape, axis, pieces = config
        x = activation(rng, kind, shape)
        count = pieces if name == "SPLIT" else len(pieces)
        outputs = [same_as(x) if kind != "float32" else output(kind) for _ in range(count)]
        label = f"{name} " + "x".join(map(str, shape)) + f" axis {axis} into {pieces}"
        if name == "SPLIT":
            return Case(label, name, kind, [int32(axis), x], outputs, options("SplitOptions", numSplits=count))
        return Case(label, name, kind, [x, int32(pieces), int32(axis)], outputs, options("SplitVOptions", numSplits=count))

    for kind in KINDS:
        for config in SPLIT:
            yield partial(make, kind, config)


# (H, W, C, block)
DEPTH_TO_SPACE = [(4, 5, 12, 2), (3, 3, 27, 3), (5, 7, 8, 2), (2, 2, 64, 4), (7, 3, 4, 2), (1, 1, 9, 3)]


def depth_to_space(rng):
    """DEPTH_TO_SPACE (the sub-pixel step of ESPCN-style super-resolution): a pure move, quantized outputs keep the
    input's quantization."""
    def make(kind, config):
        h, w, c, block = config
        x = activation(rng, kind, [1, h, w, c])
        label = f"1x{h}x{w}x{c} block {block}"
        return Case(label, "DEPTH_TO_SPACE", kind, [x], [same_as(x) if kind != "float32" else output(kind)],
                    options("DepthToSpaceOptions", blockSize=block))

    for kind in KINDS:
        for config in DEPTH_TO_SPACE:
            yield partial(make, kind, config)


# (H, W, input channels, output channels, kernel, stride, padding, fused activation, bias)
TRANSPOSE_CONV = [
    (4, 4, 8, 5, 2, 2, "SAME", "NONE", True),      # a U-Net's 2x2 stride-2 upsampling (Keras' Conv2DTranspose)
    (5, 7, 3, 7, 3, 2, "SAME", "RELU", True),
    (5, 7, 16, 8, 3, 2, "VALID", "NONE", True),
    (6, 6, 13, 3, 4, 2, "SAME", "RELU6", True),
    (3, 5, 7, 17, 3, 1, "SAME", "NONE", True),
    (5, 5, 9, 4, 5, 3, "SAME", "NONE", True),
    (4, 4, 8, 5, 2, 2, "SAME", "NONE", False),     # without the bias input (version 1)
    (3, 4, 33, 16, 2, 2, "VALID", "RELU", True),
    (3, 3, 12, 6, 3, 3, "VALID", "RELU6", True),   # windows that tile the output: 3x3 at stride 3
    (16, 12, 16, 24, 2, 2, "SAME", "NONE", True),  # enough pixels to be split over threads
]


def transpose_conv(rng):
    """TRANSPOSE_CONV: inputs (output shape, filter [O, kh, kw, I], input, bias), the output shape a constant;
    quantized weights per output channel (axis 0) for int8, per tensor for uint8, int32 bias, output calibrated."""
    def make(kind, config):
        h, w, cin, cout, k, stride, padding, act, with_bias = config
        oh, ow = (h * stride, w * stride) if padding == "SAME" else ((h - 1) * stride + k, (w - 1) * stride + k)
        x = activation(rng, kind, [1, h, w, cin])
        filt = weights(rng, kind, [cout, k, k, cin], 0, cin * k * k)
        inputs = [int32([1, oh, ow, cout]), filt, x] + ([bias(rng, kind, cout, x, filt, cin * k * k)] if with_bias else [])
        label = (f"1x{h}x{w}x{cin} -> {cout} k{k} s{stride} {padding}" + act_label(act)
                 + ("" if with_bias else " no bias"))
        return Case(label, "TRANSPOSE_CONV", kind, inputs, [output(kind, [1, oh, ow, cout])],
                    options("TransposeConvOptions", padding=PADDING[padding], strideW=stride, strideH=stride,
                            fusedActivationFunction=ACTIVATION[act]),
                    fused=act != "NONE")

    for kind in KINDS:
        for config in TRANSPOSE_CONV:
            yield partial(make, kind, config)


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
    "logistic": elementwise("LOGISTIC", 1 / 256, {"uint8": 0, "int8": -128}, (0.02, 0.05), LOGISTIC_EXTRA,
                            "xnnpack", True),
    "tanh": elementwise("TANH", 1 / 128, {"uint8": 128, "int8": 0}, (0.01, 0.025), TANH_EXTRA),
    "concatenation": concatenation,
    "pad": pad,
    "resize_bilinear": resize_bilinear,
    "resize_nearest_neighbor": resize_nearest_neighbor,
    "quantize": quantize,
    "dequantize": dequantize,
    "relu": relu,
    "hard_swish": hard_swish,
    "split": split,
    "depth_to_space": depth_to_space,
    "transpose_conv": transpose_conv,
}


def sweep(family):
    """Every case of a family: a degenerate one is drawn anew (up to DRAWS times, the last draw kept); a model the
    builtin kernels refuse goes to rejected (unless the case is builtin_may_refuse and AUTO runs it: then it keeps
    its AUTO outputs alone and records builtin_error); one AUTO refuses keeps its builtin outputs and records
    auto_error."""
    rng = np.random.default_rng(zlib.crc32(family.encode()))
    arrays, cases, rejected = {}, [], []
    for make in FAMILIES[family](rng):
        for draw in range(DRAWS):
            case = make()
            try:
                content, values, builtin, builtin_error = execute(case)
                auto = None
                if builtin is None:  # builtin_may_refuse: AUTO's outputs are the reference
                    auto, delegated = run(content, values, OpResolverType.AUTO)
            except Exception as error:  # LiteRT refused the model: recorded, no index
                rejected.append([case.label, message(error)])
                case = None
                break
            if not degenerate(case, builtin if builtin is not None else auto):
                break
        if case is None:
            continue
        auto_error = None
        if builtin is not None:
            try:
                auto, delegated = run(content, values, OpResolverType.AUTO)
            except Exception as error:
                auto, delegated, auto_error = None, False, message(error)
        reference = builtin if builtin is not None else auto
        i = len(cases)
        arrays[f"m{i}"] = np.frombuffer(content, dtype=np.uint8)
        for j, value in enumerate(values):
            arrays[f"a{i}_{j}"] = np.asarray(value)
        for k in range(len(reference)):
            if builtin is not None:
                arrays[f"b{i}_{k}"] = builtin[k]
            if auto is not None:
                arrays[f"o{i}_{k}"] = auto[k]
        entry = {
            "label": case.label, "op": case.op, "type": case.kind, "version": version(case), "delegated": delegated,
            "max_diff": None if auto is None or builtin is None else [difference(a, b) for a, b in zip(auto, builtin)],
            "saturated": [saturated(t, b) for t, b in zip(case.outputs, reference)],
            "constant": [constant(b) for b in reference],
            "draws": draw + 1,
        }
        if builtin_error is not None:
            entry["builtin_error"] = builtin_error
        if case.parameters.get("constant"):
            entry["constant_by_definition"] = True
        if case.parameters.get("path"):
            entry["expected_path"] = case.parameters["path"]
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
            diff = "builtin refused" if "builtin_error" in c else "AUTO failed"
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
        if c.get("expected_path") and (c["expected_path"] == "xnnpack") != c["delegated"]:
            flag += f" UNEXPECTED PATH (spec: {c['expected_path']})"
        print(f"    {i:3d} {'X' if c['delegated'] else '-'} {c['label']:62s} diff {diff:11s}"
              + (f" sat {max(sat):5.1%}" if sat else "") + flag)
        if "auto_error" in c:
            print(f"        AUTO: {c['auto_error']}")
        if "builtin_error" in c:
            print(f"        builtin: {c['builtin_error']}")
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
