package dev.strata.engine.model;

import java.nio.ByteBuffer;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.SeekableByteChannel;

/**
 * A read-only channel over bytes in memory, so the fuzz and parser tests touch no disk; it may
 * return fewer bytes per read than asked for and claim a size larger than it holds, as a slow or
 * truncated file would.
 */
final class ByteArrayChannel implements SeekableByteChannel {
  private final byte[] bytes;
  private final int length;
  private final int chunk;
  private final long claimed;
  private long position;
  private boolean open = true;

  /** The first {@code length} bytes of {@code bytes}, each read as much as asked for. */
  ByteArrayChannel(byte[] bytes, int length) {
    this(bytes, length, Integer.MAX_VALUE, length);
  }

  /**
   * The first {@code has} bytes of {@code bytes}, at most {@code chunk} bytes per read, its {@link
   * #size()} {@code claimed}.
   */
  ByteArrayChannel(byte[] bytes, int has, int chunk, long claimed) {
    this.bytes = bytes;
    this.length = has;
    this.chunk = chunk;
    this.claimed = claimed;
  }

  @Override
  public int read(ByteBuffer dst) {
    if (position >= length) {
      return -1;
    }
    int n = (int) Math.min(Math.min(dst.remaining(), chunk), length - position);
    dst.put(bytes, (int) position, n);
    position += n;
    return n;
  }

  @Override
  public long position() {
    return position;
  }

  @Override
  public SeekableByteChannel position(long newPosition) {
    if (newPosition < 0) {
      throw new IllegalArgumentException("negative position");
    }
    position = newPosition;
    return this;
  }

  @Override
  public long size() {
    return claimed;
  }

  @Override
  public boolean isOpen() {
    return open;
  }

  @Override
  public void close() {
    open = false;
  }

  // read-only: the two ways to change the bytes are refused

  @Override
  public int write(ByteBuffer src) {
    throw new NonWritableChannelException();
  }

  @Override
  public SeekableByteChannel truncate(long size) {
    throw new NonWritableChannelException();
  }
}
