#!/usr/bin/env bash
# The RESP proxy comparison: one redis-server, reached directly, through twemproxy (Debian's nutcracker, as
# its users run it: redis: true, the same two server connections as the sample's pool), through Netty's
# proxy as its own example writes one (dev.sockstate.benchmarks.proxy.NettyProxy: a connection to the
# server per client, bytes relayed unparsed, a different design) and through sockstate's resp-proxy
# listener (a pool of two connections, every request parsed, checked and pipelined); each JVM proxy in a
# JVM of its own with the same worker count. twemproxy and the sample answer PING themselves (it reaches
# no server), so the PING rows measure each proxy's own path per request; Netty's relay passes it on. Driven by the
# standard redis-benchmark -c 50, each of PING_INLINE, PING_MBULK, SET and GET run alone without and with
# -P 16, servers interleaved over rounds after one unrecorded warm-up pass through each proxy. Around each
# run, a proxy's user plus system CPU time from /proc/<pid>/stat gives its CPU per request; since that time
# comes in clock ticks (10 ms), the pipelined runs send ten times as many requests by default, so that a
# proxy's run lasts some hundred ticks at either pipeline.
# Needs Debian's redis-server and redis-tools, python3, and for the sockstate column a built sample
# (mvn -B -q -DskipTests package) whose application.yml has a resp-proxy listener; the twemproxy column
# runs where nutcracker is installed (apt-get install nutcracker).
#
#   benchmarks/proxy-compare.sh [rounds] [requests] [pipelined requests]
#                                  (defaults: 3 rounds, 100000 requests a test at -P 1, 10 times that at -P 16)
#
# Environment: WORKERS (each proxy's threads, default 2), JAVA (default: java on the PATH), MVN (default:
# mvn), SKIP_BUILD=1 to reuse benchmarks/target/classes and classpath.txt, SAMPLE_JAR (default:
# sample-app/target/sample-app.jar; a build by JDK 22 or later holds the FFM binding), BASELINE_JAR=path/to/sample-app.jar
# to run a second build of the sample beside the first (a column "before", port 6398: a change measured
# against what it changes, in the same run), TESTS (default "ping_inline ping_mbulk set get") and PIPELINES
# (default "1 16") to run fewer, RESULTS=dir to also write the run to dir/<yyyy-MM-dd>-<short commit>/, meant to
# be committed (results-dir.sh). Results: a Markdown table on
# standard output (benchmarks/proxy-compare-table.py, which tables a kept results.csv again: medians over the
# rounds, and each round's own sockstate/Netty ratios); the raw runs (results.csv) and the servers' logs in
# benchmarks/target/proxy-compare/<time>/.
set -euo pipefail
if [ -n "${BASELINE_JAR:-}" ]; then
  BASELINE_JAR=$(realpath "$BASELINE_JAR")
fi
if [ -n "${SAMPLE_JAR:-}" ]; then
  SAMPLE_JAR=$(realpath "$SAMPLE_JAR")
fi
cd "$(dirname "$0")/.."
source benchmarks/results-dir.sh
rounds=${1:-3}
requests=${2:-100000}
pipelined_requests=${3:-$((requests * 10))}
workers=${WORKERS:-2}
JAVA=${JAVA:-java}
# On Java 24 and later, Netty needs sun.misc.Unsafe's memory access allowed to run at full speed; every JVM gets it.
java_major=$("$JAVA" -XshowSettings:properties -version 2>&1 | awk -F= '/java.specification.version/ { gsub(/ /, "", $2); print $2 }')
jvm_opts=()
if [ "${java_major%%.*}" -ge 24 ] 2>/dev/null; then
  jvm_opts+=(--sun-misc-unsafe-memory-access=allow)
fi
redis_port=6395
netty_port=6396
sockstate_port=6397
baseline_port=6398
twemproxy_port=6399
read -r -a tests <<<"${TESTS:-ping_inline ping_mbulk set get}"
read -r -a pipelines <<<"${PIPELINES:-1 16}"

for tool in redis-server redis-benchmark redis-cli python3 timeout; do
  command -v "$tool" >/dev/null || { echo "$tool is missing: apt-get install redis-server redis-tools python3" >&2; exit 1; }
