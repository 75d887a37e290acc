#!/usr/bin/env bash
# What the server's check of handed-in results costs next to the rewrites it checks (ADR 0017),
# on table shapes that differ in partitioning, delete mix and size:
#
#   bench/run-result-check.sh [--work DIR] [--rounds 3] [--no-build]
#
# For each shape: generate a table (testkit generator), plan full optimizing, run every task on
# one thread, check every result on one thread as the server does, delete the outputs (nothing is
# committed). Best of --rounds. Prints one line per shape.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=$ROOT/bench/target/result-check ROUNDS=3 BUILD=1
while (($#)); do
  case "$1" in
    --work) WORK=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --no-build) BUILD=0; shift ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
done
if ((BUILD)); then
  echo "== building" >&2
  mvn -B -q -ntp package -DskipTests -Dspotless.check.skip=true -pl bench -am >&2
fi
CP="$ROOT/bench/target/classes:$ROOT/bench/target/lib/*"
rm -rf "$WORK"; mkdir -p "$WORK"

# label rows commits update delete duplicate buckets
SHAPES=(
  "cdc-8-buckets 1000000 100 0.05 0.01 0.02 8"
  "cdc-unpartitioned 1000000 100 0.05 0.01 0.02 0"
  "upsert-heavy 500000 200 0.30 0.05 0.05 4"
  "inserts-only 1000000 200 0 0 0 8"
)
for shape in "${SHAPES[@]}"; do
  read -r label rows commits update delete duplicate buckets <<<"$shape"
  echo "== $label: generating ($rows rows, $commits commits, $buckets buckets)" >&2
  java -Xmx4g -cp "$CP" io.firn.bench.GenerateTable --rows "$rows" --commits "$commits" \
    --update-ratio "$update" --delete-ratio "$delete" --duplicate-ratio "$duplicate" \
    --buckets "$buckets" --table bench.t --schema-change false \
    --catalog-file "$WORK/$label/catalog.db" --warehouse "$WORK/$label/warehouse" >&2
  java -Xmx6g -cp "$CP" io.firn.bench.ResultCheckCost --catalog-uri "jdbc:sqlite:$WORK/$label/catalog.db" \
    --warehouse "$WORK/$label/warehouse" --table bench.t --label "$label" --rounds "$ROUNDS"
done
