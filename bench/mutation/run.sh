#!/usr/bin/env bash
# Mutation testing (PIT) over the core packages: the rules users rely on.
#
#   bench/mutation/run.sh [OUT_DIR] [PACKAGE...]
#
# OUT_DIR defaults to bench/results/<today>-mutation. PACKAGE is module:java.package, default the
# core list below, optionally module:name:CLASSES[:TESTS] where CLASSES and TESTS are PIT globs
# (comma-separated) for targetClasses and targetTests (default name.* and every test of the module);
# name is then only the report's folder (library trust mutates two classes of the mostly native
# dev.strata.engine.ffm plus dev.strata.engine.trust).
# PIT_THREADS (default 2) sets PIT's threads. (PIT 1.30's incremental analysis needs the commercial
# arcmutate history plugin, so a re-run after adding tests names the package or its classes again.)
# For each package PIT mutates its classes and runs the module's tests that cover each mutated
# line. Left out: the 10,000-case fuzz tests, which would run once per mutant; the ASan self test
# of strata-ref, which mutates nothing in Java and takes ~40 s; and the tests tagged "sigkill"
# (ConfigWriterTest's random SIGKILL of child JVMs: minutes per run on a loaded machine, where it
# failed PIT's green-suite check; the writer's atomic replacement is killed deterministically by
# ConfigWriterTest.aReaderOnlyEverSeesTheOldOrTheNewBytes).
# Writes OUT_DIR/<package>/{mutations.xml,index.html,...}, OUT_DIR/times.txt (start, end, uptime
# per package) and OUT_DIR/summary.md over every package folder in OUT_DIR (score = killed, incl.
# timed out, / all mutants; survivors listed). Too slow for every CI run: 3-10 minutes per package
# on the shared 2-core machine at load 10-20 (bench/results/2026-11-30-mutation/README.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
out=${1:-bench/results/$(date -u +%Y-%m-%d)-mutation}
shift || true
pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
  pkgs=(
    engine:dev.strata.engine.kv
    engine:dev.strata.engine.plan
    engine:dev.strata.engine.flags
    engine:dev.strata.engine.model
    engine:dev.strata.engine.config
    engine:dev.strata.engine.write
    engine:dev.strata.engine.host
    engine:library-trust:dev.strata.engine.trust.*,dev.strata.engine.ffm.VerifiedLibrary*,dev.strata.engine.ffm.LibraryFile*
    launcher:dev.strata.launcher.preflight
  )
fi
# JDK 25 the way ./strata finds it
. "$root/dist/src/dist/libexec/find-jdk.sh"
JAVA_HOME=$(strata_find_jdk "") || { echo "mutation: $STRATA_NO_JDK_MESSAGE" >&2; exit 2; }
export JAVA_HOME
mkdir -p "$out"
out=$(cd "$out" && pwd -P)
start=$(date +%s)
for spec in "${pkgs[@]}"; do
  IFS=: read -r module pkg classes tests <<<"$spec"
  classes=${classes:-$pkg.*}
  echo "mutation: $pkg ($module)" >&2
  echo "$pkg start $(date -u +%H:%M:%S) uptime: $(uptime)" >>"$out/times.txt"
  t0=$(date +%s)
  # -am builds the module's dependencies from this tree (never ~/.m2); PIT runs in each reactor
  # module but finds mutants only in the one that holds the package
  mvn -B -q -ntp -Dstyle.color=never -Dspotless.check.skip=true -pl "$module" -am \
    test-compile org.pitest:pitest-maven:mutationCoverage -DfailWhenNoMutations=false \
    -Dthreads="${PIT_THREADS:-2}" -DtargetClasses="$classes" ${tests:+-DtargetTests="$tests"} \
    -DexcludedTestClasses='*FuzzTest,*NativeSelfTest' -DexcludedGroups=sigkill -DreportsDirectory="$out/$pkg" >"$out/$pkg.log" 2>&1 \
    || { echo "mutation: PIT failed for $pkg, see $out/$pkg.log" >&2; continue; }
  echo "$pkg done $(date -u +%H:%M:%S) after $(( $(date +%s) - t0 )) s, uptime: $(uptime)" >>"$out/times.txt"
done
python3 - "$out" "$(( $(date +%s) - start ))" <<'PY'
import sys, os, glob, xml.etree.ElementTree as ET
out, secs = sys.argv[1], sys.argv[2]
rows, surv = [], []
for xmlf in sorted(glob.glob(os.path.join(out, '*', 'mutations.xml'))):
    pkg = os.path.basename(os.path.dirname(xmlf))
    ms = ET.parse(xmlf).getroot().findall('mutation')
    st = [m.get('status') for m in ms]
    killed = sum(s in ('KILLED', 'TIMED_OUT', 'MEMORY_ERROR') for s in st)
    total = len(st)
    rows.append((pkg, total, killed, st.count('SURVIVED'), st.count('NO_COVERAGE')))
    for m in ms:
        if m.get('status') in ('SURVIVED', 'NO_COVERAGE'):
            surv.append((pkg, m.get('status'), m.findtext('mutatedClass'), m.findtext('mutatedMethod'),
                         m.findtext('lineNumber'), m.findtext('description')))
with open(os.path.join(out, 'summary.md'), 'w') as f:
    f.write('# PIT mutation scores per core package\n\n')
    f.write('Command: `bench/mutation/run.sh %s` (wall time %s s).\n\n' % (out, secs))
    f.write('| package | mutants | killed | survived | no coverage | score |\n|---|---:|---:|---:|---:|---:|\n')
    for p, t, k, s, n in rows:
        f.write('| %s | %d | %d | %d | %d | %.1f%% |\n' % (p, t, k, s, n, 100.0 * k / t if t else 100))
    f.write('\n## Mutants not killed\n\n| package | status | class | method | line | mutation |\n|---|---|---|---|---:|---|\n')
    for r in surv:
        f.write('| %s | %s | %s | %s | %s | %s |\n' % r)
print(open(os.path.join(out, 'summary.md')).read().split('## Mutants')[0])
PY
