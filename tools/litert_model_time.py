#!/usr/bin/env python3
"""Time one model with LiteRT's interpreter (XNNPACK, as LiteRT runs by default) on a fixed random input.
Prints `median_ms=<x> min_ms=<y>`. Usage: litert_model_time.py MODEL[#member] [THREADS] [REPEATS]"""
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


def main():
    spec = sys.argv[1]
    threads = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 30
    interpreter = Interpreter(model_content=load(spec), num_threads=threads)
    interpreter.allocate_tensors()
    rng = np.random.default_rng(1)
    for detail in interpreter.get_input_details():
        interpreter.set_tensor(detail["index"], rng.random(detail["shape"], dtype=np.float32).astype(detail["dtype"]))
    samples = []
    for iteration in range(repeats + 5):
        start = time.perf_counter()
        interpreter.invoke()
        if iteration >= 5:
            samples.append((time.perf_counter() - start) * 1000)
    print(f"median_ms={statistics.median(samples):.3f} min_ms={min(samples):.3f}")


if __name__ == "__main__":
    main()
