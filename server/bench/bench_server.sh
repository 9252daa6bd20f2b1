#!/usr/bin/env bash
# Benchmark of the sample server (prints figures; not a test): GET / (D = 100 ms) under 100 closed users with
# no think time, for each server.tomcat.threads.max in THREADS. Expected: threads.max=10 -> X within 5% of
# 10/0.1 s = 100 req/s; threads.max=100 -> X at least 80% of 1000 req/s.
# Puts load on the machine: run it under the load lock,
#   flock "$LOAD_LOCK" server/bench/bench_server.sh
# Then the /cpu calibration's accuracy (CpuAccuracy: thread CPU time used / requested, sequential requests).
# Knobs (env): THREADS="10 100", USERS=100, WARMUP=5 (s trimmed), DURATION=25 (s per cell, warm-up included),
# CPU_REPEATS=21 (requests per /cpu size; 0 skips that part).
set -euo pipefail
cd "$(dirname "$0")/../.."

THREADS=${THREADS-"10 100"}  # THREADS= (empty) runs only the /cpu part
USERS=${USERS:-100}
WARMUP=${WARMUP:-5}
DURATION=${DURATION:-25}
CPU_REPEATS=${CPU_REPEATS:-21}
JAR=server/target/littlegrid-server.jar
LOADGEN=server/target/test-classes/io/littlegrid/server/bench/ClosedLoopLoad.class

if [ ! -f "$JAR" ] || [ ! -f "$LOADGEN" ]; then
  echo "bench_server.sh: building the server jar and the load generator" >&2
  ./mvnw -q -pl server package -DskipTests
fi

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

server_pid=""
stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid"
    wait "$server_pid" 2>/dev/null || true
  fi
  server_pid=""
}
trap stop_server EXIT INT TERM

echo "java: $(java -version 2>&1 | head -1); cores: $(nproc); $(date -u +%FT%TZ)"
# start_server THREADS: starts the jar on a free port with that pool size, waits for health UP.
start_server() {
  port=$(free_port)
  log=$(mktemp -t littlegrid-bench-server.XXXXXX.log)
  java -Xmx512m -jar "$JAR" --server.port="$port" --server.address=127.0.0.1 \
      --server.tomcat.threads.max="$1" >"$log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 240); do
    if curl -fs -o /dev/null "http://127.0.0.1:$port/actuator/health"; then rm -f "$log"; return 0; fi
    if ! kill -0 "$server_pid" 2>/dev/null; then echo "server exited; log: $log" >&2; exit 1; fi
    sleep 0.5
  done
  echo "server not ready after 120 s; log: $log" >&2
  exit 1
}

for threads in $THREADS; do
  start_server "$threads"
  java -Xmx512m -cp server/target/test-classes io.littlegrid.server.bench.ClosedLoopLoad \
      --url="http://127.0.0.1:$port/" --users="$USERS" --threads="$threads" --service-ms=100 \
      --warmup="$WARMUP" --duration="$DURATION" --server-pid="$server_pid"
  stop_server
done

if [ "$CPU_REPEATS" -gt 0 ]; then
  start_server 200
  java -cp server/target/test-classes io.littlegrid.server.bench.CpuAccuracy "http://127.0.0.1:$port" "$CPU_REPEATS"
  curl -fs "http://127.0.0.1:$port/actuator/health" | python3 -c 'import json,sys; c=json.load(sys.stdin)["components"]["calibration"]["details"]; print("calibration:", ", ".join(f"{k}={v}" for k, v in c.items()))'
  stop_server
fi
