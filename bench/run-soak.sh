#!/usr/bin/env bash
# Steady state under a live CDC stream (issue 17, docs/adr/0036): two identical ingest jobs (the
# generator's change stream with updates and deletes, same seed, same rate) write two warehouses AT
# THE SAME TIME; the optimizer server (policy bench/soak/policy.yaml, its in-process worker) keeps
# one of them optimized, the other is never optimized. A sampler JVM (SoakSampler, Iceberg's own
# catalog and generic reader, no Firn code) measures both every interval, plus a fully compacted
# copy of the optimized table's rows; SoakCharts renders the PNG charts and the summary.
#
#   bench/run-soak.sh [--minutes 30] [--interval 60] [--rate 2000] [--checkpoint 10s] [--seed 1]
#                     [--drain-minutes 2] [--table order_events] [--dir DIR] [--charts docs/bench]
#                     [--prefix soak] [--port 18580] [--policy bench/soak/policy.yaml]
#                     [--cold-rows 0] [--no-build]
#
# --cold-rows N: once the jobs have created the table, the same N rows (keys no change of the stream
# touches) are appended to it in both warehouses (SoakColdRows): a table with a body older than the
# stream, as production CDC tables have, instead of only what the stream wrote so far.
#
# Only the Maven build holds /tmp/firn-mvn.lock; the soak's JVMs run under `nice` without it, so
# builds of others go on (and the soak sees their noise; both variants see the same noise).
# Results: DIR/samples.csv, DIR/summary.md, CHARTS/PREFIX-*.png (+ a copy of the CSV there).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

MINUTES=30
INTERVAL=60
RATE=2000
CHECKPOINT=10s
SEED=1
DRAIN=2
TABLE=order_events
DIR="bench/target/soak-$(date -u +%Y%m%dT%H%M%SZ)"
CHARTS=docs/bench
PREFIX=soak
PORT=18580
POLICY=bench/soak/policy.yaml
COLD_ROWS=0
BUILD=true
while (($#)); do
  case $1 in
    --minutes) MINUTES=$2; shift 2 ;;
    --interval) INTERVAL=$2; shift 2 ;;
    --rate) RATE=$2; shift 2 ;;
    --checkpoint) CHECKPOINT=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    --drain-minutes) DRAIN=$2; shift 2 ;;
    --table) TABLE=$2; shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    --charts) CHARTS=$2; shift 2 ;;
    --prefix) PREFIX=$2; shift 2 ;;
    --port) PORT=$2; shift 2 ;;
    --policy) POLICY=$2; shift 2 ;;
    --cold-rows) COLD_ROWS=$2; shift 2 ;;
    --no-build) BUILD=false; shift ;;
    *) echo "unknown option $1 (see the comment at the top of $0)" >&2; exit 1 ;;
  esac
done

if [[ "$BUILD" == true ]]; then
  # The jars bin/firn runs (ingest, server) and the bench jar, in one reactor build under the lock.
  echo "== building (holds /tmp/firn-mvn.lock for the build only)" >&2
  flock /tmp/firn-mvn.lock mvn -B -ntp -q package -pl bench -am -DskipTests -DskipITs \
    -Dspotless.check.skip=true
fi
for jar in ingest/target/firn-ingest-0.1.0-SNAPSHOT.jar \
           optimizer-server/target/firn-optimizer-server-0.1.0-SNAPSHOT.jar \
           bench/target/firn-bench-0.1.0-SNAPSHOT.jar; do
  [[ -f "$jar" ]] || { echo "missing $jar: run without --no-build" >&2; exit 1; }
done

[[ -f "$POLICY" ]] || { echo "no policy file $POLICY" >&2; exit 1; }
[[ "$COLD_ROWS" =~ ^[0-9]+$ ]] || { echo "--cold-rows: '$COLD_ROWS' is not a row count" >&2; exit 1; }
POLICY="$(cd "$(dirname "$POLICY")" && pwd)/$(basename "$POLICY")"
rm -rf "$DIR"; mkdir -p "$DIR"; DIR="$(cd "$DIR" && pwd)"
EVENTS=$(( RATE * MINUTES * 60 ))
echo "== soak: $MINUTES min, $EVENTS events at $RATE/s per job, checkpoint $CHECKPOINT, seed $SEED," \
  "samples every ${INTERVAL}s of events.$TABLE; work dir $DIR" >&2

pids=()
stop_all() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap 'stop_all; exit 130' INT TERM
trap stop_all EXIT

# Two identical ingest jobs: same generator, seed, rate and checkpoint interval; one writer each.
for variant in optimized baseline; do
  mkdir -p "$DIR/$variant"
  cat > "$DIR/$variant/ingest.yaml" <<INGEST
source: {type: generator, profile: stream, events: $EVENTS, rate: $RATE, seed: $SEED}
format: debezium
catalog: {name: firn, type: jdbc, uri: "jdbc:sqlite:$DIR/$variant/catalog.db?busy_timeout=30000", warehouse: "$DIR/$variant/warehouse"}
namespace: events
checkpoint-interval: $CHECKPOINT
checkpoint-directory: "$DIR/$variant/checkpoints"
write-parallelism: 1
metrics-port: 0
INGEST
done
ingest_pids=()
for variant in optimized baseline; do
  (cd "$DIR/$variant" && FIRN_JAVA_OPTS="-Xmx1g" exec nice -n 10 "$ROOT/bin/firn" ingest \
      --config "$DIR/$variant/ingest.yaml") > "$DIR/$variant/ingest.log" 2>&1 &
  pids+=($!); ingest_pids+=($!)
