#!/usr/bin/env bash
# Compaction benchmark matrix (issue 17): Firn vs Iceberg's Spark actions vs a plain Parquet copy on
# tables of several shapes, written by Iceberg's own Flink task writer (GenerateShapedTable).
#
#   bench/run-matrix.sh [--shapes "1 2 ..."] [--threads 2] [--work DIR] [--jfr] [--no-build]
#                       [--table-properties k=v,k=v] [--repeat N]
#
# --repeat N: the two plain copies and Firn's run, in that order, N times per shape, the table
# rolled back to its generated snapshot between Firn's runs (the last run's result is what Spark
# reads); the report takes the median of each figure (ADR 0039). Spark's actions run once.
# --table-properties: write properties the generated tables get, on both sides (Firn's and
# Spark's), as a table owner would set them; the report prints them under the table. Without it
# the tables have Iceberg's defaults but format v2 and the shape's codec.
#
# Shapes (an L8 orthogonal array over six two-level factors, so every level of every factor is
# measured four times and every pair of levels at least once):
#
#   #  codec   width   partition    parts writer  rows      checkpoints
#   1  zstd    narrow  identity       8   cdc     500,000   100
#   2  zstd    narrow  identity      64   upsert  2,000,000 200
#   3  zstd    wide    bucket         8   cdc     2,000,000 200
#   4  zstd    wide    bucket        64   upsert  500,000   100
#   5  snappy  narrow  bucket         8   upsert  500,000   100
#   6  snappy  narrow  bucket        64   cdc     2,000,000 200
#   7  snappy  wide    identity       8   upsert  2,000,000 200
#   8  snappy  wide    identity      64   cdc     500,000   100
#
# For each shape, every measuring JVM runs under flock /tmp/firn-mvn.lock (the machine is shared):
#   1. the table is generated twice from one seed (two independent equal tables: Iceberg metadata
#      holds absolute paths);
#   2. plain Parquet read+write of the first table's data files (same threads, FileIO, codec),
#      twice: each thread's rows into one rolling file ignoring partitions (plain.json), and each
#      partition's rows into files of their own, the layout a rewrite must write
#      (plain-partitions.json; ADR 0039);
#   3. Firn full optimizing of the first table in its own JVM: in-process time and process wall
#      time (JVM start included);
#   (2 and 3 start as `bin/firn optimize` does: C1 only, from a class-data archive left by one run
#   of each on a small table before the first shape; ADR 0038, bench/java-opts.sh)
#   4. Spark scan (count + checksum of hash(*), deletes applied) of Firn's result;
#   5. Iceberg's Spark actions on the second table (rewriteDataFiles with delete-file-threshold=1,
#      then rewritePositionDeletes), with Spark scans before and after, in one local[THREADS] JVM.
# The report fails when Firn's result differs from the second table before compaction (rows or
# checksum), when Spark's changed its rows, or when a table has not the generator's live keys.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
LOCK=/tmp/firn-mvn.lock

SHAPES="1 2 3 4 5 6 7 8" THREADS=$(nproc) WORK=/tmp/firn-matrix JFR=false BUILD=true PROPS="" REPEAT=1
while (($#)); do
  case "$1" in
    --shapes) SHAPES=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --work) WORK=$2; shift 2 ;;
    --jfr) JFR=true; shift ;;
    --no-build) BUILD=false; shift ;;
    --table-properties) PROPS=$2; shift 2 ;;
    --repeat) REPEAT=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
done

source "$ROOT/bench/matrix-shapes.sh"
for s in $SHAPES; do shape "$s" > /dev/null || exit 64; done

[[ "$REPEAT" =~ ^[1-9][0-9]*$ ]] || { echo "--repeat: '$REPEAT' is not a positive count" >&2; exit 64; }

if $BUILD; then
  echo "== building bench and bench/spark-baseline" >&2
  flock "$LOCK" mvn -B -q -ntp package -DskipTests -Dspotless.check.skip=true -pl bench,bench/spark-baseline -am >&2
