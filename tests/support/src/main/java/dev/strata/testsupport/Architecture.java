package dev.strata.testsupport;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;

/**
 * The dependency rules of docs/ARCHITECTURE.md, checked on a module's compiled classes (its tests
 * left out) with ArchUnit: no cycle between the module's packages, and the module direction — setup
 * and launcher on metal and cli, metal and cli (side by side, neither on the other) on engine,
 * engine on nothing of the toolkit; nothing of the toolkit on setup or launcher (the distribution's
 * launcher aside). Each module's {@code ArchitectureTest} calls {@link #check}.
 */
public final class Architecture {
  /** The toolkit's modules, each named by its root package, lowest first. */
  public static final List<String> MODULES =
      List.of(
          "dev.strata.kernels",
          "dev.strata.engine",
          "dev.strata.cli",
          "dev.strata.metal",
          "dev.strata.setup",
          "dev.strata.launcher");

  private Architecture() {}

  /**
   * Checks the module whose root package is {@code root} (one of {@link #MODULES}): its packages
   * (the root one and every sub-package, each a slice of its own) are free of cycles, and no class
   * of it depends on a module it must not see: a module on none listed after it in {@link
   * #MODULES}, but cli and metal on neither of each other, and setup and launcher on neither of
   * each other.
   *
   * @throws AssertionError naming every violation
   */
  public static void check(String root) {
    if (!MODULES.contains(root)) {
      throw new IllegalArgumentException("not a module's root package: " + root);
    }
    JavaClasses classes =
        new ClassFileImporter()
            .withImportOption(new ImportOption.DoNotIncludeTests())
            .withImportOption(new ImportOption.DoNotIncludeJars())
            .importPackages(root);
    if (classes.isEmpty()) {
      throw new AssertionError("no classes of " + root + " found: run after compile");
    }
    slices()
        .matching(root.substring(0, root.lastIndexOf('.')) + ".(**)")
        .namingSlices("package $1")
        .should()
        .beFreeOfCycles()
        .check(classes);
    List<String> forbidden = forbiddenFor(root);
    if (!forbidden.isEmpty()) {
      noClasses()
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(forbidden.stream().map(p -> p + "..").toArray(String[]::new))
          .because(
              "the module direction is setup, launcher -> metal, cli -> engine (ARCHITECTURE.md)")
          .check(classes);
    }
  }

  /** The modules' root packages {@code root} must not depend on. */
  static List<String> forbiddenFor(String root) {
    return switch (root) {
      case "dev.strata.cli" ->
          List.of("dev.strata.metal", "dev.strata.setup", "dev.strata.launcher");
      case "dev.strata.metal" ->
          List.of("dev.strata.cli", "dev.strata.setup", "dev.strata.launcher");
      case "dev.strata.setup" -> List.of("dev.strata.launcher");
      case "dev.strata.launcher" -> List.of("dev.strata.setup");
      default -> MODULES.subList(MODULES.indexOf(root) + 1, MODULES.size());
    };
  }
}
