package dev.strata.engine.host;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;

/**
 * The one list of host keys: {@link HostFacts}' record components, in declaration order, each named
 * in snake_case ({@code cpuCores} → {@code cpu_cores}). The host JSON ({@link HostFactsCodec}) and
 * a config's {@code host} section both read and write through it, so they cannot disagree, and a
 * component added to the record is a key everywhere without another edit.
 */
public final class HostKeys {
  private HostKeys() {}

  /**
   * @param key the snake_case key
   * @param type String, int, long or boolean
   */
  public record Key(String key, Class<?> type, Method accessor) {}

  /** Every key, in record (and output) order. */
  public static final List<Key> KEYS =
      Arrays.stream(HostFacts.class.getRecordComponents()).map(HostKeys::key).toList();

  private static Key key(RecordComponent rc) {
    Class<?> t = rc.getType();
    if (t != String.class && t != int.class && t != long.class && t != boolean.class) {
      throw new ExceptionInInitializerError("HostFacts." + rc.getName() + " has type " + t);
    }
    return new Key(snake(rc.getName()), t, rc.getAccessor());
  }

  /** {@code cpuCores} → {@code cpu_cores}; digits stay with their word ({@code metal4}). */
  static String snake(String camel) {
    StringBuilder b = new StringBuilder(camel.length() + 4);
    for (char c : camel.toCharArray()) {
      if (Character.isUpperCase(c)) {
        b.append('_').append(Character.toLowerCase(c));
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  /** The keys' names, in order. */
  public static List<String> names() {
    return KEYS.stream().map(Key::key).toList();
  }

  /** The key named {@code name}, or null. */
  public static Key named(String name) {
    for (Key k : KEYS) {
      if (k.key().equals(name)) {
        return k;
      }
    }
    return null;
  }

  /** A record from values in key order, each of its key's type (boxed). */
  public static HostFacts create(Object[] values) {
    try {
      Class<?>[] types = KEYS.stream().map(Key::type).toArray(Class<?>[]::new);
      Constructor<HostFacts> c = HostFacts.class.getDeclaredConstructor(types);
      return c.newInstance(values);
    } catch (InvocationTargetException e) {
      throw new IllegalStateException("HostFacts refused its values", e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("HostFacts' canonical constructor", e);
    }
  }

  /** The value of {@code k} in {@code host} (boxed). */
  public static Object value(Key k, HostFacts host) {
    try {
      return k.accessor().invoke(host);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("HostFacts." + k.accessor().getName(), e);
    }
  }
}
