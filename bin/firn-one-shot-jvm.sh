# Sourced by bin/firn and by the benchmarks (bench/java-opts.sh); not a command of its own.
#
# How Firn's one-shot JVMs start (`plan`, `optimize`, `policies check`; docs/adr/0038-one-shot-jvm.md):
#
# 1. C1 only (ONE_SHOT_JVM_OPTS). A one-shot run is over before C2's code pays off: on 2 cores
#    the C2 compiler thread takes a core from the rewrite while methods wait in C1's slow
#    profiling tier. Measured: a full optimizing of 0.5 M rows 4.1 s -> 2.3 s, of 1 M wide rows
#    11 s -> 8.1 s, of 2 M narrow rows in 64 partitions 16.9 s -> 15.3 s; a steady-state Parquet
#    copy ran as fast under C1 as under C2. FIRN_JAVA_OPTS comes after it: -XX:TieredStopAtLevel=4
#    there brings C2 back.
# 2. Application class-data sharing: a JVM that starts from an archive of the classes an earlier
#    run of the same command loaded skips loading, parsing and verifying them again (0.8 s of a
#    5.6 s `optimize`). The first run of a command writes the archive as it exits (a few seconds
#    longer, once per build); later runs map it. An archive belongs to one command, one Java and
#    one class path: its file name is a checksum of the Java binary, its base archive and every
#    jar (path, size, time), so a rebuild or a Java update makes a new one and removes the old.
#    The JVM itself also checks the class path and the base archive and ignores an archive that
#    does not fit.
#
#   FIRN_CDS=off         run without an archive
#   FIRN_CDS_DIR=DIR     where archives live (default: ${XDG_CACHE_HOME:-~/.cache}/firn/cds)
#
# The archive needs GNU stat and cksum (Linux); where either is missing, or the directory is not
# writable, the JVM runs without one.

ONE_SHOT_JVM_OPTS=(-XX:TieredStopAtLevel=1)

# JVM logging of class-data sharing stays quiet (a first run's archive notes about classes it
# cannot archive are no use to an operator), and JVM warnings go to stderr, never into a command's
# stdout.
CLASS_DATA_QUIET=(-Xlog:disable "-Xlog:all=warning,cds*=off:stderr")

# class_data_key CLASSPATH: prints the checksum naming the archive of this Java and class path.
class_data_key() {
  local java_bin entry files=()
  java_bin="$(command -v "${JAVA:-java}")" || return 1
  java_bin="$(readlink -f "$java_bin")" || return 1
  local -a entries
  IFS=: read -ra entries <<< "$1"
  for entry in "${entries[@]}"; do
    if [[ "$entry" == *'/*' ]]; then
      files+=("${entry%\*}"*.jar)
    else
      files+=("$entry")
    fi
  done
  local base
  base="$(dirname "$java_bin")/../lib/server/classes.jsa"
  [[ -f "$base" ]] || base="$java_bin"
  { echo "$java_bin $1"; stat -L -c '%n %s %Y' "$java_bin" "$base" "${files[@]}"; } \
    | cksum | cut -d' ' -f1
}

# one_shot_java NAME CLASSPATH JAVA_ARGS...: runs "${JAVA:-java}" with ONE_SHOT_JVM_OPTS and
# JAVA_ARGS (which name the same class path), from NAME's archive or writing it when missing;
# returns the JVM's exit status. TERM, INT and HUP sent to this shell are passed on to the JVM as
# TERM (its shutdown hooks run).
one_shot_java() {
  local name="$1" classpath="$2" java="${JAVA:-java}"
  shift 2
  local dir="${FIRN_CDS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/firn/cds}" key="" archive="" made=""
  local -a options=()
  local use_cds="${FIRN_CDS:-on}" arg
  for arg in "$@"; do
    # Sharing the caller set up itself (-Xshare:off, an archive of its own) is left alone.
    case "$arg" in -Xshare:*|-XX:SharedArchiveFile=*|-XX:ArchiveClassesAtExit=*) use_cds=off ;; esac
  done
  if [[ "$use_cds" != off ]] && mkdir -p "$dir" 2>/dev/null && [[ -w "$dir" ]] \
     && key="$(class_data_key "$classpath" 2>/dev/null)" && [[ -n "$key" ]] \
     && [[ ! -e "$dir/$name-$key.unsupported" ]]; then
    # NAME-KEY-SIZE.jsa: the JVM can crash on a truncated archive, so one whose size is not the
    # size it was written with is removed and made again.
    local found size
    for found in "$dir/$name-$key"-*.jsa; do
      [[ -f "$found" ]] || continue
      size="${found##*-}"
      if [[ "$(stat -c %s "$found" 2>/dev/null)" == "${size%.jsa}" ]]; then
        archive="$found"
      else
        rm -f "$found"
      fi
    done
    if [[ -n "$archive" ]]; then
      options=(-XX:SharedArchiveFile="$archive" "${CLASS_DATA_QUIET[@]}")
    elif ! "$java" -Xshare:on "${CLASS_DATA_QUIET[@]}" -version >/dev/null 2>&1; then
      # A Java without a usable base archive (some custom runtimes ship none) refuses to start
      # with -XX:ArchiveClassesAtExit: this Java and class path run without one, and the marker
      # spares later runs this check.
      rm -f "$dir/$name"-*.unsupported
      touch "$dir/$name-$key.unsupported" 2>/dev/null || true
    else
      # Left behind by a launcher killed with SIGKILL while its JVM wrote one.
      find "$dir" -maxdepth 1 -name '*.tmp' -mmin +60 -delete 2>/dev/null || true
      made="$dir/$name-$key.$$.tmp"
      options=(-XX:ArchiveClassesAtExit="$made" "${CLASS_DATA_QUIET[@]}")
    fi
  fi
  local pid status=0
  # Explicit stdin: a background job's would otherwise be /dev/null.
  "$java" "${options[@]}" "${ONE_SHOT_JVM_OPTS[@]}" "$@" <&0 &
  pid=$!
  trap 'kill -TERM "$pid" 2>/dev/null' TERM INT HUP
  wait "$pid" || status=$?
  while kill -0 "$pid" 2>/dev/null; do
    status=0
    wait "$pid" || status=$?
  done
  trap - TERM INT HUP
  if [[ -n "$made" ]]; then
    # Kept only after a run that succeeded (a failed one loaded a fraction of the classes) and
    # when a JVM maps it with sharing required: a mismatched archive fails that check, and a
    # damaged (truncated) one can crash the JVM that maps it, this check's and not a user's.
    if [[ "$status" -eq 0 && -s "$made" ]] \
       && "$java" -XX:ErrorFile=/dev/null -Xshare:on -XX:SharedArchiveFile="$made" \
            "${CLASS_DATA_QUIET[@]}" -cp "$classpath" -version >/dev/null 2>&1; then
      rm -f "$dir/$name"-*.jsa "$dir/$name"-*.unsupported
      mv -f "$made" "$dir/$name-$key-$(stat -c %s "$made").jsa"
    else
      rm -f "$made"
    fi
  fi
  return "$status"
}
