#!/usr/bin/env bash
# The model-based history test as a soak: many seeds, many steps each, the same code the build runs
# bounded (optimizer-worker/executor/src/test/java/io/firn/worker/history/).
#
#   bench/run-history-soak.sh [--seeds 1..50] [--ops 2000] [--mode all|writer_only]
#                             [--shrink-seconds 300] [--log FILE]
#
# Every step of every seed is checked: the whole table read with Iceberg's generic reader equals the
# reference model (keys, every column, no duplicates) and the file-level invariants hold. The last
# line is the record for BENCHMARKS.md: seeds, steps run, failed seeds, seconds and the step mix. A
# failing seed prints its failure and a minimized schedule to paste into a named test; its table
# is kept under optimizer-worker/executor/target/.
set -euo pipefail
cd "$(dirname "$0")/.."

SEEDS=1..50
OPS=2000
MODE=all
SHRINK=300
LOG=bench/target/history-soak-$(date -u +%Y%m%dT%H%M%SZ).log
while (($#)); do
  case $1 in
    --seeds) SEEDS=$2; shift 2 ;;
    --ops) OPS=$2; shift 2 ;;
    --mode) MODE=$2; shift 2 ;;
    --shrink-seconds) SHRINK=$2; shift 2 ;;
    --log) LOG=$2; shift 2 ;;
    *) echo "unknown option $1 (see the comment at the top of $0)" >&2; exit 1 ;;
  esac
done
mkdir -p "$(dirname "$LOG")"
echo "== history soak: seeds $SEEDS, $OPS steps each, mode $MODE; log $LOG" >&2

status=0
mvn -B -ntp -pl optimizer-worker/executor -am test -Dspotless.check.skip=true \
  -Dtest='HistoryTest#soak' -Dsurefire.failIfNoSpecifiedTests=false \
  -Dfirn.history.seeds="$SEEDS" -Dfirn.history.ops="$OPS" -Dfirn.history.mode="$MODE" \
  -Dfirn.history.shrink-seconds="$SHRINK" >"$LOG" 2>&1 || status=$?
grep -E '^history [A-Z_]+: seeds' "$LOG" || echo "no summary line: the run did not finish (see $LOG)"
exit $status
