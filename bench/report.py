#!/usr/bin/env python3
"""Prints the Markdown report of bench/run-e2e.sh from its JSON results; fails when rows changed."""
import json
import sys
from pathlib import Path

results, rows, commits, buckets, threads, kind = sys.argv[1:7]
r = Path(results)
load = lambda name: json.loads((r / name).read_text())
plain, firn, fb, fa, spark = (load(n) for n in
                              ("plain.json", "firn.json", "firn-before.json", "firn-after.json", "spark.json"))
fb, fa = fb["state"], fa["state"]
sb, sa = spark["before"], spark["after"]

ok = True
if (fb["rows"], fb["checksum"]) != (fa["rows"], fa["checksum"]):
    print(f"FIRN CHANGED ROWS: before {fb['rows']}/{fb['checksum']} after {fa['rows']}/{fa['checksum']}")
    ok = False
if not spark["rowsPreserved"]:
    print("SPARK CHANGED ROWS")
    ok = False
if (fb["rows"], fb["checksum"]) != (sb["rows"], sb["checksum"]):
    print("the two generated tables differ; the comparison is void")
    ok = False


def deletes(s):
    return s["equalityDeleteFiles"] + s["positionDeleteFiles"]


firn_s, spark_s = firn["totalSeconds"], spark["totalSeconds"]
firn_us = firn_s * 1e6 / max(1, firn["rowsRead"])
print(f"### CDC table: {int(rows):,} keys, {commits} commits, {buckets} buckets, {threads} threads, Firn `{kind}`\n")
print("| | Firn | Spark actions | ratio (Spark / Firn) |")
print("|---|---:|---:|---:|")
print(f"| optimize wall time | {firn_s:.1f} s | {spark_s:.1f} s | **{spark_s / firn_s:.1f}x** |")
print(f"| data files before → after | {fb['dataFiles']} → {fa['dataFiles']} | {sb['dataFiles']} → {sa['dataFiles']} | |")
print(f"| delete files before → after | {deletes(fb)} → {deletes(fa)} | {deletes(sb)} → {deletes(sa)} | |")
print(f"| bytes before → after | {fb['bytes']:,} → {fa['bytes']:,} | {sb['bytes']:,} → {sa['bytes']:,} | |")
print(f"| Spark full scan before → after | {fb['scanSeconds']:.1f} s → {fa['scanSeconds']:.1f} s "
      f"| {sb['scanSeconds']:.1f} s → {sa['scanSeconds']:.1f} s | |")
print(f"| rows (count, checksum) preserved | {fb['rows'] == fa['rows'] and fb['checksum'] == fa['checksum']} "
      f"| {spark['rowsPreserved']} | |")
print()
print(f"Rewrite throughput: Firn {firn_us:.2f} µs/row read ({firn['rowsRead']:,} rows); "
      f"plain Parquet read+write of the same table {plain['microsPerRow']:.2f} µs/row "
      f"→ Firn runs at **{100 * plain['microsPerRow'] / firn_us:.0f} %** of the plain copy's throughput.")
sys.exit(0 if ok else 1)