done
for variant in optimized baseline; do
  for _ in $(seq 1 120); do [[ -f "$DIR/$variant/catalog.db" ]] && break; sleep 1; done
  [[ -f "$DIR/$variant/catalog.db" ]] \
    || { echo "no catalog after 120 s: see $DIR/$variant/ingest.log" >&2; tail -20 "$DIR/$variant/ingest.log" >&2; exit 1; }
done

BENCH_CP="bench/target/firn-bench-0.1.0-SNAPSHOT.jar:bench/target/lib/*"
SAMPLER_HEAP=1g
if (( COLD_ROWS > 0 )); then
  # The sampler keeps a copy of every live row for the compacted reference.
  SAMPLER_HEAP=4g
  echo "== appending $COLD_ROWS cold rows to events.$TABLE in both warehouses" >&2
  nice -n 5 java -Xmx2g -cp "$BENCH_CP" io.firn.bench.SoakColdRows --rows "$COLD_ROWS" --seed "$SEED" \
    --optimized-uri "jdbc:sqlite:$DIR/optimized/catalog.db?busy_timeout=30000" \
    --optimized-warehouse "$DIR/optimized/warehouse" \
    --baseline-uri "jdbc:sqlite:$DIR/baseline/catalog.db?busy_timeout=30000" \
    --baseline-warehouse "$DIR/baseline/warehouse" --table "events.$TABLE" 2>&1 | tee "$DIR/cold-rows.log" >&2
fi

# The server on the optimized warehouse only; the baseline has no server at all. It looks for new
# snapshots every second: the writer commits every checkpoint, and until the minor that follows the
# table scans with that checkpoint's equality deletes (at a 5 s watch, minor committed 6.5 s after
# each 10 s checkpoint, so the table was unoptimized two thirds of the time; docs/adr/0036).
# Small data manifests are merged every 30 s from 2 on (each minor commit adds one; ADR 0010).
(cd "$DIR/optimized" && \
  FIRN_CATALOG_NAME=firn FIRN_CATALOG_URI="jdbc:sqlite:$DIR/optimized/catalog.db?busy_timeout=30000" \
  FIRN_WAREHOUSE="$DIR/optimized/warehouse" FIRN_STATE_URL="jdbc:h2:file:$DIR/optimized/state/firn" \
  FIRN_WATCH_INTERVAL=1s FIRN_POLICIES="$POLICY" FIRN_EXPIRE_MAX_AGE=5m \
  FIRN_REWRITE_MANIFESTS_INTERVAL=30s FIRN_REWRITE_MANIFESTS_MIN_COUNT=2 \
  FIRN_LOCAL_WORKER_THREADS=1 FIRN_PORT="$PORT" FIRN_ADMIN_PORT=$(( PORT + 1 )) \
  FIRN_JAVA_OPTS="-Xmx1g" exec nice -n 10 "$ROOT/bin/firn" server) > "$DIR/server.log" 2>&1 &
server_pid=$!; pids+=($server_pid)

STOP="$DIR/stop"
nice -n 5 java -Xmx$SAMPLER_HEAP -cp "$BENCH_CP" io.firn.bench.SoakSampler \
  --optimized-uri "jdbc:sqlite:$DIR/optimized/catalog.db?busy_timeout=30000" \
  --optimized-warehouse "$DIR/optimized/warehouse" \
  --baseline-uri "jdbc:sqlite:$DIR/baseline/catalog.db?busy_timeout=30000" \
  --baseline-warehouse "$DIR/baseline/warehouse" \
  --table "events.$TABLE" --interval-seconds "$INTERVAL" --out "$DIR" --stop-file "$STOP" \
  --target-size $(( 16 * 1024 * 1024 )) > "$DIR/sampler.log" 2>&1 &
sampler_pid=$!; pids+=($sampler_pid)

# The stream runs MINUTES; then both jobs finish their bounded stream (up to 10 more minutes if
# they fell behind), the server keeps optimizing DRAIN minutes, and the sampler takes its last one.
deadline=$(( $(date +%s) + MINUTES * 60 + 600 ))
for pid in "${ingest_pids[@]}"; do
  while kill -0 "$pid" 2>/dev/null && (( $(date +%s) < deadline )); do
    kill -0 "$server_pid" 2>/dev/null || { echo "the server stopped: see $DIR/server.log" >&2; exit 1; }
    kill -0 "$sampler_pid" 2>/dev/null || { echo "the sampler stopped: see $DIR/sampler.log" >&2; exit 1; }
    sleep 5
  done
done
for variant in optimized baseline; do
  grep -qE 'ERROR|Caused by' "$DIR/$variant/ingest.log" && echo "note: errors in $DIR/$variant/ingest.log" >&2
done
if kill -0 "${ingest_pids[0]}" 2>/dev/null || kill -0 "${ingest_pids[1]}" 2>/dev/null; then
  echo "an ingest job did not finish its $EVENTS events in time; stopping it" >&2
fi
echo "== stream done at $(date -u +%H:%M:%S); the server optimizes $DRAIN more minutes" >&2
sleep $(( DRAIN * 60 ))
touch "$STOP"
wait "$sampler_pid" || { echo "the sampler failed: see $DIR/sampler.log" >&2; exit 1; }
stop_all
pids=()

mkdir -p "$CHARTS"
java -Djava.awt.headless=true -cp "bench/target/firn-bench-0.1.0-SNAPSHOT.jar:bench/target/lib/*" \
  io.firn.bench.SoakCharts --samples "$DIR/samples.csv" --charts "$CHARTS" --prefix "$PREFIX" \
  --title "events.$TABLE, $RATE events/s, checkpoint $CHECKPOINT"
cp "$DIR/samples.csv" "$CHARTS/$PREFIX-samples.csv"
echo "== charts: $CHARTS/$PREFIX-*.png; samples $DIR/samples.csv; summary $DIR/summary.md" >&2
