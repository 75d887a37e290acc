#!/usr/bin/env bash
# End-to-end compaction benchmark: Firn vs Iceberg's Spark actions on the same CDC-shaped table.
#
#   bench/run-e2e.sh [--rows 2000000] [--commits 200] [--buckets 8] [--threads 2] [--work DIR]
#
# Generates the table twice from the same seed (equal rows and files; Iceberg metadata holds
# absolute paths, so a copied directory would not be an independent table), then:
#   A: Spark scan (before) -> Firn optimize (its own JVM) -> Spark scan (after)
#   B: Spark rewriteDataFiles(delete-file-threshold=1) + rewritePositionDeletes, scans inside
# and prints a Markdown report with ratios (bench/report.py). Results go to WORK/results/.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

ROWS=2000000 COMMITS=200 BUCKETS=8 THREADS=$(nproc) WORK=$ROOT/bench/target/e2e TYPE=full
while (($#)); do
  case "$1" in
    --rows) ROWS=$2; shift 2 ;;
    --commits) COMMITS=$2; shift 2 ;;
    --buckets) BUCKETS=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --type) TYPE=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
done

echo "== building" >&2
mvn -B -q -ntp package -DskipTests -Dspotless.check.skip=true -pl bench,bench/spark-baseline -am >&2

source "$ROOT/bench/java-opts.sh"

rm -rf "$WORK"; mkdir -p "$WORK/results"
R=$WORK/results
GEN=(--rows "$ROWS" --commits "$COMMITS" --buckets "$BUCKETS" --table bench.cdc)

for side in firn spark; do
  echo "== generating table for $side ($ROWS rows, $COMMITS commits, $BUCKETS buckets)" >&2
  java -Xmx4g -cp "$FIRN_CP" io.firn.bench.GenerateTable "${GEN[@]}" \
    --catalog-file "$WORK/$side/catalog.db" --warehouse "$WORK/$side/warehouse"
done

catalog() { echo --catalog-uri "jdbc:sqlite:$WORK/$1/catalog.db" --warehouse "$WORK/$1/warehouse" --table bench.cdc; }

echo "== plain Parquet copy (the cost floor of any rewrite)" >&2
class_data_training "$WORK/training"
one_shot_java plain-parquet-copy "$FIRN_CP" -Xmx4g -cp "$FIRN_CP" io.firn.bench.PlainParquetCopy \
  $(catalog firn) --threads "$THREADS" --out "$R/plain.json"

echo "== Spark scan of Firn's table, before" >&2
java "${SPARK_OPTS[@]}" -cp "$SPARK_CP" io.firn.bench.spark.SparkScan $(catalog firn) --threads "$THREADS" --out "$R/firn-before.json"

echo "== Firn optimize ($TYPE)" >&2
one_shot_java firn-optimize "$FIRN_CP" -Xmx6g -cp "$FIRN_CP" io.firn.bench.FirnOptimize \
  $(catalog firn) --type "$TYPE" --threads "$THREADS" --out "$R/firn.json"

echo "== Spark scan of Firn's table, after" >&2
java "${SPARK_OPTS[@]}" -cp "$SPARK_CP" io.firn.bench.spark.SparkScan $(catalog firn) --threads "$THREADS" --out "$R/firn-after.json"

echo "== Spark actions (baseline)" >&2
java "${SPARK_OPTS[@]}" -cp "$SPARK_CP" io.firn.bench.spark.SparkBaseline $(catalog spark) --threads "$THREADS" --out "$R/spark.json"

python3 "$ROOT/bench/report.py" "$R" "$ROWS" "$COMMITS" "$BUCKETS" "$THREADS" "$TYPE"
