// PlanScaling.java — does planning cost grow with context? Times MemoryPlan.compute and the setup
// generator (Generator.plan: KV rules, defaults, plan, args, config) at contexts 8K … 1M, in one JVM.
//
//   java -cp 'dist/target/strata-0.1.0/lib/*' bench/scaling/PlanScaling.java MODEL-FIRST-SHARD HOST-JSON [reps]
//
// For each context and each KV choice (default int8 pools; --kv q4_0): first a warm-up of 200,000 calls
// of each case over every context (so the JIT has compiled the code before any figure is taken), then
// `reps` rounds; a round times 2,000 calls of every case at every context in turn (so drift hits all
// of them alike) and
// the figure is the median over rounds of the thread's CPU ns per call (CPU time, not wall time: the
// machine is shared, and time spent descheduled is not the code's cost). Also prints the KV pool bytes the plan reserves,
// which should grow linearly (cells = context + 128, docs/ENGINE-CONTRACT.md, KV formats).
import dev.strata.engine.host.HostFacts;
import dev.strata.engine.host.HostProfiles;
import dev.strata.engine.Backend;
import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.model.ExpertsMode;
import dev.strata.engine.model.GgufReader;
import dev.strata.engine.model.ModelGeometry;
import dev.strata.engine.plan.MemoryPlan;
import dev.strata.engine.plan.PlanRequest;
import dev.strata.engine.gen.Answers;
import dev.strata.engine.gen.Generator;
import dev.strata.engine.gen.Template;
import dev.strata.engine.gen.Templates;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

public final class PlanScaling {
  static final long[] CONTEXTS = {8_192, 16_384, 32_768, 65_536, 131_072, 262_144, 524_288, 1_048_576};
  static final int CALLS = 2_000;
  static volatile Object sink;
  static final java.lang.management.ThreadMXBean CPU = java.lang.management.ManagementFactory.getThreadMXBean();

  public static void main(String[] args) {
    Path model = Path.of(args[0]);
    HostFacts host = HostProfiles.load(args[1]);
    int reps = args.length > 2 ? Integer.parseInt(args[2]) : 9;
    ModelGeometry geometry = GgufReader.readModel(model).geometry();
    Template template = Templates.load(Backend.METAL);
    List<String> shards = List.of(model.toString());
    var library = new Generator.Library("/usr/local/lib/libstrata.dylib", null);

    record Case(String name, java.util.function.LongFunction<Object> call) {}
    List<Case> cases = new ArrayList<>();
    for (KvFormat kv : new KvFormat[] {null, KvFormat.Q4_0}) {
      String k = kv == null ? "int8 (default)" : "q4_0";
      KvFormat pools = kv == null ? KvFormat.INT8 : kv;
      cases.add(new Case("MemoryPlan.compute, " + k, ctx -> MemoryPlan.compute(
          stream(host, geometry, ctx, pools))));
      cases.add(new Case("Generator.plan, " + k, ctx -> Generator.plan(
          host, geometry, shards, new Answers(ctx, ExpertsMode.STREAM, kv), library, template)));
    }

    System.out.printf("plan-scaling: %d rounds x %d calls per context; CPU ns per call (median over rounds)%n",
        reps, CALLS);
    System.out.printf("%-30s", "context");
    for (long c : CONTEXTS) {
      System.out.printf(" %9d", c);
    }
    System.out.printf(" %9s%n", "max/min");
    for (Case cs : cases) {
      for (int w = 0; w < 200_000; ++w) {
        sink = cs.call().apply(CONTEXTS[w % CONTEXTS.length]);
      }
    }
    // every round visits every case and context, so JIT or load drift is spread over all figures
    double[][][] ns = new double[cases.size()][CONTEXTS.length][reps];
    for (int r = 0; r < reps; ++r) {
      for (int c = 0; c < cases.size(); ++c) {
        var call = cases.get(c).call();
        for (int i = 0; i < CONTEXTS.length; ++i) {
          long t0 = CPU.getCurrentThreadCpuTime();
          for (int n = 0; n < CALLS; ++n) {
            sink = call.apply(CONTEXTS[i]);
          }
          ns[c][i][r] = (CPU.getCurrentThreadCpuTime() - t0) / (double) CALLS;
        }
      }
    }
    for (int c = 0; c < cases.size(); ++c) {
      System.out.printf("%-30s", cases.get(c).name());
      double lo = Double.MAX_VALUE, hi = 0;
      for (double[] v : ns[c]) {
        Arrays.sort(v);
        double m = v[reps / 2];
        lo = Math.min(lo, m);
        hi = Math.max(hi, m);
        System.out.printf(" %9.0f", m);
      }
      System.out.printf(" %8.2fx%n", hi / lo);
    }
    System.out.printf("%-30s", "KV pool bytes, int8");
    for (long c : CONTEXTS) {
      System.out.printf(" %9s", mib(MemoryPlan.compute(stream(host, geometry, c, KvFormat.INT8)).kv().bytes()));
    }
    System.out.printf("%n%-30s", "KV pool bytes, q4_0");
    for (long c : CONTEXTS) {
      System.out.printf(" %9s", mib(MemoryPlan.compute(stream(host, geometry, c, KvFormat.Q4_0)).kv().bytes()));
    }
    System.out.printf("%n%-30s", "plan fits (int8/q4_0)");
    for (long c : CONTEXTS) {
      boolean a = MemoryPlan.compute(stream(host, geometry, c, KvFormat.INT8)).fits();
      boolean b = MemoryPlan.compute(stream(host, geometry, c, KvFormat.Q4_0)).fits();
      System.out.printf(" %9s", (a ? "yes" : "no") + "/" + (b ? "yes" : "no"));
    }
    System.out.println();
  }

  /** The Metal stream plan of this model at this context with these pools. */
  static PlanRequest stream(HostFacts host, ModelGeometry geometry, long ctx, KvFormat pools) {
    return PlanRequest.of(host, geometry, Backend.METAL)
        .withContext(ctx)
        .withExperts(ExpertsMode.STREAM)
        .withPools(pools);
  }

  static String mib(long bytes) {
    return String.format("%.1fM", bytes / 1048576.0);
  }
}
