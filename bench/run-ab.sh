#!/usr/bin/env bash
# Two builds of Firn's full optimizing on one table of the compaction matrix, alternating in one
# run: how a change to the optimizer moves its time, with the machine's drift shared by both sides.
#
#   cp -r bench/target/firn-bench-*.jar bench/target/lib /tmp/firn-before    # before the change
#   ... change, then: mvn -o -q install -DskipTests -pl core,optimizer-worker/executor
#                     mvn -o -q package -DskipTests -pl bench
#   bench/run-ab.sh --before /tmp/firn-before [--shape 2] [--rounds 8] [--threads 2] [--work DIR]
#
# The shape's table is generated once (GenerateShapedTable, as bench/run-matrix.sh does; kept in
# WORK and reused by a later run with the same WORK and shape). Then, each round: the plain
# one-file copy (the matrix's floor), then the earlier build's FirnOptimize --type full, then this
# build's, each restoring the table to its generated snapshot afterwards. Every JVM starts as
# `bin/firn optimize` does (C1 only, a class-data archive per build, made by a first run of each on
# a small table) and runs under flock /tmp/firn-mvn.lock. The summary prints each round and the
# medians (the share of the one-file copy is the copy's seconds over Firn's: both read the same
# stored rows, so it equals the matrix's ratio of rows per second); a side that did not commit,
# or did not write the generator's live keys as rows (a full rewrite writes every live row), fails
# the run.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
LOCK=/tmp/firn-mvn.lock

SHAPE=2 ROUNDS=8 THREADS=$(nproc) WORK=/tmp/firn-ab BEFORE=""
while (($#)); do
  case "$1" in
    --before) BEFORE=$2; shift 2 ;;
    --shape) SHAPE=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
done
[[ -n "$BEFORE" ]] || { echo "--before DIR (an earlier build's bench jar and lib/) is required" >&2; exit 64; }
BEFORE_JAR=$(ls "$BEFORE"/firn-bench-*.jar 2>/dev/null | head -1)
[[ -n "$BEFORE_JAR" && -d "$BEFORE/lib" ]] || { echo "$BEFORE holds no firn-bench-*.jar and lib/" >&2; exit 64; }
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || { echo "--rounds: '$ROUNDS' is not a positive count" >&2; exit 64; }
source "$ROOT/bench/matrix-shapes.sh"
read -r CODEC WIDTH PARTITION PARTS WRITER ROWS COMMITS <<<"$(shape "$SHAPE" || exit 64)"
[[ -n "$CODEC" ]] || exit 64

source "$ROOT/bench/java-opts.sh"
AFTER_CP="$FIRN_CP" BEFORE_CP="$BEFORE_JAR:$BEFORE/lib/*"
T=$WORK/shape-$SHAPE R=$WORK/shape-$SHAPE/results
catalog() { echo --catalog-uri "jdbc:sqlite:$1/catalog.db" --warehouse "$1/warehouse" --table bench.shaped; }
exec 9>"$LOCK"
flock 9
if [[ ! -f "$T/table/catalog.db" ]]; then
  rm -rf "$T"; mkdir -p "$T/table" "$R"
  echo "== class-data archives of both builds (a run on a small table; ADR 0038)" >&2
  for cp in "$AFTER_CP" "$BEFORE_CP"; do
    rm -rf "$T/small"; mkdir -p "$T/small"
    java -Xmx2g "${FIRN_OPTS[@]}" -cp "$AFTER_CP" io.firn.bench.GenerateShapedTable \
      --catalog-file "$T/small/catalog.db" --warehouse "$T/small/warehouse" --table bench.shaped \
      --rows 20000 --commits 10 --partitions 2 > /dev/null
    one_shot_java plain-parquet-copy "$cp" -Xmx2g -cp "$cp" io.firn.bench.PlainParquetCopy \
      $(catalog "$T/small") --threads "$THREADS" --out "$T/small/plain.json" 2> /dev/null
    one_shot_java firn-optimize "$cp" -Xmx2g -cp "$cp" io.firn.bench.FirnOptimize \
      $(catalog "$T/small") --type full --threads "$THREADS" --out "$T/small/firn.json" 2> /dev/null
  done
  rm -rf "$T/small"
  echo "== shape $SHAPE: $CODEC $WIDTH $PARTITION($PARTS) $WRITER, $ROWS keys in $COMMITS checkpoints" >&2
  java -Xmx6g "${FIRN_OPTS[@]}" -cp "$AFTER_CP" io.firn.bench.GenerateShapedTable \
    --catalog-file "$T/table/catalog.db" --warehouse "$T/table/warehouse" --table bench.shaped \
    --codec "$CODEC" --width "$WIDTH" --partition "$PARTITION" --partitions "$PARTS" \
    --writer "$WRITER" --rows "$ROWS" --commits "$COMMITS" > "$R/generate.json"
fi
rm -f "$R"/plain-*.json "$R"/firn-*.json
for round in $(seq 1 "$ROUNDS"); do
  one_shot_java plain-parquet-copy "$AFTER_CP" -Xmx4g -cp "$AFTER_CP" io.firn.bench.PlainParquetCopy \
    $(catalog "$T/table") --threads "$THREADS" --layout single --out "$R/plain-$round.json"
  for side in before after; do
    cp=$AFTER_CP; [[ $side == before ]] && cp=$BEFORE_CP
    one_shot_java firn-optimize "$cp" -Xmx6g -cp "$cp" io.firn.bench.FirnOptimize \
      $(catalog "$T/table") --type full --threads "$THREADS" --restore true \
      --out "$R/firn-$side-$round.json" 2> "$R/firn-$side-$round.log"
  done
  echo "== round $round of $ROUNDS done" >&2
done
flock -u 9

python3 - "$R" "$ROUNDS" <<'PY'
import json, statistics, sys
results, rounds = sys.argv[1], int(sys.argv[2])
live = json.load(open(f"{results}/generate.json"))["liveKeys"]
def load(name):
    return json.load(open(f"{results}/{name}.json"))
print("| round | one-file copy s | before: in-process / plan / commit s, task thread-s | after: in-process / plan / commit s, task thread-s | before ÷ after |")
print("|---:|---:|---:|---:|---:|")
rows = {"before": [], "after": []}
bad = []
for r in range(1, rounds + 1):
    plain = load(f"plain-{r}")["seconds"]
    cells = []
    for side in ("before", "after"):
        f = load(f"firn-{side}-{r}")
        if f["rowsWritten"] != live or not f["succeeded"]:
            bad.append(f"round {r} {side}: {f['rowsWritten']} rows written (succeeded: {f['succeeded']}),"
                       f" the generator's live keys are {live}")
        rows[side].append((f["totalSeconds"], plain))
        cells.append(f"{f['totalSeconds']:.2f} / {f['planSeconds']:.2f} / {f['commitSeconds']:.2f}, {f['taskSecondsSum']:.1f}")
    print(f"| {r} | {plain:.2f} | {cells[0]} | {cells[1]} | {rows['before'][-1][0] / rows['after'][-1][0]:.3f} |")
for side in ("before", "after"):
    seconds = statistics.median(t for t, _ in rows[side])
    share = statistics.median(p / t for t, p in rows[side])
    print(f"{side}: median {seconds:.2f} s in-process, {100 * share:.0f} % of the one-file copy (median of rounds)")
faster = sum(b[0] > a[0] for b, a in zip(rows["before"], rows["after"]))
print(f"after faster than before in {faster} of {rounds} rounds")
if bad:
    sys.exit("rows differ: " + "; ".join(bad))
PY