fi

source "$ROOT/bench/java-opts.sh"

mkdir -p "$WORK"
echo "== class-data archives of Firn's programs (a run on a small table; ADR 0038)" >&2
(flock 9; class_data_training "$WORK/training") 9>"$LOCK"
for s in $SHAPES; do
  read -r CODEC WIDTH PARTITION PARTS WRITER ROWS COMMITS <<<"$(shape "$s")"
  D=$WORK/shape-$s R=$WORK/shape-$s/results
  rm -rf "$D"; mkdir -p "$R"
  echo "$s $CODEC $WIDTH $PARTITION $PARTS $WRITER $ROWS $COMMITS $THREADS" > "$R/shape.txt"
  echo "$PROPS" > "$R/table-properties.txt"
  echo "== shape $s: $CODEC $WIDTH $PARTITION($PARTS) $WRITER, $ROWS keys in $COMMITS checkpoints" >&2
  catalog() { echo --catalog-uri "jdbc:sqlite:$D/$1/catalog.db" --warehouse "$D/$1/warehouse" --table bench.shaped; }
  (
    flock 9
    for side in firn spark; do
      java -Xmx6g "${FIRN_OPTS[@]}" -cp "$FIRN_CP" io.firn.bench.GenerateShapedTable \
        --catalog-file "$D/$side/catalog.db" --warehouse "$D/$side/warehouse" --table bench.shaped \
        --codec "$CODEC" --width "$WIDTH" --partition "$PARTITION" --partitions "$PARTS" \
        --writer "$WRITER" --rows "$ROWS" --commits "$COMMITS" --table-properties "$PROPS" \
        > "$R/generate-$side.json"
    done
    for run in $(seq 1 "$REPEAT"); do
      sfx=""; ((run == 1)) || sfx="-r$run"
      restore=true; ((run < REPEAT)) || restore=false
      one_shot_java plain-parquet-copy "$FIRN_CP" -Xmx4g -cp "$FIRN_CP" io.firn.bench.PlainParquetCopy \
        $(catalog firn) --threads "$THREADS" --layout single --out "$R/plain$sfx.json"
      one_shot_java plain-parquet-copy "$FIRN_CP" -Xmx4g -cp "$FIRN_CP" io.firn.bench.PlainParquetCopy \
        $(catalog firn) --threads "$THREADS" --layout partitions --out "$R/plain-partitions$sfx.json"
      JFR_OPTS=()
      if $JFR; then JFR_OPTS=(-XX:StartFlightRecording=filename=$R/firn$sfx.jfr,settings=profile); fi
      t0=$(now)
      one_shot_java firn-optimize "$FIRN_CP" -Xmx6g "${JFR_OPTS[@]}" -cp "$FIRN_CP" io.firn.bench.FirnOptimize \
        $(catalog firn) --type full --threads "$THREADS" --restore "$restore" --out "$R/firn$sfx.json"
      t1=$(now)
      echo "{\"processSeconds\": $(elapsed "$t0" "$t1")}" > "$R/firn-process$sfx.json"
    done
    java "${SPARK_OPTS[@]}" -cp "$SPARK_CP" io.firn.bench.spark.SparkScan $(catalog firn) --threads "$THREADS" --out "$R/firn-after.json"
    t0=$(now)
    java "${SPARK_OPTS[@]}" -cp "$SPARK_CP" io.firn.bench.spark.SparkBaseline $(catalog spark) --threads "$THREADS" --out "$R/spark.json"
    t1=$(now)
    echo "{\"processSeconds\": $(elapsed "$t0" "$t1")}" > "$R/spark-process.json"
  ) 9>"$LOCK"
  # Keep the results, drop the tables (2 M wide rows are ~1 GB per side).
  rm -rf "$D/firn" "$D/spark"
done

python3 "$ROOT/bench/report-matrix.py" "$WORK" $SHAPES
