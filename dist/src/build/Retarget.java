// Retarget.java — rewrites the Java 5 class files (major version 49) of a jar as Java 8 class files
// (major 52) with stack map frames, so the JDK's AOT cache can hold them. Run at package time by
// dist/pom.xml on the distribution's copy of picocli (the Maven repository's jar is not touched):
//
//   java dist/src/build/Retarget.java lib/picocli-4.7.7.jar
//
// Why: JDK 25 does not archive or AOT-link class files older than version 50 (they need the old
// type-inferring verifier), so every start of strata-setup/strata-launch loaded picocli's ~180
// classes from the jar and verified them the slow way — the largest part of the commands' start-up
// left after the AOT cache (docs/PERFORMANCE.md has the figures). Version 52 class files carry a
// StackMapTable and are checked by the ordinary split verifier at load time, as any other class.
//
// What changes: the version number and, in every method body, the StackMapTable the JDK's ClassFile
// API computes (it resolves types through the jar itself and the JDK). Instructions, constants and
// every other attribute are copied through. Refused (the jar is left as it is, exit 1): jsr/ret
// instructions, which version 51+ forbids (javac has not emitted them since Java 6; picocli has none).
// Idempotent: a jar with nothing below version 50 is not rewritten, so its modification time (which the
// AOT cache checks) stays.
import java.io.IOException;
import java.io.OutputStream;
import java.lang.classfile.ClassElement;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassFileVersion;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.CodeElement;
import java.lang.classfile.CodeModel;
import java.lang.classfile.MethodElement;
import java.lang.classfile.MethodModel;
import java.lang.classfile.instruction.DiscontinuedInstruction;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

public final class Retarget {
  static final int TARGET = ClassFile.JAVA_8_VERSION;

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: java Retarget.java JAR");
      System.exit(2);
    }
    Path jar = Path.of(args[0]);
    try (var loader = new URLClassLoader(new URL[] {jar.toUri().toURL()}, ClassLoader.getPlatformClassLoader())) {
      var resolver = ClassHierarchyResolver.defaultResolver()
          .orElse(ClassHierarchyResolver.ofResourceParsing(loader));
      var cf = ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(resolver),
          ClassFile.StackMapsOption.GENERATE_STACK_MAPS);
      Path tmp = jar.resolveSibling(jar.getFileName() + ".retarget.tmp");
      int rewritten = 0;
      try (var zip = new ZipFile(jar.toFile()); OutputStream os = Files.newOutputStream(tmp);
          var out = new ZipOutputStream(os)) {
        for (var it = zip.entries().asIterator(); it.hasNext(); ) {
          ZipEntry e = it.next();
          byte[] bytes;
          try (var in = zip.getInputStream(e)) {
            bytes = in.readAllBytes();
          }
          if (e.getName().endsWith(".class") && !e.getName().endsWith("module-info.class")) {
            ClassModel m = cf.parse(bytes);
            if (m.majorVersion() < 50) {
              bytes = retarget(cf, m, e.getName());
              rewritten++;
            }
          }
          var copy = new ZipEntry(e.getName());
          copy.setTime(e.getTime());
          out.putNextEntry(copy);
          out.write(bytes);
          out.closeEntry();
        }
      } catch (IOException | RuntimeException ex) {
        Files.deleteIfExists(tmp);
        System.err.println("Retarget: " + jar + ": " + ex.getMessage() + " (jar left as it is)");
        System.exit(1);
      }
      if (rewritten == 0) {
        Files.delete(tmp);
        System.err.println("Retarget: " + jar.getFileName() + ": nothing below version 50, left as it is");
      } else {
        Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        System.err.println("Retarget: " + jar.getFileName() + ": " + rewritten + " classes now version " + TARGET);
      }
    }
  }

  // The class rebuilt element by element: method bodies are re-emitted (so the stack maps are computed),
  // everything else is passed through; the version goes last so it wins.
  static byte[] retarget(ClassFile cf, ClassModel m, String name) {
    return cf.build(m.thisClass().asSymbol(), clb -> {
      for (ClassElement ce : m) {
        if (ce instanceof ClassFileVersion) {
          continue;
        }
        if (ce instanceof MethodModel mm) {
          clb.withMethod(mm.methodName(), mm.methodType(), mm.flags().flagsMask(), mb -> {
            for (MethodElement me : mm) {
              if (me instanceof CodeModel code) {
                mb.withCode(cob -> {
                  for (CodeElement x : code) {
                    if (x instanceof DiscontinuedInstruction) {
                      throw new IllegalStateException(name + " uses jsr/ret, which version " + TARGET
                          + " forbids");
                    }
                    cob.with(x);
                  }
                });
              } else {
                mb.with(me);
              }
            }
          });
        } else {
          clb.with(ce);
        }
      }
      clb.withVersion(TARGET, 0);
    });
  }
}