done
ports=($redis_port $netty_port $sockstate_port)
twemproxy=$(command -v nutcracker || { [ -x /usr/sbin/nutcracker ] && echo /usr/sbin/nutcracker; } || true)
[ -n "$twemproxy" ] && ports+=($twemproxy_port)
[ -n "${BASELINE_JAR:-}" ] && ports+=($baseline_port)
for port in "${ports[@]}"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "port $port is taken on 127.0.0.1" >&2; exit 1; fi
done

jar=${SAMPLE_JAR:-sample-app/target/sample-app.jar}
if [ -f "$jar" ] && unzip -p "$jar" BOOT-INF/classes/application.yml | grep -q resp-proxy; then
  with_sockstate=1
else
  with_sockstate=0
  [ -n "${BASELINE_JAR:-}" ] && echo "BASELINE_JAR is left out: it is measured beside the sample only" >&2
  echo "The sockstate column is not available yet: $jar is missing or has no resp-proxy listener;" \
       "running redis-server direct and the Netty proxy only." >&2
fi

if [[ ${SKIP_BUILD:-0} != 1 ]]; then
  ${MVN:-mvn} -B -q -Pbenchmarks -pl benchmarks -am -DskipTests package dependency:build-classpath \
    -Dmdep.outputFile=target/classpath.txt
fi

out=benchmarks/target/proxy-compare/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true' EXIT
trap 'exit 130' INT TERM

redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --daemonize no >"$out/redis.log" 2>&1 &
redis_pid=$!
pids+=("$redis_pid")
"$JAVA" "${jvm_opts[@]}" -cp "$(cat benchmarks/target/classpath.txt):benchmarks/target/classes" dev.sockstate.benchmarks.proxy.NettyProxy \
  "$netty_port" "127.0.0.1:$redis_port" "$workers" >"$out/netty.log" 2>&1 &
netty_pid=$!
pids+=("$netty_pid")
servers=(direct netty)
if [ -n "$twemproxy" ]; then
  # As twemproxy's users configure it for Redis: the server's connections as many as the sample's pool.
  cat >"$out/twemproxy.yml" <<YAML
redis:
  listen: 127.0.0.1:$twemproxy_port
  redis: true
  hash: fnv1a_64
  distribution: ketama
  server_connections: 2
  servers:
    - 127.0.0.1:$redis_port:1
YAML
  "$twemproxy" -c "$out/twemproxy.yml" -s 22299 -a 127.0.0.1 -o "$out/twemproxy.log" &
  twemproxy_pid=$!
  pids+=("$twemproxy_pid")
  servers+=(twemproxy)
else
  echo "nutcracker is not installed: the twemproxy column is left out (apt-get install nutcracker)" >&2
fi
if [ "$with_sockstate" = 1 ]; then
  # Every other listener of the sample on a port of the system's choosing, so that only resp-proxy is fixed.
  others=()
  for name in $(unzip -p "$jar" BOOT-INF/classes/application.yml | awk '
      /^sockstate:/ { in_sockstate = 1; next }
      /^[^ #]/ { in_sockstate = 0 }
      in_sockstate && /^  listeners:/ { in_listeners = 1; next }
      in_sockstate && /^  [^ ]/ { in_listeners = 0 }
      in_listeners && /^    [A-Za-z0-9_-]+:/ { sub(/^ +/, ""); sub(/:.*/, ""); print }'); do
    [ "$name" = resp-proxy ] || others+=("--sockstate.listeners.$name.port=0")
  done
  start_sample() { # jar, port, log
    "$JAVA" "${jvm_opts[@]}" -jar "$1" --server.port=0 --management.server.port=0 "${others[@]}" \
      --sockstate.listeners.resp-proxy.port="$2" --sockstate.clients.redis.address="127.0.0.1:$redis_port" \
      --sockstate.workers.threads="$workers" >"$3" 2>&1 &
  }
  start_sample "$jar" "$sockstate_port" "$out/sockstate.log"
  sockstate_pid=$!
  pids+=("$sockstate_pid")
  servers+=(sockstate)
  if [ -n "${BASELINE_JAR:-}" ]; then
    start_sample "$BASELINE_JAR" "$baseline_port" "$out/before.log"
    baseline_pid=$!
    pids+=("$baseline_pid")
    servers+=(before)
  fi
fi

port_of() { case $1 in direct) echo $redis_port ;; netty) echo $netty_port ;; sockstate) echo $sockstate_port ;; before) echo $baseline_port ;; twemproxy) echo $twemproxy_port ;; esac; }
pid_of() { case $1 in direct) echo $redis_pid ;; netty) echo $netty_pid ;; sockstate) echo $sockstate_pid ;; before) echo $baseline_pid ;; twemproxy) echo $twemproxy_pid ;; esac; }
# User plus system CPU time of a process, in clock ticks: fields 14 and 15, counted after the command name.
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }

