#!/usr/bin/env python3
"""peers.py: strata on the GPU against PyTorch on the same torchvision models, in one run (issue 3, point 3).

For each --models name and each --batch B the model is built with random weights (torch.manual_seed(--seed); the
device machine cannot download weights) and exported to ONNX (opset 17, batch fixed at B) in --onnx-dir, so PyTorch
and strata run the same weights. Then, on the GPU:
  - PyTorch peers, each in fp32 and fp16 (model.half()), NCHW and channels_last:
      eager             CUDA events around one forward call
      graph             eager captured in a torch.cuda.CUDAGraph, events around one replay
      compile           torch.compile(mode="reduce-overhead"), events around one call (skipped by --skip-compile)
    the median of --iters timed runs after --warmup untimed ones, random inputs, cudnn.benchmark = True and
    PyTorch's default TF32 setting for fp32 convolutions (so "fp32" is TF32, as in ../shared/anchors/README.md,
    whose method this follows; it took 50 runs, we take >= 100).
  - strata: `strata bench FILE.onnx --device cuda --precision fp16 --batch B --json OUT`, its median_ms (CUDA events
    around CUDA graph replays; the end-to-end time with host copies goes to --json); an error is recorded in the
    row and the run goes on.
Prints one table row per model and batch: each peer's best time over precision and layout, the best peer and how
it ran, strata's time and strata / best (below 1: strata is faster). --json writes every measurement.

--check: accuracy instead of speed. Per model, one seeded random input at --check-batch; PyTorch fp32 on the GPU
with TF32 off is the reference; `strata run FILE.onnx --input x.npy --output y.npy --device cuda --precision P` for
each --check-precisions P; prints max|diff|/max|ref| and top-1 agreement against issue 3's limits (fp32 <= 1e-4,
fp16/bf16 <= 2e-2 with the same top-1).

    python3 bench/peers.py --models squeezenet1_1,mobilenet_v2,resnet50 --batch 1,64 --json peers.json
    python3 bench/peers.py --check --models resnet18,resnet50,mobilenet_v3_large,regnet_y_400mf,mnasnet1_0,densenet121

torch is imported lazily: --help works where it is not installed.
"""
import argparse
import copy
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_MODELS = "squeezenet1_1,mobilenet_v2,efficientnet_b0,shufflenet_v2_x1_0,googlenet,resnet18,resnet50"
INPUT_SIZE = {"inception_v3": 299}  # every other torchvision classifier takes 224x224
# Models whose constructor needs arguments to be a plain inference network.
MODEL_KWARGS = {"googlenet": {"aux_logits": False, "init_weights": True},
                "inception_v3": {"aux_logits": False, "init_weights": True}}
CHECK_LIMITS = {"fp32": 1e-4, "tf32": 1e-2, "fp16": 2e-2, "bf16": 2e-2}  # max|diff| / max|ref|, issue 3


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--models", default=DEFAULT_MODELS, help="comma-separated torchvision model names")
    p.add_argument("--batch", default="1,64", help="comma-separated batch sizes (default 1,64)")
    p.add_argument("--onnx-dir", default=os.path.join(ROOT, "build", "peers_onnx"),
                   help="where the exported ONNX files go (reused when present for the same --seed)")
    p.add_argument("--strata", default=os.path.join(ROOT, "build", "strata"), help="the strata command-line tool")
    p.add_argument("--json", help="write every measurement to this file")
    p.add_argument("--iters", type=int, default=100, help="timed runs per measurement (median; at least 100)")
    p.add_argument("--warmup", type=int, default=20, help="untimed runs before timing")
    p.add_argument("--seed", type=int, default=0, help="torch.manual_seed for the weights and the inputs")
    p.add_argument("--precisions", default="fp32,fp16", help="PyTorch peer precisions")
    p.add_argument("--layouts", default="nchw,nhwc", help="PyTorch peer layouts (nhwc = channels_last)")
    p.add_argument("--skip-compile", action="store_true", help="skip torch.compile (it takes 10-60 s per variant)")
    p.add_argument("--strata-precision", default="fp16", help="precision strata is benchmarked in")
    p.add_argument("--strata-timeout", type=float, default=900, help="seconds allowed per strata command")
    p.add_argument("--check", action="store_true", help="compare strata's logits with PyTorch fp32 instead")
    p.add_argument("--check-batch", type=int, default=1, help="batch of the --check input")
    p.add_argument("--check-precisions", default="fp32,fp16", help="strata precisions compared in --check")
    args = p.parse_args()
    if args.iters < 100:
        p.error("--iters must be at least 100 (issue 3: median of >= 100 after warm-up)")
    return args


