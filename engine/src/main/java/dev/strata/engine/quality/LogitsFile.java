package dev.strata.engine.quality;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * llama-perplexity's {@code --kl-divergence-base} file ({@code _logits_}; bench/llamacpp/README.md,
 * "File formats"): {@code char[8] "_logits_", int32 n_ctx, n_vocab, n_chunk, int32
 * tokens[n_chunk·n_ctx]}, then per scored position {@code float32 scale, float32 min_log_prob,
 * uint16 q[n_vocab]} (+1 uint16 when n_vocab is odd), all little-endian. The quantization is
 * perplexity.cpp's {@code log_softmax(n_vocab, logits, log_prob, tok)}, float by float.
 */
public final class LogitsFile {
  public static final String MAGIC = "_logits_";
  private static final int HEADER = 20;

  private LogitsFile() {}

  /** uint16 slots of one record: {@code 2·⌈n_vocab/2⌉ + 4}. */
  public static int slots(int nVocab) {
    return 2 * ((nVocab + 1) / 2) + 4;
  }

  /**
   * One record of raw logits (or log-probs: the result is shift-invariant), as perplexity.cpp
   * writes it.
   */
  public static void quantize(float[] logits, ByteBuffer rec) {
    int n = logits.length;
    float max = logits[0];
    float min = logits[0];
    for (int i = 1; i < n; i++) {
      max = Math.max(max, logits[i]);
      min = Math.min(min, logits[i]);
    }
    min = Math.max(min, max - 16f);
    double sum = 0;
    for (float l : logits) {
      sum += (float) Math.exp(l - max);
    }
    float lse = (float) Math.log(sum);
    float minLogProb = (min - max) - lse;
    float scale = (max - min) / 65535f;
    int base = rec.position();
    rec.putFloat(base, scale);
    rec.putFloat(base + 4, minLogProb);
    int slots = slots(n) - 4;
    for (int i = 0; i < slots; i++) {
      int q = 0;
      if (i < n && scale != 0 && logits[i] > min) {
        float inv = 1f / scale;
        q = (int) Math.min(65535, Math.rint(inv * (logits[i] - min)));
      }
      rec.putShort(base + 8 + 2 * i, (short) q);
    }
    rec.position(base + 2 * slots(n));
  }

  /** Writes records as they come; {@link #finish} makes the file (header, tokens, records). */
  public static final class Writer implements AutoCloseable {
    private final Path file;
    private final Path part;
    private final OutputStream records;
    private final int nCtx;
    private final int nVocab;
    private final ByteBuffer rec;
    private int[] tokens = new int[0];
    private int chunks;

    public Writer(Path file, int nCtx, int nVocab) throws IOException {
      this.file = file;
      this.part = file.resolveSibling(file.getFileName() + ".records.part");
      this.records = new BufferedOutputStream(Files.newOutputStream(part), 1 << 20);
      this.nCtx = nCtx;
      this.nVocab = nVocab;
      this.rec = ByteBuffer.allocate(2 * slots(nVocab)).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** One scored position's logits. */
    public void record(float[] logits) throws IOException {
      rec.clear();
      quantize(logits, rec);
      records.write(rec.array(), 0, rec.capacity());
    }

    /** The chunk whose records were just written is complete. */
    public void chunk(int[] chunkTokens) {
      int[] t = java.util.Arrays.copyOf(tokens, tokens.length + nCtx);
      System.arraycopy(chunkTokens, 0, t, tokens.length, nCtx);
      tokens = t;
      chunks++;
    }

    /** Writes the file of the completed chunks (records of an unfinished chunk are dropped). */
    public void finish(int scoredPerChunk) throws IOException {
      records.close();
      Path tmp = file.resolveSibling(file.getFileName() + ".part");
      try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 20);
          InputStream in = new BufferedInputStream(Files.newInputStream(part), 1 << 20)) {
        ByteBuffer h =
            ByteBuffer.allocate(HEADER + 4 * tokens.length).order(ByteOrder.LITTLE_ENDIAN);
        h.put(MAGIC.getBytes(StandardCharsets.US_ASCII)).putInt(nCtx).putInt(nVocab).putInt(chunks);
        for (int t : tokens) {
          h.putInt(t);
        }
        out.write(h.array());
        long keep = (long) chunks * scoredPerChunk * rec.capacity();
        byte[] buf = new byte[1 << 16];
        while (keep > 0) {
          int r = in.read(buf, 0, (int) Math.min(buf.length, keep));
          if (r < 0) {
            throw new IOException("the records file ended early");
          }
          out.write(buf, 0, r);
          keep -= r;
        }
      }
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      Files.deleteIfExists(part);
    }

