package dev.strata.engine.write;

import java.nio.file.Path;

/**
 * Child process of {@link ConfigWriterTest#sigkillMidWriteLeavesTheOldOrTheNewFile}: writes two
 * different configs alternately (through the whole writer, or through its atomic primitive),
 * forever, printing one line after each write, until killed.
 */
public final class WriterCrashChild {
  private WriterCrashChild() {}

  public static void main(String[] args) throws java.io.IOException {
    Path target = Path.of(args[0]);
    boolean full = args[1].equals("full");
    byte[] a = ConfigWriterTest.content('a', ConfigWriterTest.LINES_A);
    byte[] b = ConfigWriterTest.content('b', ConfigWriterTest.LINES_B);
    for (long i = 0; ; i++) {
      byte[] c = (i % 2 == 0) ? a : b;
      if (full) {
        ConfigWriter.write(target, c, false);
      } else {
        // the primitive alone: the kill then nearly always lands inside a write of the target
        AtomicFile.atomicWrite(target, c, ConfigWriterTest.PERMS);
      }
      System.out.println("wrote " + i);
      System.out.flush();
    }
  }
}
