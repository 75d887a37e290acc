#!/usr/bin/env python3
"""How long a streaming writer's checkpoint waited for Firn to optimize it, from a soak run's table.

Usage: python3 bench/report-soak-wait.py DIR/optimized/warehouse [namespace/table]

Reads every metadata file the table's catalog ever wrote (Iceberg keeps them on local disk unless
`write.metadata.delete-after-commit.enabled`; snapshot expiry removes snapshots from the current
metadata, not from the older files), orders all snapshots by sequence number, and for each Firn
commit (summary `firn.optimizing-type` minor, major or full) that follows one or more writer
commits (summary `flink.max-committed-checkpoint-id`), measures from the first of those writer
commits to Firn's. Prints the count, median, 10th and 90th percentiles and the longest waits.
"""
import glob
import json
import statistics
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    warehouse = sys.argv[1]
    table = sys.argv[2] if len(sys.argv) > 2 else "events/order_events"
    files = glob.glob(f"{warehouse}/{table}/metadata/*.metadata.json")
    if not files:
        sys.exit(f"no metadata files under {warehouse}/{table}/metadata")
    snapshots = {}
    for path in files:
        with open(path) as f:
            for snapshot in json.load(f).get("snapshots", []):
                snapshots[snapshot["snapshot-id"]] = snapshot
    ordered = sorted(snapshots.values(), key=lambda s: s["sequence-number"])
    start = ordered[0]["timestamp-ms"]
    waits = []
    pending = None
    for snapshot in ordered:
        summary = snapshot.get("summary", {})
        if "flink.max-committed-checkpoint-id" in summary and "firn.process-id" not in summary:
            if pending is None:
                pending = snapshot["timestamp-ms"]
        elif summary.get("firn.optimizing-type") in ("minor", "major", "full") and pending is not None:
            waits.append(((snapshot["timestamp-ms"] - pending) / 1000, (pending - start) / 1000))
            pending = None
    if not waits:
        sys.exit("no writer commit followed by a Firn commit")
    seconds = sorted(w for w, _ in waits)
    decile = max(1, len(seconds) // 10)
    print(
        f"{len(ordered)} snapshots; {len(waits)} waits from a checkpoint's commit to Firn's: median"
        f" {statistics.median(seconds):.2f} s, 10 % within {seconds[decile - 1]:.2f} s,"
        f" 10 % at {seconds[-decile]:.2f} s or more, longest {seconds[-1]:.2f} s"
    )
    for wait, at in sorted(waits, reverse=True)[:3]:
        print(f"  {wait:.2f} s for the checkpoint committed {at:.0f} s after the first snapshot")


if __name__ == "__main__":
    main()
