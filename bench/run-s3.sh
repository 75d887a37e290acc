#!/usr/bin/env bash
# Compaction on object storage next to local disk (issue 16, docs/adr/0024 §7): the same CDC table
# generated into a local warehouse and into s3://bench/wh on S3Proxy (127.0.0.1, its own JVM,
# filesystem blob store), each optimized by Firn's LocalOptimizer; local and S3 alternate for
# --rounds rounds. Every result is also checked as the server checks a worker's (timed apart).
# Prints a Markdown table: wall time, and for S3 the requests and body bytes of the rewrite and of
# the check per task. Fails when a side's rows differ from the generator's. Results in
# WORK/s3.json.
#
#   bench/run-s3.sh [--rows 400000] [--commits 40] [--buckets 8] [--threads 2] [--type full]
#                   [--rounds 2] [--work DIR] [--whole-object-read-max 4MiB]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

ARGS=() WORK=$ROOT/bench/target/s3
while (($#)); do
  case "$1" in
    --work) WORK=$2; shift 2 ;;
    --rows|--commits|--buckets|--threads|--type|--rounds|--seed|--whole-object-read-max) ARGS+=("$1" "$2"); shift 2 ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
done

if [[ "${SKIP_BUILD:-}" != true ]]; then
  echo "== building" >&2
  mvn -B -q -ntp package -DskipTests -Dspotless.check.skip=true -pl bench -am >&2
fi

rm -rf "$WORK"; mkdir -p "$WORK"
java -Xmx4g -Dfirn.s3proxy.jar="$ROOT/bench/target/s3proxy/s3proxy.jar" \
  -cp "$ROOT/bench/target/classes:$ROOT/bench/target/lib/*" \
  io.firn.bench.ObjectStorageCompaction --work "$WORK" --out "$WORK/s3.json" "${ARGS[@]}"
