# The compaction matrix's table shapes (issue 17; the table in bench/run-matrix.sh's header):
# `shape N` prints "codec width partition partitions writer rows checkpoints". Sourced by
# bench/run-matrix.sh and bench/run-ab.sh.
shape() {
  case "$1" in
    1) echo "zstd narrow identity 8 cdc 500000 100" ;;
    2) echo "zstd narrow identity 64 upsert 2000000 200" ;;
    3) echo "zstd wide bucket 8 cdc 2000000 200" ;;
    4) echo "zstd wide bucket 64 upsert 500000 100" ;;
    5) echo "snappy narrow bucket 8 upsert 500000 100" ;;
    6) echo "snappy narrow bucket 64 cdc 2000000 200" ;;
    7) echo "snappy wide identity 8 upsert 2000000 200" ;;
    8) echo "snappy wide identity 64 cdc 500000 100" ;;
    *) echo "unknown shape $1 (1..8)" >&2; return 64 ;;
  esac
}
