package dev.strata.setup;

import dev.strata.cli.Io;
import dev.strata.cli.Machine;
import dev.strata.metal.HostProbe;
import dev.strata.setup.prompt.JLinePrompter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/**
 * strata-setup's wizard in a JVM of its own, its terminal a JLine dumb terminal over this process's
 * standard input and output (the keys come down a pipe), this machine's probe: so a test can send
 * the process a real SIGINT while the wizard measures. Exits with strata-setup's code. Used by
 * {@link WizardMeasureKvTest}.
 */
public final class PipedWizardMain {
  private PipedWizardMain() {}

  public static void main(String[] args) {
    PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
    Io io = Io.of(System.in, out, err, System.getenv(), true);
    int code =
        SetupMain.run(
            io,
            Machine.system(HostProbe::probe),
            x -> JLinePrompter.dumb(System.in, System.out, x.env()),
            args);
    out.flush();
    err.flush();
    System.exit(code);
  }
}