    @Override
    public void close() throws IOException {
      records.close();
      Files.deleteIfExists(part);
    }
  }

  /** A {@code _logits_} file read back: its header, tokens, and records one by one. */
  public static final class Reader implements AutoCloseable {
    public final int nCtx;
    public final int nVocab;
    public final int nChunk;
    public final int first;
    public final int[] tokens;
    private final InputStream in;
    private final ByteBuffer rec;

    /**
     * @throws BadInput when the file is not a whole {@code _logits_} file
     */
    public Reader(Path file) throws IOException {
      long size = Files.size(file);
      in = new BufferedInputStream(Files.newInputStream(file), 1 << 20);
      try {
        byte[] h = in.readNBytes(HEADER);
        ByteBuffer b = ByteBuffer.wrap(h).order(ByteOrder.LITTLE_ENDIAN);
        if (h.length < HEADER || !MAGIC.equals(new String(h, 0, 8, StandardCharsets.US_ASCII))) {
          throw new BadInput(
              file + " is not a llama-perplexity _logits_ file (no _logits_ header)");
        }
        nCtx = b.getInt(8);
        nVocab = b.getInt(12);
        nChunk = b.getInt(16);
        if (nCtx < 2 || nVocab < 1 || nChunk < 1 || (long) nCtx * nChunk > (1L << 28)) {
          throw new BadInput(
              file
                  + ": implausible header (n_ctx "
                  + nCtx
                  + ", n_vocab "
                  + nVocab
                  + ", n_chunk "
                  + nChunk
                  + ")");
        }
        long recBytes = 2L * slots(nVocab);
        long body = size - HEADER - 4L * nCtx * nChunk;
        if (body <= 0 || body % (recBytes * nChunk) != 0) {
          throw new BadInput(file + ": its size does not fit whole records for its header");
        }
        int scored = (int) (body / (recBytes * nChunk));
        first = nCtx - 1 - scored;
        if (first < 0) {
          throw new BadInput(file + ": more records per chunk than positions");
        }
        byte[] t = in.readNBytes(4 * nCtx * nChunk);
        ByteBuffer tb = ByteBuffer.wrap(t).order(ByteOrder.LITTLE_ENDIAN);
        tokens = new int[nCtx * nChunk];
        for (int i = 0; i < tokens.length; i++) {
          tokens[i] = tb.getInt();
        }
        rec = ByteBuffer.allocate((int) recBytes).order(ByteOrder.LITTLE_ENDIAN);
      } catch (IOException | RuntimeException e) {
        in.close();
        throw e;
      }
    }

    /** Scored positions per chunk. */
    public int scored() {
      return nCtx - 1 - first;
    }

    /**
     * The next record's log-probs ({@code scale·q + min_log_prob}) into {@code out}; its argmax.
     */
    public int next(double[] out) throws IOException {
      byte[] a = rec.array();
      if (in.readNBytes(a, 0, a.length) != a.length) {
        throw new IOException("the _logits_ file ended early");
      }
      float scale = rec.getFloat(0);
      float min = rec.getFloat(4);
      int best = 0;
      int bestQ = -1;
      for (int i = 0; i < nVocab; i++) {
        int q = rec.getShort(8 + 2 * i) & 0xffff;
        if (q > bestQ) {
          bestQ = q;
          best = i;
        }
        out[i] = (double) scale * q + min;
      }
      return best;
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }

  /** Input the user gave that cannot be used: one line, exit 2. */
  public static final class BadInput extends dev.strata.engine.StrataException {
    private static final long serialVersionUID = 1L;

    public BadInput(String message) {
      super(dev.strata.engine.ExitCodes.USAGE, message);
    }
  }
}
