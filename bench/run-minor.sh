#!/usr/bin/env bash
# Minor optimizing's convert-only cost (issue 17): equality deletes that hit segments become
# position deletes, no row is rewritten. Compared with reading the key columns it must read
# (bench's PlainKeyRead: the keys of every data file and of every equality-delete file, same
# threads and FileIO, nothing else).
#
#   bench/run-minor.sh [--codec zstd] [--width narrow] [--partition identity] [--partitions 8]
#                      [--writer cdc] [--rows 500000] [--commits 100] [--delete-checkpoints 20]
#                      [--deletes-per-checkpoint 1000] [--target-size 512KiB] [--threads 2]
#                      [--warm N] [--work /tmp/firn-minor] [--no-build]
#
# Steps, each JVM under flock /tmp/firn-mvn.lock (the machine is shared):
#   1. GenerateShapedTable writes the table with Iceberg's own Flink task writer;
#   2. Firn's full optimizing compacts it at --target-size, one task per partition (a task's bin
#      holds a whole partition, so its files split evenly), so every partition is segments (files
#      above min-target-size-ratio × target) and nothing else;
#   3. GenerateShapedTable adds --delete-checkpoints checkpoints of deletes only (equality-delete
#      files, no data file), replaying the first run's keys;
#   4. Spark SQL reads the table (count and checksum of hash(*), deletes applied);
#   (with --warm N, N >= 2: the key read and minor each run N times in one JVM of their own with
#   the server's JIT (no C1-only, no archive), minor's table rolled back between rounds and after
#   the last; the report adds the medians of rounds 2..N: minor as a long-running server runs it)
#   5. PlainKeyRead reads the keys (the floor);
#   6. Firn's minor optimizing runs in its own JVM;
#   7. Spark SQL reads the table again.
# The report fails when minor changed the rows, rewrote a data file, or left an equality delete.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
LOCK=/tmp/firn-mvn.lock

CODEC=zstd WIDTH=narrow PARTITION=identity PARTS=8 WRITER=cdc ROWS=500000 COMMITS=100
DELETE_CKPTS=20 DELETES_PER=1000 TARGET=512KiB THREADS=$(nproc) WORK=/tmp/firn-minor BUILD=true WARM=1
while (($#)); do
  case "$1" in
    --codec) CODEC=$2; shift 2 ;;
    --width) WIDTH=$2; shift 2 ;;
    --partition) PARTITION=$2; shift 2 ;;
    --partitions) PARTS=$2; shift 2 ;;
    --writer) WRITER=$2; shift 2 ;;
    --rows) ROWS=$2; shift 2 ;;
    --commits) COMMITS=$2; shift 2 ;;
    --delete-checkpoints) DELETE_CKPTS=$2; shift 2 ;;
    --deletes-per-checkpoint) DELETES_PER=$2; shift 2 ;;
    --target-size) TARGET=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --warm) WARM=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --no-build) BUILD=false; shift ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
done

if $BUILD; then
  echo "== building bench and bench/spark-baseline" >&2
  flock "$LOCK" mvn -B -q -ntp package -DskipTests -Dspotless.check.skip=true -pl bench,bench/spark-baseline -am >&2
fi

source "$ROOT/bench/java-opts.sh"

R=$WORK/results
rm -rf "$WORK"; mkdir -p "$R"
CATALOG=(--catalog-uri "jdbc:sqlite:$WORK/table/catalog.db" --warehouse "$WORK/table/warehouse" --table bench.shaped)
SHAPE=(--catalog-file "$WORK/table/catalog.db" --warehouse "$WORK/table/warehouse" --table bench.shaped
  --codec "$CODEC" --width "$WIDTH" --partition "$PARTITION" --partitions "$PARTS" --writer "$WRITER"
  --rows "$ROWS" --commits "$COMMITS")
