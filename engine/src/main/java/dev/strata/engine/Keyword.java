package dev.strata.engine;

/**
 * An enum whose constants are spelled in flags and configs as their names in lower case ({@link
 * Keywords#lower}): {@code --experts stream}, {@code --fault segv}. Parse with {@link
 * Keywords#find}.
 */
public interface Keyword {
  /** The constant's name (every enum has it). */
  String name();

  /** The spelling in flags and configs: the name in lower case. */
  default String id() {
    return Keywords.lower((Enum<?>) this);
  }
}
