#!/usr/bin/env bash
# The sample's RESP listener against a real redis-server, same machine, same run, driven by the
# standard redis-benchmark: -t ping,set,get -c 50, without and with -P 16, servers interleaved over
# rounds. Needs Debian's redis-server and redis-tools, and a built sample (mvn -B -q -DskipTests package).
#
#   benchmarks/redis-compare.sh [rounds] [requests]      (defaults: 3 rounds, 200000 requests a test)
#
# Environment: JAVA (default: java on the PATH), SAMPLE_JAR (default: sample-app/target/sample-app.jar),
# RESULTS=dir to also write the run to dir/<yyyy-MM-dd>-<short commit>/, meant to be committed (results-dir.sh).
# Results: a Markdown table on standard output; the raw runs (results.csv) in the temporary folder it names.
set -euo pipefail
if [ -n "${SAMPLE_JAR:-}" ]; then
  SAMPLE_JAR=$(realpath "$SAMPLE_JAR")
fi
cd "$(dirname "$0")/.."
source benchmarks/results-dir.sh
JAVA=${JAVA:-java}
rounds=${1:-3}
requests=${2:-200000}
redis_port=6391
sample_resp_port=6392
for tool in redis-server redis-benchmark redis-cli; do
  command -v "$tool" >/dev/null || { echo "$tool is missing: apt-get install redis-server redis-tools" >&2; exit 1; }
done
jar=${SAMPLE_JAR:-sample-app/target/sample-app.jar}
[ -f "$jar" ] || { echo "$jar is missing: run mvn -B -q -DskipTests package first" >&2; exit 1; }

out=$(mktemp -d)
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --daemonize no >"$out/redis.log" 2>&1 &
redis_pid=$!
java_major=$("$JAVA" -XshowSettings:properties -version 2>&1 | awk -F= '/java.specification.version/ { gsub(/ /, "", $2); print $2 }')
"$JAVA" -jar "$jar" --server.port=0 --management.server.port=0 --sockstate.listeners.echo.port=0 \
  --sockstate.listeners.poll.port=0 --sockstate.listeners.udp.port=0 \
  --sockstate.listeners.resp.port="$sample_resp_port" --sockstate.workers.threads=2 >"$out/sample.log" 2>&1 &
sample_pid=$!
trap 'kill $redis_pid $sample_pid 2>/dev/null || true; wait 2>/dev/null || true' EXIT
for port in $redis_port $sample_resp_port; do
  for _ in $(seq 1 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.2; done
  redis-cli -p "$port" ping >/dev/null || { echo "nothing answers on port $port" >&2; exit 1; }
done

echo "round,server,pipeline,test,requests_per_second" >"$out/results.csv"
for round in $(seq 1 "$rounds"); do
  for pipeline in 1 16; do
    for server in redis-server sockstate-resp; do
      port=$redis_port; [ "$server" = sockstate-resp ] && port=$sample_resp_port
      redis-benchmark -p "$port" -t ping,set,get -c 50 -n "$requests" -P "$pipeline" --csv 2>/dev/null \
        | tail -n +2 | tr -d '"' | awk -F, -v r="$round" -v s="$server" -v p="$pipeline" '{print r "," s "," p "," $1 "," $2}' \
        >>"$out/results.csv"
    done
  done
done

{
echo "redis-benchmark -t ping,set,get -c 50 -n $requests, median requests/s over $rounds rounds (servers interleaved);" \
     "the sample with 2 workers on Java $java_major"
echo
echo "| test | pipeline | redis-server | sockstate resp | ratio |"
echo "|---|---|---|---|---|"
python3 - "$out/results.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
tests = []
for row in rows:
    key = (row["test"], row["pipeline"])
    if key not in tests:
        tests.append(key)
for test, pipeline in tests:
    values = {}
    for server in ("redis-server", "sockstate-resp"):
        values[server] = statistics.median(float(r["requests_per_second"]) for r in rows
                                           if r["test"] == test and r["pipeline"] == pipeline and r["server"] == server)
    print(f"| {test} | -P {pipeline} | {values['redis-server']:,.0f} | {values['sockstate-resp']:,.0f} | {values['sockstate-resp'] / values['redis-server']:.2f} |")
PY
} >"$out/report.md"
cat "$out/report.md"
echo
echo "Raw runs and logs: $out"
if [ -n "${RESULTS:-}" ]; then
  written=$(RESULT_PROGRAMS="redis-server redis-benchmark" write_results "$RESULTS" "The RESP listener against redis-server" \
    "JAVA=<jdk>/bin/java $(results_environment RESULTS SAMPLE_JAR) benchmarks/redis-compare.sh $rounds $requests" \
    "$out/report.md" "$out/results.csv")
  echo "Results to commit in $written"
fi
