# Sourced by the benchmark scripts that start bench's JVMs (ROOT is the repository root): class
# paths and JVM options of the Firn side and of the Spark baseline, and a clock.
FIRN_CP="$ROOT/bench/target/classes:$ROOT/bench/target/lib/*"
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
