#!/usr/bin/env python3
"""Time one model with LiteRT's interpreter (XNNPACK, as LiteRT runs by default).

One-shot:  litert_model_time.py MODEL[#member] [THREADS] [REPEATS]
  on a fixed random input; prints `median_ms=<x> min_ms=<y>`.
Served:    litert_model_time.py MODEL[#member] THREADS --serve INPUT_FILE
  sets the inputs from INPUT_FILE (every input's bytes, in input order, as the caller's engine gets them), warms up,
  prints `ready`, then for each line `N` read from stdin times N invokes and prints their milliseconds on one line.
  `bench models` drives it so that our engine and LiteRT take turns in the same run on the same input."""
import io
import statistics
import sys
import time
import zipfile

import numpy as np
from ai_edge_litert.interpreter import Interpreter


def load(spec):
    path, _, member = spec.partition("#")
    data = open(path, "rb").read()
    for part in member.split("/") if member else []:
        data = zipfile.ZipFile(io.BytesIO(data)).read(part)
    return data


def timed(interpreter, count):
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        interpreter.invoke()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def serve(interpreter, input_path):
    data = open(input_path, "rb").read()
    offset = 0
    for detail in interpreter.get_input_details():
        dtype = np.dtype(detail["dtype"])
        count = int(np.prod(detail["shape"]))
        value = np.frombuffer(data, dtype=dtype, count=count, offset=offset).reshape(detail["shape"])
        interpreter.set_tensor(detail["index"], value)
        offset += count * dtype.itemsize
    timed(interpreter, 5)
    print("ready", flush=True)
    for line in sys.stdin:
        print(" ".join(f"{sample:.4f}" for sample in timed(interpreter, int(line))), flush=True)


def main():
    spec = sys.argv[1]
    threads = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    interpreter = Interpreter(model_content=load(spec), num_threads=threads)
    interpreter.allocate_tensors()
    if len(sys.argv) > 4 and sys.argv[3] == "--serve":
        serve(interpreter, sys.argv[4])
        return
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    rng = np.random.default_rng(1)
    for detail in interpreter.get_input_details():
        interpreter.set_tensor(detail["index"], rng.random(detail["shape"], dtype=np.float32).astype(detail["dtype"]))
    timed(interpreter, 5)
    samples = timed(interpreter, repeats)
    print(f"median_ms={statistics.median(samples):.3f} min_ms={min(samples):.3f}")


if __name__ == "__main__":
    main()
