package dev.strata.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** This process's open descriptors, as Linux lists them in {@code /proc/self/fd}. */
public final class OpenFiles {
  private OpenFiles() {}

  /**
   * How many of this process's descriptors are open on {@code p}, or on a file that was at {@code
   * p} and has been replaced or deleted since: a refusal that leaks one leaves a count above zero
   * (Linux only: each {@code /proc/self/fd/N} is a link to the open file, "… (deleted)" once the
   * name is gone).
   */
  public static long on(Path p) throws IOException {
    Path real = p.toAbsolutePath().getParent().toRealPath().resolve(p.getFileName());
    String gone = real + " (deleted)";
    long n = 0;
    try (var fds = Files.list(Path.of("/proc/self/fd"))) {
      for (Path fd : (Iterable<Path>) fds::iterator) {
        try {
          Path target = Files.readSymbolicLink(fd);
          if (target.equals(real) || target.toString().equals(gone)) {
            n++;
          }
        } catch (IOException e) {
          // closed meanwhile (the listing's own descriptor)
        }
      }
    }
    return n;
  }
}
