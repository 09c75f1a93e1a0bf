#!/usr/bin/env bash
# Measures the container kernel (kernel/container_bench_test.go) on runc and
# runsc and prints medians and ratios: cold start against a bare
# `docker run --rm IMAGE python3 -c pass`, a warm trivial cell, and a cell
# printing 1000 lines. Needs the engine and the test image
# (scripts/docker-setup.sh, scripts/build-test-image.sh).
#
# Env: COUNT (benchmark repetitions, default 3), COLD (cold starts per
# repetition, default 10), CELLS (cells per repetition, default 300),
# BACKYARD_TEST_IMAGE.
set -euo pipefail
cd "$(dirname "$0")/.."
count="${COUNT:-3}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT

go test ./kernel/containerkernel/ -run '^$' -count="$count" -benchtime="${COLD:-10}x" \
  -bench '^(BenchmarkContainerColdStart|BenchmarkDockerRun)$' | tee -a "$out"
go test ./kernel/containerkernel/ -run '^$' -count="$count" -benchtime="${CELLS:-300}x" \
  -bench '^(BenchmarkContainerCell|BenchmarkContainerPrint1000)$' | tee -a "$out"

# Median over the repetitions of each benchmark's per-iteration median.
awk '
  /^Benchmark/ {
    name = $1; sub(/-[0-9]+$/, "", name)
    for (i = 3; i < NF; i++) if ($(i+1) ~ /median-ms$/) { v[name "|" $(i+1)] = v[name "|" $(i+1)] " " $i }
  }
  function median(s,   a, n, i, j, t) {
    n = split(s, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    for (k in v) m[k] = median(v[k])
    printf "\n%-8s %14s %14s %14s %10s %12s %12s\n", "runtime", "docker run ms", "cold start ms", "+close ms", "ratio", "cell ms", "1000 lines ms"
    split("runc runsc", rts, " ")
    for (i = 1; i <= 2; i++) {
      rt = rts[i]
      base = m["BenchmarkDockerRun/" rt "|median-ms"]
      cold = m["BenchmarkContainerColdStart/" rt "|median-ms"]
      full = m["BenchmarkContainerColdStart/" rt "|with-close-median-ms"]
      printf "%-8s %14.1f %14.1f %14.1f %5.2fx/%.2fx %12.3f %12.2f\n", rt, base, cold, full, cold / base, full / base,
        m["BenchmarkContainerCell/" rt "|median-ms"], m["BenchmarkContainerPrint1000/" rt "|median-ms"]
    }
    print "\nratio: cold start (first cell done) / docker run, then with the container removed too."
    print "targets: ratio <= 1.2; cell <= 1 ms (runc), <= 2 ms (runsc); 1000 lines <= 10 ms (runsc)."
  }' "$out"
