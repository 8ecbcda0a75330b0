package dev.strata.kernels;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The committed vectors under src/test/resources/vectors are what the Java reference produces
 * today. The C++ harness and the Mac test compare the kernels against these files, so a change to
 * the reference must show up here first. {@code mvn -pl kernels test -Dgolden.update=true} rewrites
 * them.
 */
class KernelVectorsGoldenTest {

  private static final Path DIR = Path.of("src/test/resources/vectors");

  @Test
  void committedVectorsMatchTheReference() throws IOException {
    if (Boolean.getBoolean("golden.update")) {
      TestVectors.write(DIR);
    }
    for (TestVectors.NamedFile f : TestVectors.files(TestVectors.cases())) {
      Path p = DIR.resolve(f.name());
      assertTrue(
          Files.exists(p), p + " is missing: run with -Dgolden.update=true to write the vectors");
      assertArrayEquals(
          f.bytes(),
          Files.readAllBytes(p),
          p + " differs from the Java reference: rerun with -Dgolden.update=true if intended");
    }
  }
}