for server in "${servers[@]}"; do
  port=$(port_of "$server")
  for _ in $(seq 1 100); do
    redis-cli -p "$port" ping >/dev/null 2>&1 && break
    kill -0 "$(pid_of "$server")" 2>/dev/null || break
    sleep 0.2
  done
  redis-cli -p "$port" ping >/dev/null || { echo "nothing answers on port $port ($server); see $out" >&2; exit 1; }
done
for server in "${servers[@]}"; do
  [ "$server" = direct ] && continue
  for pipeline in 1 16; do
    timeout 120 redis-benchmark -p "$(port_of "$server")" -t ping,set,get -c 50 -n "$requests" -P "$pipeline" -q \
      >/dev/null 2>&1 || echo "warm-up of $server at -P $pipeline failed or timed out" >&2
  done
done

echo "round,server,pipeline,test,requests,requests_per_second,proxy_cpu_ticks,redis_cpu_ticks" >"$out/results.csv"
for round in $(seq 1 "$rounds"); do
  for pipeline in "${pipelines[@]}"; do
    n=$requests; [ "$pipeline" = 16 ] && n=$pipelined_requests
    for test in "${tests[@]}"; do
      for server in "${servers[@]}"; do
        pid=$(pid_of "$server")
        proxy_before=$(cpu_ticks "$pid")
        redis_before=$(cpu_ticks "$redis_pid")
        if csv=$(timeout 120 redis-benchmark -p "$(port_of "$server")" -t "$test" -c 50 -n "$n" -P "$pipeline" \
            --csv 2>/dev/null); then
          proxy_ticks=$(($(cpu_ticks "$pid") - proxy_before))
          redis_ticks=$(($(cpu_ticks "$redis_pid") - redis_before))
          [ "$server" = direct ] && proxy_ticks=
          echo "$csv" | tail -n +2 | tr -d '"' | awk -F, -v r="$round" -v s="$server" -v p="$pipeline" -v n="$n" \
            -v c="$proxy_ticks" -v d="$redis_ticks" '{ print r "," s "," p "," $1 "," n "," $2 "," c "," d }' >>"$out/results.csv"
        else
          echo "round $round: $test -P $pipeline through $server failed or timed out; left out" >&2
        fi
      done
    done
  done
done

{
echo "redis-benchmark -c 50 -n $requests (-P 1) and $pipelined_requests (-P 16), each test alone; median over $rounds rounds (min–max), servers interleaved;" \
     "each proxy with $workers worker(s), the JVM proxies on Java $java_major; CPU: the proxy's user+system time per request (clock tick $((1000 / $(getconf CLK_TCK))) ms)"
echo
python3 benchmarks/proxy-compare-table.py "$out/results.csv" "$(getconf CLK_TCK)"
} >"$out/report.md"
cat "$out/report.md"
echo
echo "Raw runs and logs: $out"
if [ -n "${RESULTS:-}" ]; then
  written=$(RESULT_PROGRAMS="redis-server redis-benchmark${twemproxy:+ nutcracker}" write_results "$RESULTS" \
    "The RESP proxy against twemproxy and a Netty proxy" \
    "JAVA=<jdk>/bin/java WORKERS=$workers $(results_environment RESULTS SAMPLE_JAR BASELINE_JAR TESTS PIPELINES) benchmarks/proxy-compare.sh $rounds $requests $pipelined_requests" \
    "$out/report.md" "$out/results.csv")
  echo "Results to commit in $written"
fi