def csv(text):
    return [t.strip() for t in text.split(",") if t.strip()]


# ---- models and export

def make_model(name, seed):
    """The torchvision model `name` with weights from torch.manual_seed(seed), in eval mode, on the CPU."""
    import torch
    import torchvision

    torch.manual_seed(seed)
    model = torchvision.models.get_model(name, weights=None, **MODEL_KWARGS.get(name, {}))
    return model.eval()


def export_onnx(model, name, batch, args):
    """Exports `model` with a fixed batch; returns the file (reused when it exists for the same seed)."""
    import torch

    os.makedirs(args.onnx_dir, exist_ok=True)
    size = INPUT_SIZE.get(name, 224)
    path = os.path.join(args.onnx_dir, f"{name}_s{args.seed}_b{batch}.onnx")
    if os.path.exists(path):
        return path
    x = torch.randn(batch, 3, size, size)
    common = dict(opset_version=17, input_names=["input"], output_names=["logits"], do_constant_folding=True)
    with torch.no_grad():
        try:  # the TorchScript exporter: no onnxscript needed
            torch.onnx.export(model, (x,), path + ".tmp", dynamo=False, **common)
        except Exception as e:  # noqa: BLE001 - fall back to the dynamo exporter, report if both fail
            print(f"  {name}: TorchScript export failed ({e}); trying dynamo=True", file=sys.stderr)
            torch.onnx.export(model, (x,), path + ".tmp", dynamo=True, **common)
    os.replace(path + ".tmp", path)
    return path


# ---- timing (CUDA events; the method of ../shared/anchors/README.md)

def median_event_ms(fn, warmup, iters):
    """Median GPU time of fn() from CUDA events recorded just before and after it, each run synchronised."""
    import torch

    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(iters):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def peer_variant(model, precision, layout):
    """A CUDA copy of the model in this precision and memory format, and a function making matching inputs."""
    import torch

    dtype = torch.float16 if precision == "fp16" else torch.float32
    fmt = torch.channels_last if layout == "nhwc" else torch.contiguous_format
    m = copy.deepcopy(model).to(device="cuda", dtype=dtype, memory_format=fmt).eval()

    def make_input(batch, size):
        return torch.randn(batch, 3, size, size, device="cuda").to(dtype=dtype, memory_format=fmt)
    return m, make_input


def time_eager(m, x, args):
    import torch

    with torch.no_grad():
        return median_event_ms(lambda: m(x), args.warmup, args.iters)


def time_graph(m, x, args):
    """Eager forward captured once in a CUDA graph; times one replay."""
    import torch

    with torch.no_grad():
        static_x = x.clone()
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # warm-up off the capture stream (cudnn.benchmark picks algorithms here)
            for _ in range(3):
                m(static_x)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            m(static_x)
        return median_event_ms(graph.replay, args.warmup, args.iters)


def time_compile(m, x, args):
    """torch.compile(mode="reduce-overhead"); returns (ms, compile seconds). The first calls compile and record."""
    import torch

    torch._dynamo.reset()  # a fresh cache per variant: no recompile limit, no cross-talk between variants
    compiled = torch.compile(m, mode="reduce-overhead")
    mark = getattr(torch.compiler, "cudagraph_mark_step_begin", lambda: None)

    def call():
        mark()
        compiled(x)
    with torch.no_grad():
        t0 = time.perf_counter()
        for _ in range(3):
            call()
        torch.cuda.synchronize()
        compile_s = time.perf_counter() - t0
        return median_event_ms(call, args.warmup, args.iters), compile_s