echo "$CODEC $WIDTH $PARTITION $PARTS $WRITER $ROWS $COMMITS $DELETE_CKPTS $DELETES_PER $TARGET $THREADS" > "$R/shape.txt"
echo "== $CODEC $WIDTH $PARTITION($PARTS) $WRITER, $ROWS keys in $COMMITS checkpoints, compacted at $TARGET, then $DELETE_CKPTS checkpoints of $DELETES_PER deletes" >&2
(
  flock 9
  java -Xmx6g "${FIRN_OPTS[@]}" -cp "$FIRN_CP" io.firn.bench.GenerateShapedTable "${SHAPE[@]}" \
    --delete-checkpoints 0 > "$R/generate.json"
  class_data_training "$WORK/training"
  one_shot_java firn-optimize "$FIRN_CP" -Xmx6g -cp "$FIRN_CP" io.firn.bench.FirnOptimize "${CATALOG[@]}" --type full \
    --thresholds "target-size=$TARGET" --threads "$THREADS" --out "$R/compact.json" 2>/dev/null
  java -Xmx6g "${FIRN_OPTS[@]}" -cp "$FIRN_CP" io.firn.bench.GenerateShapedTable "${SHAPE[@]}" \
    --write-from "$COMMITS" --delete-checkpoints "$DELETE_CKPTS" --deletes-per-checkpoint "$DELETES_PER" \
    > "$R/generate-deletes.json"
  java "${SPARK_OPTS[@]}" -cp "$SPARK_CP" io.firn.bench.spark.SparkScan "${CATALOG[@]}" --threads "$THREADS" --out "$R/before.json"
  if ((WARM > 1)); then
    java -Xmx4g -cp "$FIRN_CP" io.firn.bench.PlainKeyRead "${CATALOG[@]}" --threads "$THREADS" \
      --repeat "$WARM" --out "$R/keys-warm.json"
    java -Xmx6g -cp "$FIRN_CP" io.firn.bench.FirnOptimize "${CATALOG[@]}" --type minor \
      --thresholds "target-size=$TARGET" --threads "$THREADS" --repeat "$WARM" --restore true \
      --out "$R/minor-warm.json"
  fi
  one_shot_java plain-key-read "$FIRN_CP" -Xmx4g -cp "$FIRN_CP" io.firn.bench.PlainKeyRead "${CATALOG[@]}" \
    --threads "$THREADS" --out "$R/keys.json"
  t0=$(now)
  one_shot_java firn-optimize "$FIRN_CP" -Xmx6g -cp "$FIRN_CP" io.firn.bench.FirnOptimize "${CATALOG[@]}" --type minor \
    --thresholds "target-size=$TARGET" --threads "$THREADS" --out "$R/minor.json"
  t1=$(now)
  echo "{\"processSeconds\": $(elapsed "$t0" "$t1")}" > "$R/minor-process.json"
  java "${SPARK_OPTS[@]}" -cp "$SPARK_CP" io.firn.bench.spark.SparkScan "${CATALOG[@]}" --threads "$THREADS" --out "$R/after.json"
) 9>"$LOCK"
rm -rf "$WORK/table"

python3 - "$R" <<'EOF'
import json, sys
from pathlib import Path
r = Path(sys.argv[1])
load = lambda n: json.loads((r / n).read_text())
shape = (r / "shape.txt").read_text().split()
before, after, keys, minor, proc = load("before.json")["state"], load("after.json")["state"], load("keys.json"), load("minor.json"), load("minor-process.json")
problems = []
if (before["rows"], before["checksum"]) != (after["rows"], after["checksum"]):
    problems.append(f"rows changed: {before['rows']}/{before['checksum']} -> {after['rows']}/{after['checksum']}")
if minor["rewriteFiles"] != 0:
    problems.append(f"minor rewrote {minor['rewriteFiles']} data files; this benchmark measures conversion alone")
if after["equalityDeleteFiles"] != 0:
    problems.append(f"{after['equalityDeleteFiles']} equality-delete files left")
if not minor["succeeded"]:
    problems.append("minor did not succeed")
for p in problems:
    print("minor benchmark:", p)
print("| shape | data / eq-delete files before | segments converted | positions written | key read | Firn minor in-process / process wall | ÷ key read (in-process / wall) | plan / task-sum / commit s | rows identical |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
print(f"| {shape[0]}, {shape[1]}, {shape[2]}({shape[3]}), {shape[4]}, {int(shape[5]) / 1e6:g} M keys, target {shape[9]}, "
      f"{shape[7]} × {int(shape[8]):,} deletes "
      f"| {before['dataFiles']:,} / {before['equalityDeleteFiles']:,} | {minor['convertFiles']:,} | {minor['positionsWritten']:,} "
      f"| {keys['seconds']:.2f} s | {minor['totalSeconds']:.2f} s / {proc['processSeconds']:.2f} s "
      f"| **{minor['totalSeconds'] / keys['seconds']:.2f}×** / {proc['processSeconds'] / keys['seconds']:.2f}× "
      f"| {minor['planSeconds']:.2f} / {minor['taskSecondsSum']:.2f} / {minor['commitSeconds']:.2f} "
      f"| {'yes' if not problems else 'NO'} |")
warm = r / "minor-warm.json"
if warm.exists():
    def med(xs):
        xs = sorted(xs)
        return xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2
    keys_rounds, minor_rounds = load("keys-warm.json")["rounds"], load("minor-warm.json")["rounds"]
    for i, m in enumerate(minor_rounds, 1):
        if not m["succeeded"] or m["rewriteFiles"] != 0 or m["positionsWritten"] != minor["positionsWritten"]:
            problems.append(f"warm round {i} differs from the cold run: succeeded {m['succeeded']}, "
                            f"{m['rewriteFiles']} files rewritten, {m['positionsWritten']:,} positions written")
            print("minor benchmark:", problems[-1])
    later = minor_rounds[1:]
    k, t = med(keys_rounds[1:]), med([m["totalSeconds"] for m in later])
    print()
    print(f"Warm (one JVM each with the server's JIT, medians of rounds 2..{len(minor_rounds)}):")
    print()
    print("| key read | Firn minor | ÷ key read | plan / task-sum / commit s | every round: key read; Firn minor s |")
    print("|---:|---:|---:|---:|---|")
    print(f"| {k:.2f} s | {t:.2f} s | **{t / k:.2f}×** "
          f"| {med([m['planSeconds'] for m in later]):.2f} / {med([m['taskSecondsSum'] for m in later]):.2f}"
          f" / {med([m['commitSeconds'] for m in later]):.2f} "
          f"| {', '.join(f'{x:.2f}' for x in keys_rounds)}; "
          f"{', '.join(format(m['totalSeconds'], '.2f') for m in minor_rounds)} |")
sys.exit(1 if problems else 0)
EOF
