#!/usr/bin/env bash
# Ingest throughput: Firn's routed upsert sink vs Iceberg's plain FlinkSink, in one JVM run.
#
#   bench/run-ingest.sh [--events 3000000] [--keys EVENTS/2] [--tables 3] [--parallelism 2]
#                       [--rounds 3] [--warmup-events 1000000] [--checkpoint-ms 1000] [--dir DIR]
#                       [--keep false] [--per-table-baseline true]
#
# All sides upsert the same deterministic JSON events by key on a local Flink MiniCluster, each
# run into a fresh SQLite JDBC catalog: a plain FlinkSink into one table, plain FlinkSinks into the
# same tables Firn routes to (when --tables > 1), and Firn; rounds alternate them and the medians
# are compared (io.firn.bench.IngestThroughput). A run that commits wrong rows fails the benchmark.
# Set FIRN_BENCH_JAVA_OPTS to change the heap (default -Xmx4g).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

if [[ ! -f bench/target/classes/io/firn/bench/IngestThroughput.class || ! -d bench/target/lib ]] \
  || [[ -n "$(find bench/src/main bench/pom.xml -newer bench/target/classes/io/firn/bench/IngestThroughput.class -print -quit)" ]]; then
  echo "== building" >&2
  mvn -B -q -ntp package -DskipTests -Dspotless.check.skip=true -pl bench -am >&2
fi

ARGS=("$@")
DIR=$ROOT/bench/target/ingest
for ((i = 0; i < ${#ARGS[@]}; i++)); do
  [[ ${ARGS[i]} == --dir ]] && DIR=${ARGS[i + 1]}
done
mkdir -p "$DIR"

# shellcheck source=bench/flink-opens.sh
source "$ROOT/bench/flink-opens.sh"

echo "== ingest throughput (cores: $(nproc))" >&2
# shellcheck disable=SC2086
exec java ${FIRN_BENCH_JAVA_OPTS:--Xmx4g} "${FLINK_OPENS[@]}" -Dorg.slf4j.simpleLogger.defaultLogLevel=error \
  -cp "$ROOT/bench/target/classes:$ROOT/bench/target/lib/*" io.firn.bench.IngestThroughput --dir "$DIR" "$@"
