#!/usr/bin/env python3
"""Prints the Markdown table of bench/run-matrix.sh from its JSON results; fails when rows changed."""
import json
import sys
from pathlib import Path

work, shapes = Path(sys.argv[1]), sys.argv[2:]
ok = True
rows_out = []
for s in shapes:
    r = work / f"shape-{s}" / "results"
    load = lambda name: json.loads((r / name).read_text())
    try:
        sid, codec, width, partition, parts, writer, keys, commits, threads = (r / "shape.txt").read_text().split()
        gen, plain, firn, fproc = load("generate-firn.json"), load("plain.json"), load("firn.json"), load("firn-process.json")
        fa, spark, sproc = load("firn-after.json")["state"], load("spark.json"), load("spark-process.json")
    except (FileNotFoundError, ValueError) as e:
        print(f"shape {s}: no complete result ({e})")
        ok = False
        continue
    sb, sa = spark["before"], spark["after"]
    problems = []
    if (fa["rows"], fa["checksum"]) != (sb["rows"], sb["checksum"]):
        problems.append(f"Firn's result {fa['rows']}/{fa['checksum']} differs from the table before "
                        f"{sb['rows']}/{sb['checksum']}")
    if not spark["rowsPreserved"]:
        problems.append("Spark actions changed the rows")
    if fa["rows"] != gen["liveKeys"]:
        problems.append(f"{fa['rows']} rows after Firn, the generator left {gen['liveKeys']} live keys")
    if not firn["succeeded"]:
        problems.append("Firn's run did not succeed")
    for p in problems:
        print(f"shape {s}: {p}")
    ok = ok and not problems
    firn_s, firn_p, spark_s, spark_p = firn["totalSeconds"], fproc["processSeconds"], spark["totalSeconds"], sproc["processSeconds"]
    plain_us = plain["microsPerRow"]
    try:
        part_us = load("plain-partitions.json")["microsPerRow"]
        part = (f"**{100 * part_us * firn['rowsRead'] / 1e6 / firn_s:.0f} %** / "
                f"{100 * part_us * firn['rowsRead'] / 1e6 / firn_p:.0f} %")
    except FileNotFoundError:
        part = "–"  # a run before the copy into partition files was measured
    rows_out.append(
        f"| {s} | {codec}, {width}, {partition}({parts}), {writer}, {int(keys) / 1e6:g} M keys / {commits} ckpt "
        f"| {gen['dataFiles']:,} / {gen['deleteFiles']:,} "
        f"| {firn_s:.1f} s / {firn_p:.1f} s | {spark_s:.1f} s "
        f"| **{spark_s / firn_s:.1f}×** / {spark_s / firn_p:.1f}× "
        f"| **{100 * plain_us * firn['rowsRead'] / 1e6 / firn_s:.0f} %** / {100 * plain_us * firn['rowsRead'] / 1e6 / firn_p:.0f} % "
        f"| {part} "
        f"| {firn['planSeconds']:.1f} / {firn['taskSecondsSum']:.1f} / {firn['commitSeconds']:.1f} "
        f"| {fa['dataFiles']} / {sa['dataFiles']} "
        f"| {'yes' if not problems else 'NO'} |")

print("| # | shape | data / delete files before | Firn in-process / process wall | Spark actions "
      "| Spark ÷ Firn (in-process / wall) | Firn vs plain copy (in-process / wall) "
      "| Firn vs copy into partition files (in-process / wall) | Firn plan / task-sum / commit s | data files after (Firn / Spark) | rows identical |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
print("\n".join(rows_out))
for s in shapes:
    props = work / f"shape-{s}" / "results" / "table-properties.txt"
    if props.exists() and props.read_text().strip():
        print(f"\nShape {s}'s tables were created with the table properties {props.read_text().strip()}.")
sys.exit(0 if ok else 1)