def time_peers(model, name, batch, args):
    """Every PyTorch variant of one model and batch: a list of rows (ms or error)."""
    import torch

    size = INPUT_SIZE.get(name, 224)
    rows = []
    for precision in csv(args.precisions):
        for layout in csv(args.layouts):
            m, make_input = peer_variant(model, precision, layout)
            x = make_input(batch, size)
            peers = [("eager", time_eager), ("graph", time_graph)]
            if not args.skip_compile:
                peers.append(("compile", time_compile))
            for peer, timer in peers:
                row = {"model": name, "batch": batch, "peer": peer, "precision": precision, "layout": layout}
                try:
                    result = timer(m, x, args)
                    if isinstance(result, tuple):
                        row["ms"], row["compile_s"] = result
                    else:
                        row["ms"] = result
                except Exception as e:  # noqa: BLE001 - one failing variant must not stop the run
                    row["error"] = f"{type(e).__name__}: {e}"
                    print(f"  {name} b{batch} {peer} {precision} {layout}: {row['error']}", file=sys.stderr)
                rows.append(row)
                print(f"  {name} b{batch} {peer:7s} {precision} {layout}: "
                      f"{row.get('ms', float('nan')):.3f} ms", file=sys.stderr)
            del m, x
            torch.cuda.empty_cache()
    return rows


# ---- strata

def run_strata(args, argv):
    """Runs the strata tool; returns (ok, combined output)."""
    if not os.path.exists(args.strata):
        return False, f"strata tool not found at {args.strata} (--strata)"
    try:
        p = subprocess.run([args.strata] + argv, capture_output=True, text=True, timeout=args.strata_timeout)
    except subprocess.TimeoutExpired:
        return False, f"timed out after {args.strata_timeout} s: strata {' '.join(argv)}"
    out = (p.stdout + p.stderr).strip()
    return p.returncode == 0, out if p.returncode == 0 else f"exit {p.returncode}: {out[-2000:]}"


def find_batch_result(report, batch):
    """The entry of `results` for `batch` in strata bench's JSON, or None."""
    for r in report.get("results", []):
        if r.get("batch") == batch:
            return r
    return None


def strata_bench(path, batch, args):
    row = {"model_file": path, "batch": batch, "peer": "strata", "precision": args.strata_precision}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "bench.json")
        ok, text = run_strata(args, ["bench", path, "--device", "cuda", "--precision", args.strata_precision,
                                     "--batch", str(batch), "--json", out])
        if not ok:
            row["error"] = text
            return row
        try:
            with open(out) as f:
                result = find_batch_result(json.load(f), batch)
        except (OSError, ValueError) as e:
            row["error"] = f"cannot read strata's --json: {e}"
            return row
    if result is None:
        row["error"] = f"strata's --json has no result for batch {batch}"
        return row
    # strata bench's median_ms is the GPU time on CUDA (its "timing" says how it was measured); e2e_median_ms adds
    # the host copies.
    if "median_ms" not in result:
        row["error"] = f"strata's --json result has no median_ms: {result}"
        return row
    row["ms"] = float(result["median_ms"])
    row["strata_timing"] = result.get("timing", "?")
    if "e2e_median_ms" in result:
        row["e2e_ms"] = float(result["e2e_median_ms"])
    return row


# ---- the speed table

def best_of(rows, peer=None):
    timed = [r for r in rows if "ms" in r and r["peer"] != "strata" and (peer is None or r["peer"] == peer)]
    return min(timed, key=lambda r: r["ms"]) if timed else None


def table_line(name, batch, rows):
    cells = [name, str(batch)]
    for peer in ("eager", "graph", "compile"):
        b = best_of(rows, peer)
        cells.append(f"{b['ms']:.3f}" if b else "-")
    best = best_of(rows)
    cells.append(f"{best['ms']:.3f} ({best['peer']} {best['precision']} {best['layout']})" if best else "-")
    strata = next((r for r in rows if r["peer"] == "strata"), {})
    if "ms" in strata:
        cells.append(f"{strata['ms']:.3f}")
        cells.append(f"{strata['ms'] / best['ms']:.2f}" if best else "-")
    else:
        cells += ["error", "-"]
    return "| " + " | ".join(cells) + " |"


def environment():
    import torch
    import torchvision

    return {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "gpu": torch.cuda.get_device_name(), "torch": torch.__version__, "torchvision": torchvision.__version__,
            "cudnn": torch.backends.cudnn.version(), "tf32_conv": torch.backends.cudnn.allow_tf32,
            "tf32_matmul": torch.backends.cuda.matmul.allow_tf32}


