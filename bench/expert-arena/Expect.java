// Expect.java — the plan's expected reads (dev.strata.engine.plan.ExpectedReads, the rule --plan prints) for
// bench/expert-arena/expect.py: one line per arena size, from a router trace recorded by another run.
//
//   java -cp engine/target/classes bench/expert-arena/Expect.java TRACE POLICY SLOT_BYTES MODEL_SLOTS TOKEN_SLOTS SLOTS...
//
// prints "SLOTS BASIS MISSES_PER_TOKEN BYTES_PER_TOKEN UNIFORM_BYTES_PER_TOKEN" per SLOTS.
import dev.strata.engine.plan.ExpectedReads;
import dev.strata.engine.plan.ExpertArena;
import dev.strata.engine.plan.RoutingProfile;
import java.nio.file.Path;
import java.util.Locale;

class Expect {
  public static void main(String[] a) {
    RoutingProfile profile = RoutingProfile.read(Path.of(a[0]));
    long slotBytes = Long.parseLong(a[2]), model = Long.parseLong(a[3]), token = Long.parseLong(a[4]);
    for (int i = 5; i < a.length; i++) {
      ExpertArena arena = new ExpertArena(slotBytes, Long.parseLong(a[i]), model, token, 0);
      ExpectedReads e = ExpectedReads.of(arena, a[1], profile);
      ExpectedReads u = ExpectedReads.of(arena, a[1], null);
      System.out.println(String.format(Locale.ROOT, "%s %s %.4f %d %d", a[i], e.basis(), e.missesPerToken(),
          e.bytesPerToken(), u.bytesPerToken()));
    }
  }
}
