package dev.strata.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An attacker's swapper for the library trust tests: a daemon thread that renames two files over a
 * target in turn (a hard link then an atomic rename, so the target always exists), as fast as it
 * can, until closed.
 */
public final class LibrarySwapper implements AutoCloseable {
  private final AtomicBoolean stop = new AtomicBoolean();
  private final AtomicInteger swaps = new AtomicInteger();
  private final Thread thread;

  /** Starts swapping {@code first}, then {@code second}, then {@code first} … over target. */
  public LibrarySwapper(Path target, Path first, Path second) {
    Path tmp = target.resolveSibling(".swap.tmp");
    thread =
        Thread.ofPlatform()
            .daemon()
            .start(
                () -> {
                  boolean useFirst = true;
                  while (!stop.get()) {
                    try {
                      Files.deleteIfExists(tmp);
                      Files.createLink(tmp, useFirst ? first : second);
                      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
                      swaps.incrementAndGet();
                      useFirst = !useFirst;
                    } catch (IOException e) {
                      // keep swapping
                    }
                  }
                });
  }

  /** How many renames landed so far. */
  public int swaps() {
    return swaps.get();
  }

  /** Stops swapping and waits for the thread. */
  @Override
  public void close() {
    stop.set(true);
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
