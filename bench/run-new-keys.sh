#!/usr/bin/env bash
# What `inserts: append-new-keys` saves readers and the optimizer (ADR 0008 §14): a Debezium
# snapshot plus updates through the ingest job, once upserting every row, once appending new keys.
#
#   bench/run-new-keys.sh [--rows 1000000] [--updates 200000] [--checkpoint-ms 1000] [--dir DIR]
#
# Prints per mode the job time, delete files and rows, a full scan with deletes applied and Firn's
# minor and full optimizing; the RESULT line compares them (io.firn.bench.NewKeyInserts). Two
# tables that differ fail it (exit 2). FIRN_BENCH_JAVA_OPTS sets the heap (default -Xmx6g).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

if [[ ! -f bench/target/classes/io/firn/bench/NewKeyInserts.class || ! -d bench/target/lib ]] \
  || [[ -n "$(find bench/src/main bench/pom.xml -newer bench/target/classes/io/firn/bench/NewKeyInserts.class -print -quit)" ]]; then
  echo "== building" >&2
  mvn -B -q -ntp package -DskipTests -Dspotless.check.skip=true -pl bench -am >&2
fi
# shellcheck source=bench/flink-opens.sh
source "$ROOT/bench/flink-opens.sh"

echo "== new-key inserts (cores: $(nproc))" >&2
# shellcheck disable=SC2086
exec java ${FIRN_BENCH_JAVA_OPTS:--Xmx6g} "${FLINK_OPENS[@]}" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -cp "$ROOT/bench/target/classes:$ROOT/bench/target/lib/*" io.firn.bench.NewKeyInserts "$@"
