package dev.strata.launcher.run;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Token bytes to text: whole UTF-8 characters as soon as their last byte comes; a character split
 * across tokens waits for the next one; malformed bytes become U+FFFD.
 */
final class Utf8Assembler {
  private final CharsetDecoder decoder =
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPLACE)
          .onUnmappableCharacter(CodingErrorAction.REPLACE);
  private ByteBuffer pending = ByteBuffer.allocate(64);

  /** The text the bytes complete (maybe empty). */
  String add(byte[] bytes) {
    if (pending.remaining() < bytes.length) {
      ByteBuffer bigger = ByteBuffer.allocate(pending.position() + bytes.length + 64);
      pending.flip();
      bigger.put(pending);
      pending = bigger;
    }
    pending.put(bytes);
    return drain(false);
  }

  /** The rest: an unfinished character as U+FFFD. */
  String finish() {
    String s = drain(true);
    CharBuffer tail = CharBuffer.allocate(4);
    decoder.flush(tail);
    tail.flip();
    decoder.reset();
    return s + tail;
  }

  private String drain(boolean end) {
    pending.flip();
    CharBuffer chars = CharBuffer.allocate(pending.remaining() + 4);
    decoder.decode(pending, chars, end);
    pending.compact();
    chars.flip();
    return chars.toString();
  }
}
