#!/usr/bin/env bash
# Throughput of the three worker runtimes (local, Flink, Spark) on the same generated table, in one
# run; see RuntimeComparisonBench and the "Worker runtimes" section of BENCHMARKS.md.
#
#   optimizer-worker/spark/bench-runtimes.sh [--rows 400000] [--commits 40] [--buckets 8] [--slots 2]
#
# Needs a build: mvn -B install -DskipTests -pl optimizer-server,cli,optimizer-worker/flink,optimizer-worker/spark -am
# (MVN overrides the Maven command used to resolve the two classpaths, e.g. MVN="mvn -B -q -o").
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
MVN="${MVN:-mvn -B -q}"
SPARK="$ROOT/optimizer-worker/spark"
FLINK="$ROOT/optimizer-worker/flink"
OUT="$SPARK/target/bench-runtimes"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"

for need in "$ROOT/optimizer-server/target/lib" "$ROOT/cli/target/lib" \
            "$FLINK/target/classes" "$SPARK/target/classes"; do
  [[ -d "$need" ]] || { echo "bench-runtimes: $need is missing; build first (see the header)" >&2; exit 1; }
done

cd "$ROOT"
$MVN -pl optimizer-worker/spark test-compile
$MVN -pl optimizer-worker/flink test-compile
$MVN -pl optimizer-worker/spark dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile="$SPARK/target/classpath.txt"
$MVN -pl optimizer-worker/flink dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile="$FLINK/target/classpath.txt"
echo "$FLINK/target/classes:$FLINK/target/test-classes:$(cat "$FLINK/target/classpath.txt")" \
  > "$FLINK/target/worker-classpath.txt"

# Spark 4.0.4's JVM options (org.apache.spark.launcher.JavaModuleOptions), as in the module's pom.
SPARK_OPTS="-XX:+IgnoreUnrecognizedVMOptions --add-modules=jdk.incubator.vector --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/sun.nio.cs=ALL-UNNAMED --add-opens=java.base/sun.security.action=ALL-UNNAMED --add-opens=java.base/sun.util.calendar=ALL-UNNAMED --add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED -Djdk.reflect.useDirectMethodHandle=false -Dio.netty.tryReflectionSetAccessible=true"

rm -rf "$OUT"
export SPARK_LOCAL_IP=127.0.0.1
# shellcheck disable=SC2086
"$JAVA" -Xmx2g -XX:+UseParallelGC $SPARK_OPTS \
  -Dfirn.spark.jvm.options="$SPARK_OPTS" \
  -Dfirn.server.home="$ROOT/optimizer-server/target" \
  -cp "$SPARK/target/test-classes:$SPARK/target/classes:$(cat "$SPARK/target/classpath.txt")" \
  io.firn.worker.spark.RuntimeComparisonBench \
  --dir "$OUT" --cli-home "$ROOT/cli/target" \
  --flink-classpath "$FLINK/target/worker-classpath.txt" "$@"
