#!/usr/bin/env python3
"""Where a model is slower than LiteRT, operator by operator: each operator run alone by LiteRT (XNNPACK, as
LiteRT runs by default) beside our own per-operator times of the whole model.

    python3 tools/litert_operator_time.py MODEL[#member] [--threads N] [--ours PATH_TO_vision-tasks] [--top K]

Each operator becomes a one-operator model (tools/litert_quantized_goldens.py's one_operator_model: its tensors,
quantization, constants and options kept), which LiteRT invokes on a fixed pseudo-random input until 0.2 s have
passed; the median invoke is its time. Ours come from `vision-tasks model run --profile` (median of 11 profiled
runs per operator) on the whole model. Operators we fuse into their consumer (a PAD) or fold at load have no time
of ours. A one-operator LiteRT model pays an invoke's fixed cost (some microseconds) that the whole model shares
among its operators, so the ratio means little for operators under ~20 µs; and it runs with its input and output hot in
cache, where ours run in the model's flow: an operator over activations larger than the L2 cache (128 × 128 × 16
floats is 1 MiB) can take ours twice its time alone (`vision-tasks model run` on the one-operator model says how
much: write it with one_operator_model).

Prints one row per operator, slowest of ours first: index, operator, ours ms, LiteRT ms, ours / LiteRT, and the
totals. The shapes are ours' profile's."""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

import numpy as np
from ai_edge_litert.interpreter import Interpreter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from litert_model_time import load  # noqa: E402
from litert_quantized_goldens import one_operator_model, schema  # noqa: E402


def fold_dequantized_constants(model):
    """float16 weights behind DEQUANTIZE (the fp16 models) as float32 constants, so that each operator alone gets
    constant weights, as it does in the whole model (XNNPACK packs constant weights once; it cannot pack an input)."""
    graph = model.subgraphs[0]
    kept = []
    for op in graph.operators:
        code = model.operatorCodes[op.opcodeIndex]
        source = graph.tensors[op.inputs[0]] if len(op.inputs) == 1 else None
        if (max(code.builtinCode, code.deprecatedBuiltinCode) == schema.BuiltinOperator.DEQUANTIZE and source is not None
                and source.type == schema.TensorType.FLOAT16 and source.buffer > 0
                and model.buffers[source.buffer].data is not None and len(model.buffers[source.buffer].data)):
            values = np.frombuffer(bytes(model.buffers[source.buffer].data), dtype=np.float16).astype(np.float32)
            buffer = schema.BufferT()
            buffer.data = np.frombuffer(values.tobytes(), dtype=np.uint8)
            model.buffers.append(buffer)
            target = graph.tensors[op.outputs[0]]
            target.buffer = len(model.buffers) - 1
            continue
        kept.append(op)
    return kept


def litert_times(content, threads):
    model = schema.ModelT.InitFromPackedBuf(content, 0)
    operators = model.subgraphs[0].operators
    # Timed by their index in the file (ours are too); DEQUANTIZE operators of constants become constants.
    kept = {id(op) for op in fold_dequantized_constants(model)}
    rng = np.random.default_rng(7)
    times = {}
    for index, op in enumerate(operators):
        if id(op) not in kept:
            continue
        code = model.operatorCodes[op.opcodeIndex]
        name = schema.BuiltinOperator.__dict__
        builtin = max(code.builtinCode, code.deprecatedBuiltinCode)
        label = next((k for k, v in name.items() if v == builtin and not k.startswith("_")), str(builtin))
        if code.customCode:
            label = code.customCode.decode()
        single, _ = one_operator_model(model, index)
        try:
            interpreter = Interpreter(model_content=single, num_threads=threads)
            interpreter.allocate_tensors()
            for detail in interpreter.get_input_details():
                dtype = np.dtype(detail["dtype"])
                if np.issubdtype(dtype, np.integer):
                    info = np.iinfo(dtype)
                    value = rng.integers(max(info.min, -128), min(info.max, 255) + 1, size=detail["shape"]).astype(dtype)
                else:
                    value = rng.standard_normal(detail["shape"]).astype(dtype)
                interpreter.set_tensor(detail["index"], value)
            for _ in range(3):
                interpreter.invoke()
            samples, began = [], time.perf_counter()
            while time.perf_counter() - began < 0.2 or len(samples) < 5:
                start = time.perf_counter()
                interpreter.invoke()
                samples.append((time.perf_counter() - start) * 1000)
            times[index] = (label, statistics.median(samples))
        except (RuntimeError, ValueError) as error:
            times[index] = (label, None)
            print(f"operator {index} {label}: LiteRT cannot run it alone ({error})", file=sys.stderr)
    return times


def our_times(tool, spec, threads):
    output = subprocess.run([tool, "model", "run", spec, "--repeat", "20", "--profile", "--top", "100000",
                             "--threads", str(threads), "--output-dir", "/tmp"],
                            check=True, capture_output=True, text=True).stdout
    times = {}
    for line in output.splitlines():
        match = re.match(r"\s+op\s+(\d+) (\S+)\s+([0-9.]+) ms\s+(.*)", line)
        if match:
            times[int(match.group(1))] = (match.group(2), float(match.group(3)), match.group(4))
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--ours", default=".build/release/vision-tasks")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    theirs = litert_times(load(args.model), args.threads)
    ours = our_times(args.ours, args.model, args.threads)
    rows = sorted(theirs, key=lambda i: -(ours[i][1] if i in ours else 0))
    print(f"{'op':>4} {'operator':<22} {'ours ms':>8} {'LiteRT ms':>9} {'ratio':>6}  shapes")
    for index in rows[:args.top]:
        label, litert = theirs[index]
        mine = ours.get(index)
        ratio = f"{mine[1] / litert:6.2f}" if mine and litert else "     -"
        print(f"{index:>4} {label:<22} {mine[1] if mine else float('nan'):8.3f} "
              f"{litert if litert is not None else float('nan'):9.3f} {ratio}  {mine[2] if mine else ''}")
    total_ours = sum(t[1] for t in ours.values())
    total_litert = sum(t[1] for t in theirs.values() if t[1] is not None)
    print(f"sum of operators: ours {total_ours:.3f} ms, LiteRT alone {total_litert:.3f} ms, "
          f"ratio {total_ours / total_litert:.2f}")
    by_kind = {}
    for index, (label, litert) in theirs.items():
        entry = by_kind.setdefault(label, [0.0, 0.0])
        entry[0] += ours[index][1] if index in ours else 0
        entry[1] += litert or 0
    for label, (mine, litert) in sorted(by_kind.items(), key=lambda kv: -kv[1][0]):
        print(f"  {label:<22} ours {mine:7.3f} ms  LiteRT {litert:7.3f} ms  ratio {mine / litert if litert else float('nan'):.2f}")


if __name__ == "__main__":
    main()
