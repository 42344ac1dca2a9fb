#!/usr/bin/env python3
"""The table of benchmarks/proxy-compare.sh, from the results.csv of one run (its raw runs), so that a
run kept can be tabled again:

    python3 benchmarks/proxy-compare-table.py benchmarks/target/proxy-compare/<time>/results.csv [clock ticks a second]

Per test and pipeline: each server's median requests/s over the rounds (min-max), each proxy's CPU per
request, each proxy against redis-server direct, and sockstate against twemproxy and Netty (and, when a baseline ran,
"before" against Netty and sockstate against "before") as a ratio of the medians and, for sockstate against
Netty and against "before", as the median (min-max) of the rounds' own ratios too: the servers run one
after the other within a round and share its conditions.
"""
import csv, os, statistics, sys
if len(sys.argv) < 2:
    sys.exit("usage: proxy-compare-table.py <results.csv> [clock ticks a second]")
rows = list(csv.DictReader(open(sys.argv[1])))
micros_per_tick = 1e6 / int(sys.argv[2] if len(sys.argv) > 2 else os.sysconf("SC_CLK_TCK"))
names = {"direct": "direct", "twemproxy": "twemproxy", "netty": "Netty (relay)", "sockstate": "sockstate", "before": "before"}
servers = [s for s in names if any(r["server"] == s for r in rows)]
proxies = [s for s in servers if s != "direct"]
keys = []
for row in rows:
    if (row["test"], row["pipeline"]) not in keys:
        keys.append((row["test"], row["pipeline"]))

def rates(test, pipeline, server):
    return [float(r["requests_per_second"]) for r in rows
            if r["test"] == test and r["pipeline"] == pipeline and r["server"] == server]

def cpu(test, pipeline, server):
    return [int(r["proxy_cpu_ticks"]) * micros_per_tick / int(r["requests"]) for r in rows
            if r["test"] == test and r["pipeline"] == pipeline and r["server"] == server]

def spread(samples, digits):
    if not samples:
        return "–"
    return f"{statistics.median(samples):,.{digits}f} ({min(samples):,.{digits}f}–{max(samples):,.{digits}f})"

def per_round(test, pipeline, server, other, value):
    """@return the rounds' own ratios of server to other, for value(row): median (min-max)"""
    mine = {r["round"]: value(r) for r in rows if r["test"] == test and r["pipeline"] == pipeline and r["server"] == server}
    theirs = {r["round"]: value(r) for r in rows if r["test"] == test and r["pipeline"] == pipeline and r["server"] == other}
    ratios = [mine[k] / theirs[k] for k in mine if k in theirs and theirs[k] > 0]
    return spread(ratios, 2)

def rate_of(row):
    return float(row["requests_per_second"])

def cpu_of(row):
    return int(row["proxy_cpu_ticks"]) / int(row["requests"])

def ratio(a, b):
    return f"{statistics.median(a) / statistics.median(b):.2f}" if a and b and statistics.median(b) > 0 else "–"

header = ["test", "pipeline"] + [f"{names[s]} req/s" for s in servers]
header += [f"{names[s]} CPU µs/req" for s in proxies]
header += [f"{names[s]}/direct req/s" for s in proxies]
if "sockstate" in proxies and "twemproxy" in proxies:
    header += ["sockstate/twemproxy req/s", "sockstate/twemproxy CPU/req",
               "sockstate/twemproxy req/s by round", "sockstate/twemproxy CPU/req by round"]
if "sockstate" in proxies:
    header += ["sockstate/Netty req/s", "sockstate/Netty CPU/req",
               "sockstate/Netty req/s by round", "sockstate/Netty CPU/req by round"]
if "before" in proxies:
    header += ["before/Netty req/s", "before/Netty CPU/req", "sockstate/before req/s", "sockstate/before CPU/req",
               "sockstate/before req/s by round", "sockstate/before CPU/req by round"]
print("| " + " | ".join(header) + " |")
print("|" + "---|" * len(header))
for test, pipeline in keys:
    cells = [test, f"-P {pipeline}"]
    cells += [spread(rates(test, pipeline, s), 0) for s in servers]
    cells += [spread(cpu(test, pipeline, s), 2) for s in proxies]
    cells += [ratio(rates(test, pipeline, s), rates(test, pipeline, "direct")) for s in proxies]
    if "sockstate" in proxies and "twemproxy" in proxies:
        cells += [ratio(rates(test, pipeline, "sockstate"), rates(test, pipeline, "twemproxy")),
                  ratio(cpu(test, pipeline, "sockstate"), cpu(test, pipeline, "twemproxy")),
                  per_round(test, pipeline, "sockstate", "twemproxy", rate_of),
                  per_round(test, pipeline, "sockstate", "twemproxy", cpu_of)]
    if "sockstate" in proxies:
        cells += [ratio(rates(test, pipeline, "sockstate"), rates(test, pipeline, "netty")),
                  ratio(cpu(test, pipeline, "sockstate"), cpu(test, pipeline, "netty")),
                  per_round(test, pipeline, "sockstate", "netty", rate_of),
                  per_round(test, pipeline, "sockstate", "netty", cpu_of)]
    if "before" in proxies:
        cells += [ratio(rates(test, pipeline, "before"), rates(test, pipeline, "netty")),
                  ratio(cpu(test, pipeline, "before"), cpu(test, pipeline, "netty")),
                  ratio(rates(test, pipeline, "sockstate"), rates(test, pipeline, "before")),
                  ratio(cpu(test, pipeline, "sockstate"), cpu(test, pipeline, "before")),
                  per_round(test, pipeline, "sockstate", "before", rate_of),
                  per_round(test, pipeline, "sockstate", "before", cpu_of)]
    print("| " + " | ".join(cells) + " |")
fewest = min((int(r["proxy_cpu_ticks"]) for r in rows if r["server"] != "direct"), default=None)
if fewest is not None and fewest < 100:
    print(f"\nThe CPU of the shortest proxied run was {fewest} clock ticks: each tick is {100 / fewest:.0f}% of it;"
          " more requests a test make the CPU columns finer.")
