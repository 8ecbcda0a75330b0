package dev.strata.engine;

import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * Enum constants named by a word in flags, configs and the C ABI: one spelling rule and one lookup
 * for every such enum ({@link Backend}, {@link dev.strata.engine.kv.KvFormat}, {@code ExpertsMode},
 * {@code EngineArgs.Fault}, the launcher's signals).
 */
public final class Keywords {
  private Keywords() {}

  /**
   * The constant's name in lower case: how {@code --kv}, {@code --experts} and {@code --fault}
   * spell their values (ggml's type names are spelled so too: {@code q4_0}).
   */
  public static String lower(Enum<?> constant) {
    return constant.name().toLowerCase(Locale.ROOT);
  }

  /**
   * The constant of {@code type} whose {@code key} equals {@code value}, or null when none does (or
   * value is null).
   */
  public static <E extends Enum<E>, K> E find(
      Class<E> type, Function<? super E, ? extends K> key, K value) {
    if (value == null) {
      return null;
    }
    for (E constant : type.getEnumConstants()) {
      if (Objects.equals(key.apply(constant), value)) {
        return constant;
      }
    }
    return null;
  }
}
