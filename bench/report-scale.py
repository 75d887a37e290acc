#!/usr/bin/env python3
"""Markdown report of bench/run-scale.sh results: watcher rounds and the large-table plan."""
import glob
import json
import os
import re
import sys

MIB = 1024 * 1024
ROUND_TARGET_S = 10.0
PLAN_TARGET_S = 30.0
PLAN_TARGET_HEAP = 2 * 1024 * MIB


def size(text):
    value, unit = float(text[:-1]), text[-1]
    return value * {"K": 1 / 1024, "M": 1, "G": 1024}[unit] * MIB


def main(results):
    watch = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(results, "watch-*.json")))]
    watch.sort(key=lambda w: (w["catalog"] != "sqlite", w["io"] != "hadoop", w["threads"]))
    if watch:
        print(f"### Snapshot-watch rounds over {watch[0]['tables']:,} tables (target <= {ROUND_TARGET_S:.0f} s per round)\n")
        print("| catalog | table FileIO | threads | first round (all new) | unchanged | after 1 % changed | met |")
        print("|---|---|---:|---:|---:|---:|---|")
        for w in watch:
            cells = []
            for r in w["rounds"]:
                cells.append(f"{r['seconds']:.1f} s (CPU {r['cpuSeconds']:.1f} s, {r['evaluated']:,} evaluated)")
            met = all(r["seconds"] <= ROUND_TARGET_S for r in w["rounds"])
            missed = [r["name"].split(" ")[0] for r in w["rounds"] if r["seconds"] > ROUND_TARGET_S]
            print(f"| {w['catalog']} | {w['io']} | {w['threads']} | " + " | ".join(cells)
                  + f" | {'yes' if met else 'no (' + ', '.join(missed) + ')'} |")
        for w in watch:
            b = w.get("breakdown")
            if b:
                print(f"\nOne table's watch on one thread ({w['catalog']}, {w['io']} FileIO, mean of {b['sample']:,} tables, warmed up):"
                      f" listing all {b['tablesListed']:,} tables {b['listSeconds']:.2f} s;"
                      f" `loadTable` {b['loadTableMillis']:.2f} ms (of which reading + parsing the metadata JSON"
                      f" {b['metadataJsonReadMillis']:.2f} ms); `TableEvaluator.evaluate` {b['evaluateMillis']:.2f} ms;"
                      f" its `partitions` metadata-table read alone: {b['partitionsTableWorkerPoolMillis']:.2f} ms on Iceberg's worker pool"
                      f" (as now) vs {b['partitionsTableCallerThreadMillis']:.2f} ms planned on the calling thread.")
        print()
    plan_file = os.path.join(results, "plan.json")
    if os.path.exists(plan_file):
        p = json.load(open(plan_file))
        gc_peak = gc_after = 0.0
        gc_log = os.path.join(results, "plan-gc.log")
        if os.path.exists(gc_log):
            for line in open(gc_log):
                m = re.search(r"(\d+(?:\.\d+)?[KMG])->(\d+(?:\.\d+)?[KMG])\(", line)
                if m:
                    gc_peak = max(gc_peak, size(m.group(1)))
                    gc_after = max(gc_after, size(m.group(2)))
        heap = max(p["peakHeapBytes"], gc_peak)
        print(f"### Planning one table with {p['dataFiles']:,} data files (target <= {PLAN_TARGET_S:.0f} s and <= 2 GiB heap)\n")
        print("| | value |")
        print("|---|---:|")
        print(f"| partitions / delete files attached to data files / dangling | {p['partitions']:,} / {p['deleteFilesAttached']:,} / {p.get('deleteFilesDangling', 0):,} |")
        print(f"| plan | {p['type']}: {p['duePartitions']:,} due partitions, {p['tasks']:,} tasks, {p['rewriteFiles']:,} files to rewrite |")
        mode = p.get("mode", "whole")
        how = "whole table at once (`TableScanner.scan`)" if mode == "whole" else f"{p['groups']:,} group(s) of partitions (`TableScanner.scanInGroups`)"
        print(f"| read | {how} |")
        print(f"| reading | {p['scanSeconds']:.1f} s (CPU {p['scanCpuSeconds']:.1f} s) |")
        print(f"| `BinPackPlanner.plan` | {p['planSeconds']:.1f} s (CPU {p['planCpuSeconds']:.1f} s) |")
        print(f"| total | **{p['totalSeconds']:.1f} s** |")
        print(f"| heap limit (-Xmx) | {p['maxHeapBytes'] / MIB:,.0f} MiB |")
        print(f"| peak heap, sum of heap pools' peaks (garbage included) | {p['peakHeapBytes'] / MIB:,.0f} MiB |")
        print(f"| peak heap before a GC / largest heap after a GC (GC log) | {gc_peak / MIB:,.0f} MiB / {gc_after / MIB:,.0f} MiB |")
        kept = "scan result + plan" if mode == "whole" else "plan"
        print(f"| retained after the plan ({kept} reachable, after GC) | **{p['retainedHeapBytes'] / MIB:,.0f} MiB** |")
        met = p["totalSeconds"] <= PLAN_TARGET_S and heap <= PLAN_TARGET_HEAP
        print(f"| targets met | {'yes' if met else 'no'} ({p['totalSeconds'] / PLAN_TARGET_S:.0%} of the time target,"
              f" peak {heap / PLAN_TARGET_HEAP:.0%} of the heap target) |")
        histogram = plan_file + ".histogram.txt"
        if os.path.exists(histogram):
            print("\nLargest classes of the retained heap (`GC.class_histogram`):\n")
            print("```")
            print(open(histogram).read().rstrip())
            print("```")


if __name__ == "__main__":
    main(sys.argv[1])
