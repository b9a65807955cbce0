#!/usr/bin/env python3
"""cpu_vs_onnxruntime.py: strata's CPU backend against onnxruntime (CPU, same thread count) on the same ONNX files.

For each model and batch: onnxruntime's median latency (warm-up runs, then the median of --iters), and strata's
from `strata bench MODEL --device cpu --batch B --iters N --json out.json` (its "median_ms" for that batch). Prints a
markdown table: model, batch, onnxruntime ms, strata ms, ratio (strata / onnxruntime; below 1 means strata is faster).

    python3 bench/cpu_vs_onnxruntime.py --strata build/strata --models ../shared/models/mobilenet_v2.onnx \
        ../shared/models/googlenet.onnx --batch 1,8
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np


def onnxruntime_ms(model, batch, threads, warmup, iters):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    feeds = {}
    rng = np.random.default_rng(1)
    for inp in session.get_inputs():
        shape = [batch if not isinstance(d, int) or i == 0 else d for i, d in enumerate(inp.shape)]
        feeds[inp.name] = rng.standard_normal(shape).astype(np.float32)
    for _ in range(warmup):
        session.run(None, feeds)
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        session.run(None, feeds)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def find_median(report, batch):
    """The "median_ms" recorded for `batch` anywhere in strata's JSON (a list of per-batch results, or a dict)."""
    if isinstance(report, dict):
        if "median_ms" in report and report.get("batch", batch) == batch:
            return float(report["median_ms"])
        for value in report.values():
            found = find_median(value, batch)
            if found is not None:
                return found
    elif isinstance(report, list):
        for value in report:
            found = find_median(value, batch)
            if found is not None:
                return found
    return None


def strata_ms(strata, model, batch, iters):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "bench.json")
        cmd = [strata, "bench", model, "--device", "cpu", "--batch", str(batch), "--iters", str(iters), "--json", out]
        result = subprocess.run(cmd, capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"strata bench failed ({' '.join(cmd)}):\n{result.stdout}{result.stderr}")
        with open(out) as f:
            median = find_median(json.load(f), batch)
        if median is None:
            sys.exit(f"no median_ms for batch {batch} in {out}")
        return median


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--strata", default="build/strata", help="the strata binary")
    parser.add_argument("--models", nargs="+", required=True, help="ONNX files")
    parser.add_argument("--batch", default="1,8", help="comma-separated batch sizes")
    parser.add_argument("--threads", type=int, default=2, help="onnxruntime intra-op threads; strata uses one per core, so match the core count")
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--iters", type=int, default=10)
    args = parser.parse_args()

    print("| model | batch | onnxruntime ms | strata ms | ratio |")
    print("|---|---|---|---|---|")
    for model in args.models:
        name = os.path.splitext(os.path.basename(model))[0]
        for batch in [int(b) for b in args.batch.split(",")]:
            ort_ms = onnxruntime_ms(model, batch, args.threads, args.warmup, args.iters)
            ours = strata_ms(args.strata, model, batch, args.iters)
            print(f"| {name} | {batch} | {ort_ms:.2f} | {ours:.2f} | {ours / ort_ms:.2f} |", flush=True)


if __name__ == "__main__":
    main()
