#!/usr/bin/env python3
"""Time LiteRT opening the same bundle: read the zip (nested bundles too) and build an Interpreter per model.

The reference point for `bench format`. Prints `median_ms=<x> min_ms=<y>` like our bench does.
Usage: python3 tools/litert_load_time.py BUNDLE [REPEATS]
"""
import io
import statistics
import sys
import time
import zipfile

from ai_edge_litert.interpreter import Interpreter, OpResolverType


def models(data):
    if data[4:8] == b"TFL3":
        yield data
        return
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            member = archive.read(info)
            if info.filename.endswith(".task"):
                yield from models(member)
            elif member[4:8] == b"TFL3":
                yield member


def main():
    path = sys.argv[1]
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    samples = []
    for iteration in range(repeats + 5):
        start = time.perf_counter()
        with open(path, "rb") as f:
            data = f.read()
        for content in models(data):
            Interpreter(model_content=content,
                        experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
        elapsed = (time.perf_counter() - start) * 1000
        if iteration >= 5:
            samples.append(elapsed)
    print(f"median_ms={statistics.median(samples):.3f} min_ms={min(samples):.3f}")


if __name__ == "__main__":
    main()