def bench(args):
    import torch

    torch.backends.cudnn.benchmark = True
    env = environment()
    print(f"# peers.py {env['date']} on {env['gpu']}, torch {env['torch']}, cudnn {env['cudnn']}")
    all_rows, lines = [], []
    for name in csv(args.models):
        model = make_model(name, args.seed)
        for batch in [int(b) for b in csv(args.batch)]:
            rows = []
            try:
                path = export_onnx(model, name, batch, args)
            except Exception as e:  # noqa: BLE001
                path = None
                rows.append({"model": name, "batch": batch, "peer": "strata", "error": f"ONNX export failed: {e}"})
            rows += time_peers(model, name, batch, args)
            if path:
                rows.append(dict(strata_bench(path, batch, args), model=name))
            for r in rows:
                if r["peer"] == "strata" and "error" in r:
                    print(f"  {name} b{batch} strata: {r['error']}", file=sys.stderr)
            all_rows += rows
            lines.append(table_line(name, batch, rows))
    print("| model | batch | eager ms | graph ms | compile ms | best peer ms (how) | strata ms | strata/best |")
    print("|---|---|---|---|---|---|---|---|")
    print("\n".join(lines))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"environment": env, "args": vars(args), "rows": all_rows}, f, indent=1)


# ---- the accuracy check

def check_model(name, args):
    """One model: PyTorch fp32 (TF32 off) against strata in each precision; returns printed lines."""
    import numpy as np
    import torch

    model = make_model(name, args.seed)
    path = export_onnx(model, name, args.check_batch, args)
    size = INPUT_SIZE.get(name, 224)
    gen = torch.Generator().manual_seed(args.seed + 1)
    x = torch.randn(args.check_batch, 3, size, size, generator=gen)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    with torch.no_grad():
        ref = model.to(device)(x.to(device)).float().cpu().numpy().astype(np.float64)
    # How far the reference's top-1 logit is ahead of its runner-up (smallest over the batch), relative to max|ref|:
    # random-init networks can have near ties, where a top-1 flip in fp16 says little about strata.
    top2 = np.sort(ref, axis=1)[:, -2:]
    margin = float(np.min(top2[:, 1] - top2[:, 0]) / np.max(np.abs(ref)))
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        x_path, y_path = os.path.join(tmp, "x.npy"), os.path.join(tmp, "y.npy")
        np.save(x_path, x.numpy())
        for precision in csv(args.check_precisions):
            ok, text = run_strata(args, ["run", path, "--device", "cuda", "--precision", precision,
                                         "--input", x_path, "--output", y_path])
            if not ok:
                lines.append(f"| {name} | {precision} | error: {text.splitlines()[-1] if text else '?'} | | | | FAIL |")
                continue
            got = np.load(y_path).astype(np.float64).reshape(ref.shape)
            rel = float(np.max(np.abs(got - ref)) / np.max(np.abs(ref)))
            top1 = int(np.sum(np.argmax(got, axis=1) == np.argmax(ref, axis=1)))
            limit = CHECK_LIMITS.get(precision, 2e-2)
            passed = rel <= limit and (precision == "fp32" or top1 == ref.shape[0])
            lines.append(f"| {name} | {precision} | {rel:.2e} | {limit:g} | {top1}/{ref.shape[0]} | {margin:.1e} | "
                         f"{'PASS' if passed else 'FAIL'} |")
    return lines


def check(args):
    import torch

    # The reference is plain fp32: no TF32 anywhere.
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    print(f"# peers.py --check {datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}"
          f" on {torch.cuda.get_device_name() if torch.cuda.is_available() else 'CPU'}, batch {args.check_batch}")
    print("| model | precision | max abs diff / max abs ref | limit | top-1 agree | top-1 margin | result |")
    print("|---|---|---|---|---|---|---|")
    failed = False
    for name in csv(args.models):
        try:
            lines = check_model(name, args)
        except Exception as e:  # noqa: BLE001 - report the model and go on
            lines = [f"| {name} | - | error: {type(e).__name__}: {e} | | | | FAIL |"]
        failed = failed or any(line.endswith("FAIL |") for line in lines)
        print("\n".join(lines), flush=True)
    return 1 if failed else 0


def main():
    args = parse_args()
    if args.check:
        sys.exit(check(args))
    bench(args)


if __name__ == "__main__":
    main()
