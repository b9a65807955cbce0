#!/usr/bin/env python3
"""Turns bench/depthwise_gpu's --json file into the markdown tables bench/RESULTS.md keeps (issue 4).

    python3 bench/depthwise_table.py depthwise.json [--previous older.json]

One row per case with strata's and cuDNN's times, the share of the copy bandwidth and cuDNN/strata; int8 rows
also give int8 time / strata's fp16 time on the same tensor (acceptance 4). With --previous, a column gives this
run's strata time over the earlier file's for the same case, to show what a change did.
"""
import argparse
import json
import math


def case_key(r):
    return (r["c"], r["hw"], r["k"], r["stride"], r["batch"], r["dtype"])


def shape_name(r):
    return f'{r["c"]}x{r["hw"]}k{r["k"]}s{r["stride"]}'


def load_rows(path):
    with open(path) as f:
        return json.load(f)


def fmt(x, digits=2):
    return "-" if x is None else f"{x:.{digits}f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", help="bench/depthwise_gpu --json output")
    ap.add_argument("--previous", help="an earlier run's --json output, for a 'vs previous' column")
    args = ap.parse_args()
    run = load_rows(args.json)
    rows = [r for r in run["rows"] if r["strata"].get("ran")]
    previous = {}
    if args.previous:
        previous = {case_key(r): r["strata"]["us"] for r in load_rows(args.previous)["rows"] if r["strata"].get("ran")}
    fp16_us = {case_key(r)[:5]: r["strata"]["us"] for r in rows if r["dtype"] == "fp16"}

    print(f'{run["device"]}; copy ceiling {run["copy_gb_per_s"]:.0f} GB/s\n')
    # Since 2026-12-04 the bench rewrites its JSON after every case: a run stopped early says so.
    if run.get("complete") is False:
        print("NOTE: an incomplete run (the bench was stopped before its end): no same-size copies or summaries\n")
    elif "cases_measured" in run and run["cases_measured"] < run["cases_planned"]:
        print(f'NOTE: --time-limit reached: {run["cases_measured"]} of {run["cases_planned"]} cases measured\n')
    head = "| shape | batch | type | strata us | % of copy | PDL us | cuDNN us (layout) | cuDNN/strata | int8/fp16 |"
    rule = "|---|---|---|---|---|---|---|---|---|"
    # Runs since 2026-12-02 time a plain copy of each large case's bytes ("same_size_copy_us"): what any kernel
    # streaming that much data once reaches at that size.
    same_size = any(r.get("same_size_copy_us") for r in rows)
    if same_size:
        head += " same-size copy us (% of copy) |"
        rule += "---|"
    if previous:
        head += " vs previous |"
        rule += "---|"
    print(head + " strata kernel |")
    print(rule + "---|")
    log_ratio = {}
    for r in rows:
        s, p = r["strata"], r.get("peer") or {}
        peer = f'{fmt(p.get("us"))} {p.get("layout", "")}' if p.get("ran") else "-"
        ratio = r.get("peer_over_strata")
        int8 = None
        if r["dtype"] == "int8" and case_key(r)[:5] in fp16_us:
            int8 = s["us"] / fp16_us[case_key(r)[:5]]
        line = (f'| {shape_name(r)} | {r["batch"]} | {r["dtype"]} | {fmt(s["us"])} | {fmt(s["percent_of_copy"], 1)} '
                f'| {fmt(s.get("pdl_us"))} | {peer} | {fmt(ratio)} | {fmt(int8, 3)} |')
        if same_size:
            copy_us = r.get("same_size_copy_us")
            moved = r["input_bytes"] + r["output_bytes"] + r["weight_bytes"]
            copy_pct = 100 * moved / (copy_us * 1e3) / run["copy_gb_per_s"] if copy_us else None
            line += f' {fmt(copy_us)} ({fmt(copy_pct, 1)}) |' if copy_us else " - |"
        if previous:
            before = previous.get(case_key(r))
            line += f' {fmt(s["us"] / before, 3) if before else "-"} |'
            if before and r["dtype"] != "int8":
                log_ratio.setdefault(r["batch"], []).append(math.log(s["us"] / before))
        print(line + f' {s["layout"]} {s["detail"]} |')
    for batch, logs in sorted(log_ratio.items()):
        print(f"\nbatch {batch}: geometric mean of this run / previous (strata, not int8): "
              f"{math.exp(sum(logs) / len(logs)):.3f} over {len(logs)} cases", end="")
    print()


if __name__ == "__main__":
    main()
