package dev.strata.engine.model;

import java.nio.ByteBuffer;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.SeekableByteChannel;

/** A read-only channel over bytes in memory, so the fuzz test touches no disk. */
final class ByteArrayChannel implements SeekableByteChannel {
  private final byte[] bytes;
  private final int length;
  private long position;
  private boolean open = true;

  ByteArrayChannel(byte[] bytes, int length) {
    this.bytes = bytes;
    this.length = length;
  }

  @Override
  public int read(ByteBuffer dst) {
    if (position >= length) {
      return -1;
    }
    int n = (int) Math.min(dst.remaining(), length - position);
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
    return length;
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
