package dev.strata.engine.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.strata.engine.host.HostFacts;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code host} section's keys, taken from {@link HostFacts}' own {@code @JsonProperty}
 * annotations so the YAML and the host JSON can never disagree: same snake_case names, same order,
 * and a field added to the record is a key here without another edit.
 */
final class HostKeys {
  private HostKeys() {}

  /**
   * @param key the snake_case key
   * @param type String, int, long or boolean
   */
  record Key(String key, Class<?> type, Method accessor) {}

  static final List<Key> KEYS =
      Arrays.stream(HostFacts.class.getRecordComponents()).map(HostKeys::key).toList();

  private static Key key(RecordComponent rc) {
    // @JsonProperty does not target record components, so javac puts it on the accessor
    JsonProperty p = rc.getAccessor().getAnnotation(JsonProperty.class);
    String name = p != null && !p.value().isEmpty() ? p.value() : rc.getName();
    Class<?> t = rc.getType();
    if (t != String.class && t != int.class && t != long.class && t != boolean.class) {
      throw new ExceptionInInitializerError("HostFacts." + rc.getName() + " has type " + t);
    }
    return new Key(name, t, rc.getAccessor());
  }

  static List<String> names() {
    return KEYS.stream().map(Key::key).toList();
  }

  /** The values in record order; each of the key's type. */
  static HostFacts create(Object[] values) {
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

  static Object value(Key k, HostFacts host) {
    try {
      return k.accessor().invoke(host);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("HostFacts." + k.accessor().getName(), e);
    }
  }
}
