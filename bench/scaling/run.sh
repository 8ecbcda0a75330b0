#!/usr/bin/env bash
# bench/scaling/run.sh — planning cost against context: MemoryPlan.compute and the setup generator
# (Generator.plan) at 8K … 1M, in one JVM (bench/scaling/PlanScaling.java), plus the KV pool bytes the
# plan reserves at each context. The other half of the scaling figure — decode time and pool bytes in
# strata-ref from 8K to 256K — is bench/kv-decode/run.sh (its scaling table).
#
#   bench/scaling/run.sh [rounds] [outdir]        (default 15 rounds, bench/results/<today>-scaling)
#
# Needs the built distribution (./strata build). Writes raw.txt (command, machine, load, output).
. "$(dirname "$0")/../lib.sh"
bench_begin scaling 15 "$@"
JAVA_HOME="$jdk" "$dist/bin/strata-setup" demo-model --out "$work/model" >/dev/null
cmd=("$jdk/bin/java" -cp "$dist/lib/*" "$here/PlanScaling.java" "$work/model/strata-demo-00001-of-00004.gguf"
     "$root/templates/hosts/m4-pro-48.json" "$rounds")
{
  echo "# date: $(date -u +%FT%TZ)"
  echo "# command: bench/scaling/run.sh $rounds  ->  java -cp 'dist/target/strata-0.1.0/lib/*' bench/scaling/PlanScaling.java <demo model> templates/hosts/m4-pro-48.json $rounds"
  echo "# machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cpus, $(uname -sm); $("$jdk/bin/java" -version 2>&1 | head -1)"
  echo "# load before run: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
  "${cmd[@]}"
  echo "# load after run: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
} | tee "$out/raw.txt"
