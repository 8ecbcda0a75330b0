package dev.strata.engine.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * The constants of an enum by the id a GGUF file writes for them, where the ids have gaps: ggml's
 * {@code enum ggml_type} ({@link GgmlType}), whose removed types left holes. One slot per id up to
 * the largest; a gap, a negative id or one past the largest reads as null, which the reader turns
 * into its "unknown type" message.
 *
 * @param <E> the enum
 */
final class IdIndex<E> {
  private final List<E> byId;

  /**
   * @param constants every constant ({@code values()})
   * @param id the id a file writes for a constant (ids must be distinct and non-negative)
   */
  IdIndex(E[] constants, ToIntFunction<E> id) {
    int largest = -1;
    for (E e : constants) {
      largest = Math.max(largest, id.applyAsInt(e));
    }
    List<E> slots = new ArrayList<>(Collections.nCopies(largest + 1, null));
    for (E e : constants) {
      if (slots.set(id.applyAsInt(e), e) != null) {
        throw new IllegalArgumentException("two constants have id " + id.applyAsInt(e));
      }
    }
    byId = Collections.unmodifiableList(slots);
  }

  /** The constant a file id stands for, or null when none does. */
  E get(long id) {
    return id >= 0 && id < byId.size() ? byId.get((int) id) : null;
  }
}
