package dev.strata.cli;

import java.util.HashMap;
import java.util.Map;

/**
 * The values of a parsed command line, by option: what {@link SimpleArgs#scan} and {@link
 * CliSpec#values} both give, so a command makes its request from one place whichever parser read
 * the arguments. An absent option reads as null (a switch: false).
 */
public final class CliValues {
  private final Map<String, Object> byName = new HashMap<>();

  CliValues() {}

  void put(CliOption<?> option, Object value) {
    byName.put(option.name(), value);
  }

  /** The option's value, or null when it is absent (and has no default). */
  @SuppressWarnings("unchecked") // put only by the option's own reader
  public <T> T get(CliOption<T> option) {
    return (T) byName.get(option.name());
  }

  /** True when the switch (or option) was given. */
  public boolean on(CliOption<?> option) {
    return byName.get(option.name()) != null;
  }

  @Override
  public String toString() {
    return "CliValues" + byName;
  }
}
