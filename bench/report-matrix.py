#!/usr/bin/env python3
"""Prints the Markdown table of bench/run-matrix.sh from its JSON results; fails when rows changed.

With --repeat N the plain copies and Firn ran N times (NAME.json, then NAME-r2.json ...): each
figure is the median of its runs (Firn's plan / task-sum / commit are those of its median run), and
a line under the table gives each shape's ranges."""
import json
import statistics
import sys
from pathlib import Path


def runs(r, name):
    """NAME.json and its repeats NAME-r2.json, NAME-r3.json ... in run order (missing: [])."""
    found = [r / f"{name}.json"] if (r / f"{name}.json").exists() else []
    k = 2
    while (r / f"{name}-r{k}.json").exists():
        found.append(r / f"{name}-r{k}.json")
        k += 1
    return [json.loads(f.read_text()) for f in found]


def median_run(items, key):
    """The run whose KEY is the median (the lower middle one of an even count)."""
    ordered = sorted(items, key=lambda j: j[key])
    return ordered[(len(ordered) - 1) // 2]

work, shapes = Path(sys.argv[1]), sys.argv[2:]
ok = True
rows_out = []
ranges = []
for s in shapes:
    r = work / f"shape-{s}" / "results"
    load = lambda name: json.loads((r / name).read_text())
    try:
        sid, codec, width, partition, parts, writer, keys, commits, threads = (r / "shape.txt").read_text().split()
        gen = load("generate-firn.json")
        plains, firns, fprocs = runs(r, "plain"), runs(r, "firn"), runs(r, "firn-process")
        if not plains or not firns or len(fprocs) != len(firns):
            raise FileNotFoundError("plain.json, firn.json or firn-process.json (or a repeat's) missing")
        fa = load("firn-after.json")["state"]
    except (FileNotFoundError, ValueError) as e:
        print(f"shape {s}: no complete result ({e})")
        ok = False
        continue
    # Spark's actions may have been stopped (or not run) for a shape: its row is then printed with
    # Firn's and the copies' figures, the rows checked against the generator's count only, and the
    # report still fails, so that such a run is never taken for a complete one.
    try:
        spark, sproc = load("spark.json"), load("spark-process.json")
    except (FileNotFoundError, ValueError):
        spark = sproc = None
        print(f"shape {s}: Spark's actions did not finish; rows checked by count only, no Spark ratio")
        ok = False
    problems = []
    if spark is not None:
        sb = spark["before"]
        if (fa["rows"], fa["checksum"]) != (sb["rows"], sb["checksum"]):
            problems.append(f"Firn's result {fa['rows']}/{fa['checksum']} differs from the table before "
                            f"{sb['rows']}/{sb['checksum']}")
        if not spark["rowsPreserved"]:
            problems.append("Spark actions changed the rows")
    if fa["rows"] != gen["liveKeys"]:
        problems.append(f"{fa['rows']} rows after Firn, the generator left {gen['liveKeys']} live keys")
    if not all(f["succeeded"] for f in firns):
        problems.append("a run of Firn's did not succeed")
    for p in problems:
        print(f"shape {s}: {p}")
    ok = ok and not problems
    firn = median_run(firns, "totalSeconds")
    firn_s = statistics.median(f["totalSeconds"] for f in firns)
    firn_p = statistics.median(p["processSeconds"] for p in fprocs)
    if spark is not None and sproc is not None:
        spark_cells = (f"{spark['totalSeconds']:.1f} s | **{spark['totalSeconds'] / firn_s:.1f}×** / "
                       f"{spark['totalSeconds'] / firn_p:.1f}×")
        spark_files = str(spark["after"]["dataFiles"])
    else:
        spark_cells, spark_files = "not run | –", "–"
    plain_us = statistics.median(p["microsPerRow"] for p in plains)
    parts_runs = runs(r, "plain-partitions")
    if parts_runs:
        part_us = statistics.median(p["microsPerRow"] for p in parts_runs)
        part = (f"**{100 * part_us * firn['rowsRead'] / 1e6 / firn_s:.0f} %** / "
                f"{100 * part_us * firn['rowsRead'] / 1e6 / firn_p:.0f} %")
    else:
        part = "–"  # a run before the copy into partition files was measured
    if len(firns) > 1:
        span = lambda xs, f: f"{min(xs):{f}}-{max(xs):{f}}"
        ranges.append(
            f"Shape {s}, {len(firns)} runs: Firn in-process {span([f['totalSeconds'] for f in firns], '.1f')} s, "
            f"process wall {span([p['processSeconds'] for p in fprocs], '.1f')} s; one-file copy "
            f"{span([p['microsPerRow'] for p in plains], '.2f')} µs/row"
            + (f", copy into partition files {span([p['microsPerRow'] for p in parts_runs], '.2f')} µs/row"
               if parts_runs else "") + ".")
    rows_out.append(
        f"| {s} | {codec}, {width}, {partition}({parts}), {writer}, {int(keys) / 1e6:g} M keys / {commits} ckpt "
        f"| {gen['dataFiles']:,} / {gen['deleteFiles']:,} "
        f"| {firn_s:.1f} s / {firn_p:.1f} s | {spark_cells} "
        f"| **{100 * plain_us * firn['rowsRead'] / 1e6 / firn_s:.0f} %** / {100 * plain_us * firn['rowsRead'] / 1e6 / firn_p:.0f} % "
        f"| {part} "
        f"| {firn['planSeconds']:.1f} / {firn['taskSecondsSum']:.1f} / {firn['commitSeconds']:.1f} "
        f"| {fa['dataFiles']} / {spark_files} "
        f"| {'NO' if problems else 'yes' if spark is not None else 'count only'} |")

print("| # | shape | data / delete files before | Firn in-process / process wall | Spark actions "
      "| Spark ÷ Firn (in-process / wall) | Firn vs plain copy (in-process / wall) "
      "| Firn vs copy into partition files (in-process / wall) | Firn plan / task-sum / commit s | data files after (Firn / Spark) | rows identical |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
print("\n".join(rows_out))
if ranges:
    print()
    print("\n".join(ranges))
for s in shapes:
    props = work / f"shape-{s}" / "results" / "table-properties.txt"
    if props.exists() and props.read_text().strip():
        print(f"\nShape {s}'s tables were created with the table properties {props.read_text().strip()}.")
sys.exit(0 if ok else 1)
