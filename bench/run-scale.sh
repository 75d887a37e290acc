#!/usr/bin/env bash
# Scale benchmarks of issue 3 (metadata-only tables: fake file paths, real Iceberg metadata):
#   1. rounds of the server's snapshot watcher (io.firn.server.TableWatcher.round()) over --tables
#      tables in a JDBC catalog: first round, unchanged round, round after 1 % got a new snapshot,
#      each thread count in a fresh JVM (a server start);
#   2. planning of one table with --data-files data files (TableScanner.scan + BinPackPlanner) in a
#      child JVM with -Xmx$PLAN_HEAP, peak heap from the heap pools and a GC log.
#
#   bench/run-scale.sh [--work /tmp/firn-scale] [--tables 10000] [--threads "1 4 8"]
#                      [--data-files 1000000] [--partitions 1000] [--plan-heap 2g]
#                      [--plan-mode groups|whole] [--group-files 500000] [--max-process-files 1000000]
#                      [--postgres] [--skip-generate] [--skip-build] [--only watch|plan]
#
# Generated data stays under --work (never in the repository). Every Maven build and every
# measuring JVM runs under flock /tmp/firn-mvn.lock (shared 2-core machine). --postgres also runs
# the watcher against a PostgreSQL catalog on 127.0.0.1:5432 (user postgres, trust auth) in a
# database it creates and drops.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
LOCK=/tmp/firn-mvn.lock

WORK=/tmp/firn-scale TABLES=10000 NAMESPACES=100 THREADS="1 4 8" DATA_FILES=1000000
PARTITIONS=1000 PLAN_HEAP=2g PLAN_MODE=groups GROUP_FILES=500000 MAX_PROCESS_FILES=1000000
POSTGRES=false GENERATE=true
ONLY=all BUILD=true
while (($#)); do
  case "$1" in
    --work) WORK=$2; shift 2 ;;
    --tables) TABLES=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --data-files) DATA_FILES=$2; shift 2 ;;
    --partitions) PARTITIONS=$2; shift 2 ;;
    --plan-heap) PLAN_HEAP=$2; shift 2 ;;
    --plan-mode) PLAN_MODE=$2; shift 2 ;;
    --group-files) GROUP_FILES=$2; shift 2 ;;
    --max-process-files) MAX_PROCESS_FILES=$2; shift 2 ;;
    --postgres) POSTGRES=true; shift ;;
    --skip-generate) GENERATE=false; shift ;;
    --skip-build) BUILD=false; shift ;;
    --only) ONLY=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
done
case "$WORK" in "$ROOT"|"$ROOT"/*) echo "--work must be outside the repository" >&2; exit 64 ;; esac

if $BUILD; then
  echo "== building" >&2
  # clean: target/lib must not keep jars of older dependency versions.
  # A reactor build: never install (other checkouts share ~/.m2).
  flock "$LOCK" mvn -B -o -q clean package -DskipTests -Dspotless.check.skip=true -pl bench -am >&2
fi
CP="$ROOT/bench/target/classes:$ROOT/bench/target/lib/*"
R=$WORK/results
mkdir -p "$R"
# One locked JVM at a time; each stays well under 10 minutes.
run() { flock "$LOCK" java "$@"; }

MANY=(--catalog-uri "jdbc:sqlite:$WORK/many/catalog.db" --warehouse "$WORK/many/warehouse")
BIG=(--catalog-uri "jdbc:sqlite:$WORK/big/catalog.db" --warehouse "$WORK/big/warehouse" --table big.events)

if [[ $ONLY != plan ]]; then
  if $GENERATE; then
    echo "== generating $TABLES metadata-only tables (SQLite catalog)" >&2
    rm -rf "$WORK/many"
    run -Xmx2g -cp "$CP" io.firn.bench.GenerateManyTables "${MANY[@]}" --tables "$TABLES" --namespaces "$NAMESPACES"
  fi
  for t in $THREADS; do
    echo "== watcher rounds, SQLite catalog, $t thread(s)" >&2
    breakdown=0; [[ $t == "${THREADS%% *}" ]] && breakdown=2000
    run -Xmx2g -cp "$CP" io.firn.bench.WatchRounds "${MANY[@]}" --tables "$TABLES" --namespaces "$NAMESPACES" \
      --threads "$t" --breakdown "$breakdown" --out "$R/watch-sqlite-$t.json" >/dev/null
  done
  echo "== watcher rounds, SQLite catalog, 4 threads, LocalFileIO" >&2
  run -Xmx2g -cp "$CP" io.firn.bench.WatchRounds "${MANY[@]}" --tables "$TABLES" --namespaces "$NAMESPACES" \
    --threads 4 --io local --out "$R/watch-sqlite-4-local.json" >/dev/null

  if $POSTGRES; then
    DB=firn_scale_$$
    PG=(--catalog-uri "jdbc:postgresql://127.0.0.1:5432/$DB" --jdbc-user postgres --warehouse "$WORK/pg/warehouse")
    psql -h 127.0.0.1 -U postgres -qc "CREATE DATABASE $DB" >/dev/null
    trap 'psql -h 127.0.0.1 -U postgres -qc "DROP DATABASE IF EXISTS $DB" >/dev/null' EXIT
    rm -rf "$WORK/pg"
    echo "== generating $TABLES metadata-only tables (PostgreSQL catalog $DB)" >&2
    run -Xmx2g -cp "$CP" io.firn.bench.GenerateManyTables "${PG[@]}" --tables "$TABLES" --namespaces "$NAMESPACES"
    for t in $THREADS; do
      echo "== watcher rounds, PostgreSQL catalog, $t thread(s)" >&2
      run -Xmx2g -cp "$CP" io.firn.bench.WatchRounds "${PG[@]}" --tables "$TABLES" --namespaces "$NAMESPACES" \
        --threads "$t" --out "$R/watch-postgresql-$t.json" >/dev/null
    done
  fi
fi

if [[ $ONLY != watch ]]; then
  if $GENERATE; then
    echo "== generating one metadata-only table with $DATA_FILES data files" >&2
    rm -rf "$WORK/big"
    run -Xmx6g -cp "$CP" io.firn.bench.GenerateLargeTable "${BIG[@]}" --data-files "$DATA_FILES" \
      --partitions "$PARTITIONS" --commits 100 --delete-commits 10 --hot-partitions 100 --position-deletes 1000
  fi
  echo "== planning it with -Xmx$PLAN_HEAP" >&2
  run -Xmx"$PLAN_HEAP" -Xlog:gc:file="$R/plan-gc.log" -cp "$CP" io.firn.bench.PlanLargeTable "${BIG[@]}" \
    --mode "$PLAN_MODE" --group-files "$GROUP_FILES" --max-process-files "$MAX_PROCESS_FILES" --histogram 25 --out "$R/plan.json" >/dev/null
fi

python3 "$ROOT/bench/report-scale.py" "$R"
