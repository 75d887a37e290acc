# Sourced by the benchmark scripts that start bench's JVMs (ROOT is the repository root): class
# paths and JVM options of the Firn side and of the Spark baseline, and a clock.
# The bench jar, not target/classes: a class-data archive takes jars only.
FIRN_CP="$ROOT/bench/target/firn-bench-0.1.0-SNAPSHOT.jar:$ROOT/bench/target/lib/*"
SPARK_CP="$ROOT/bench/spark-baseline/target/classes:$ROOT/bench/spark-baseline/target/lib/*"
SPARK_OPTS=(-Xmx6g -XX:+IgnoreUnrecognizedVMOptions --add-modules=jdk.incubator.vector
  --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED
  --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED
  --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED
  --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
  --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/sun.nio.cs=ALL-UNNAMED
  --add-opens=java.base/sun.security.action=ALL-UNNAMED --add-opens=java.base/sun.util.calendar=ALL-UNNAMED
  --add-opens=java.security.jgss/sun.security.krb5=ALL-UNNAMED
  -Djdk.reflect.useDirectMethodHandle=false -Dio.netty.tryReflectionSetAccessible=true)
# The ingest jars on bench's class path (Iceberg's Flink writer) need these too.
FIRN_OPTS=(--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED
  --add-opens=java.base/java.nio=ALL-UNNAMED)
export SPARK_LOCAL_IP=127.0.0.1
now() { date +%s.%N; }
# elapsed T0 T1: seconds between two now() readings, as a JSON number (bc prints ".84").
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# Firn's side and its floors (FirnOptimize, PlainParquetCopy, PlainKeyRead) run as `bin/firn
# optimize` does after its first use: C1 only, from the class-data archive an earlier run of the
# same program left (ADR 0038), through one_shot_java NAME CLASSPATH JAVA_ARGS...
source "$ROOT/bin/firn-one-shot-jvm.sh"

# class_data_training DIR: leaves those archives, from one run of each program on a small table
# generated in DIR (removed after), so that no measured run is the one that writes an archive.
class_data_training() {
  local dir="$1"
  local catalog=(--catalog-uri "jdbc:sqlite:$dir/catalog.db" --warehouse "$dir/warehouse" --table bench.shaped)
  rm -rf "$dir"; mkdir -p "$dir"
  java -Xmx2g "${FIRN_OPTS[@]}" -cp "$FIRN_CP" io.firn.bench.GenerateShapedTable \
    --catalog-file "$dir/catalog.db" --warehouse "$dir/warehouse" --table bench.shaped \
    --rows 20000 --commits 10 --partitions 2 > /dev/null
  one_shot_java plain-parquet-copy "$FIRN_CP" -Xmx2g -cp "$FIRN_CP" io.firn.bench.PlainParquetCopy \
    "${catalog[@]}" --threads 2 --out "$dir/plain.json" 2> /dev/null
  one_shot_java plain-key-read "$FIRN_CP" -Xmx2g -cp "$FIRN_CP" io.firn.bench.PlainKeyRead \
    "${catalog[@]}" --threads 2 --out "$dir/keys.json" 2> /dev/null
  one_shot_java firn-optimize "$FIRN_CP" -Xmx2g -cp "$FIRN_CP" io.firn.bench.FirnOptimize \
    "${catalog[@]}" --type full --threads 2 --out "$dir/firn.json" 2> /dev/null
  rm -rf "$dir"
}
