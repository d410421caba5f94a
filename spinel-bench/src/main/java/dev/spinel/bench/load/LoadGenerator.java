package dev.spinel.bench.load;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.HdrHistogram.Histogram;

/**
 * Pipelined RESP load generator (plain NIO): {@code bench/load.sh --port 6379 --conns 32 --pipeline 30 ...}.
 *
 * <p>Each connection sends a batch of {@code pipeline} requests (SET or GET of a random key from the key space,
 * SET with probability {@code sets/(sets+gets)}), waits for all of their replies, then sends the next batch, as
 * redis-benchmark does. The latency of a request is the time from writing its batch to reading its reply, recorded
 * in an HdrHistogram (microseconds) after the warm-up. Connections are spread over {@code threads} selector
 * threads; each thread owns its connections and its histogram, merged at the end, so nothing is shared while
 * running.
 *
 * <p>Prints a human summary and one machine-readable line starting with {@code RESULT}.
 */
public final class LoadGenerator {

  private String host = "127.0.0.1";
  private int port = 6379;
  private int conns = 32;
  private int pipeline = 30;
  private int valueSize = 256;
  private int sets = 1;
  private int gets = 10;
  private int keySpace = 100_000;
  private double durationS = 10;
  private double warmupS = 2;
  private int threads = 1;

  public static void main(String[] argv) throws Exception {
    LoadGenerator g = new LoadGenerator();
    for (int i = 0; i < argv.length; i++) {
      String a = argv[i];
      String v = i + 1 < argv.length ? argv[i + 1] : null;
      switch (a) {
        case "--host" -> g.host = v;
        case "--port" -> g.port = Integer.parseInt(v);
        case "--conns", "-c" -> g.conns = Integer.parseInt(v);
        case "--pipeline", "-P" -> g.pipeline = Integer.parseInt(v);
        case "--value-size", "-d" -> g.valueSize = Integer.parseInt(v);
        case "--ratio" -> {
          String[] p = v.split(":");
          g.sets = Integer.parseInt(p[0]);
          g.gets = Integer.parseInt(p[1]);
        }
        case "--keys" -> g.keySpace = Integer.parseInt(v);
        case "--duration" -> g.durationS = Double.parseDouble(v);
        case "--warmup" -> g.warmupS = Double.parseDouble(v);
        case "--threads" -> g.threads = Integer.parseInt(v);
        case "--help", "-h" -> {
          System.out.println("options: --host H --port P --conns N --pipeline N --value-size B --ratio SET:GET"
              + " --keys N --duration S --warmup S --threads N");
          return;
        }
        default -> throw new IllegalArgumentException("unknown option " + a);
      }
      i++;
    }
    g.run();
  }

  private void run() throws Exception {
    if (sets + gets <= 0 || pipeline < 1 || conns < 1 || threads < 1) {
      throw new IllegalArgumentException("bad ratio/pipeline/conns/threads");
    }
    threads = Math.min(threads, conns);
    byte[] value = new byte[valueSize];
    Arrays.fill(value, (byte) 'x');
    Worker[] workers = new Worker[threads];
    for (int t = 0; t < threads; t++) {
      int n = conns / threads + (t < conns % threads ? 1 : 0);
      workers[t] = new Worker(t, n, value);
    }
    for (Worker w : workers) {
      w.connect();
    }
    CountDownLatch done = new CountDownLatch(threads);
    long start = System.nanoTime();
    long warmEnd = start + (long) (warmupS * 1e9);
    long end = warmEnd + (long) (durationS * 1e9);
    for (Worker w : workers) {
      Thread th = new Thread(() -> {
        try {
          w.loop(warmEnd, end);
        } catch (IOException e) {
          w.failure = e;
        } finally {
          done.countDown();
        }
      }, "load-" + w.id);
      th.start();
    }
    done.await();
    Histogram all = new Histogram(3_600_000_000L, 3);
    long ops = 0;
    long errors = 0;
    long setOps = 0;
    for (Worker w : workers) {
      if (w.failure != null) {
        throw w.failure;
      }
      all.add(w.histogram);
      ops += w.measuredOps;
      errors += w.errors;
      setOps += w.measuredSets;
      w.close();
    }
    double secs = durationS;
    double rate = ops / secs;
    System.out.printf(Locale.ROOT,
        "%s:%d conns=%d pipeline=%d value=%dB ratio=%d:%d keys=%d threads=%d duration=%.1fs%n",
        host, port, conns, pipeline, valueSize, sets, gets, keySpace, threads, secs);
    System.out.printf(Locale.ROOT,
        "ops/s %.0f (SET %d, GET %d, errors %d)  latency ms: p50 %.3f  p99 %.3f  p99.9 %.3f  max %.3f%n",
        rate, setOps, ops - setOps, errors, ms(all, 50), ms(all, 99), ms(all, 99.9), all.getMaxValue() / 1000.0);
    System.out.printf(Locale.ROOT, "RESULT ops_s=%.0f p50_ms=%.3f p99_ms=%.3f p999_ms=%.3f max_ms=%.3f errors=%d%n",
        rate, ms(all, 50), ms(all, 99), ms(all, 99.9), all.getMaxValue() / 1000.0, errors);
  }

  private static double ms(Histogram h, double pct) {
    return h.getValueAtPercentile(pct) / 1000.0;
  }

  /** One selector thread and its connections; confined to its thread after {@link #connect}. */
  private final class Worker {
    final int id;
    final Conn[] conns;
    final Selector selector;
    final Histogram histogram = new Histogram(3_600_000_000L, 3);
    final SplittableRandom random;
    final byte[] value;
    long measuredOps;
    long measuredSets;
    long errors;
    IOException failure;
    boolean measuring;

    Worker(int id, int n, byte[] value) throws IOException {
      this.id = id;
      this.conns = new Conn[n];
      this.selector = Selector.open();
      this.random = new SplittableRandom(0x5eed + id);
      this.value = value;
    }

    void connect() throws IOException {
      for (int i = 0; i < conns.length; i++) {
        SocketChannel ch = SocketChannel.open(new InetSocketAddress(host, port));
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ch.configureBlocking(false);
        Conn c = new Conn(ch);
        c.key = ch.register(selector, SelectionKey.OP_READ, c);
        conns[i] = c;
      }
    }

    void loop(long warmEnd, long end) throws IOException {
      for (Conn c : conns) {
        sendBatch(c, System.nanoTime());
      }
      while (true) {
        long now = System.nanoTime();
        if (now >= end) {
          return;
        }
        measuring = now >= warmEnd;
        selector.select(100);
        var it = selector.selectedKeys().iterator();
        while (it.hasNext()) {
          SelectionKey k = it.next();
          it.remove();
          Conn c = (Conn) k.attachment();
          if (k.isWritable()) {
            flush(c);
          }
          if (k.isReadable()) {
            read(c);
          }
        }
      }
    }

    void sendBatch(Conn c, long now) throws IOException {
      ByteBuffer out = c.out;
      out.clear();
      int total = sets + gets;
      for (int i = 0; i < pipeline; i++) {
        boolean set = random.nextInt(total) < sets;
        c.isSet[i] = set;
        int key = random.nextInt(keySpace);
        if (set) {
          out.put(SET_HEAD);
        } else {
          out.put(GET_HEAD);
        }
        putKey(out, key);
        if (set) {
          out.put((byte) '$');
          putAscii(out, Integer.toString(value.length));
          out.put(CRLF).put(value).put(CRLF);
        }
      }
      out.flip();
      c.sentAt = now;
      c.pending = pipeline;
      c.received = 0;
      flush(c);
    }

    void flush(Conn c) throws IOException {
      c.ch.write(c.out);
      int ops = c.out.hasRemaining() ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_READ;
      if (c.key.interestOps() != ops) {
        c.key.interestOps(ops);
      }
    }

    void read(Conn c) throws IOException {
      ByteBuffer in = c.in;
      in.clear();
      int n = c.ch.read(in);
      if (n < 0) {
        throw new IOException("server closed the connection");
      }
      in.flip();
      while (in.hasRemaining()) {
        if (c.parse(in)) {
          long now = System.nanoTime();
          if (c.lastWasError) {
            errors++;
          }
          if (measuring) {
            histogram.recordValue(Math.max(1, (now - c.sentAt) / 1000));
            measuredOps++;
            if (c.isSet[c.received]) {
              measuredSets++;
            }
          }
          c.received++;
          if (c.received == c.pending) {
            sendBatch(c, now);
            // the remaining input (if any) cannot belong to this connection's new batch yet
          }
        }
      }
    }

    void close() throws IOException {
      for (Conn c : conns) {
        c.ch.close();
      }
      selector.close();
    }
  }

  private static final byte[] SET_HEAD = "*3\r\n$3\r\nSET\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] GET_HEAD = "*2\r\n$3\r\nGET\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] CRLF = {'\r', '\n'};

  /** Keys are "key:" + 12 digits (16 bytes), like redis-benchmark's key:__rand_int__. */
  private static void putKey(ByteBuffer out, int key) {
    out.put((byte) '$').put((byte) '1').put((byte) '6').put(CRLF);
    out.put((byte) 'k').put((byte) 'e').put((byte) 'y').put((byte) ':');
    long div = 100_000_000_000L;
    long k = key;
    for (int i = 0; i < 12; i++) {
      out.put((byte) ('0' + (k / div) % 10));
      div /= 10;
    }
    out.put(CRLF);
  }

  private static void putAscii(ByteBuffer out, String s) {
    for (int i = 0; i < s.length(); i++) {
      out.put((byte) s.charAt(i));
    }
  }

  /** One connection's buffers and incremental reply parser state; used by one worker thread only. */
  private final class Conn {
    final SocketChannel ch;
    SelectionKey key;
    final ByteBuffer out;
    final ByteBuffer in = ByteBuffer.allocateDirect(64 * 1024);
    final boolean[] isSet = new boolean[pipeline];
    long sentAt;
    int pending;
    int received;
    // parser: 0 = at type byte, 1 = in a line (simple/error/integer), 2 = in a bulk length, 3 = in bulk body
    int state;
    long bulkLen;
    boolean negative;
    long bodyLeft;
    boolean lastWasError;
    boolean sawCr;

    Conn(SocketChannel ch) {
      this.ch = ch;
      this.out = ByteBuffer.allocateDirect(pipeline * (valueSize + 64) + 64);
    }

    /** Consumes bytes until one complete reply has been read (true) or the input is exhausted (false). */
    boolean parse(ByteBuffer in) throws IOException {
      while (in.hasRemaining()) {
        switch (state) {
          case 0 -> {
            byte t = in.get();
            lastWasError = t == '-';
            sawCr = false;
            if (t == '$') {
              state = 2;
              bulkLen = 0;
              negative = false;
            } else if (t == '+' || t == '-' || t == ':') {
              state = 1;
            } else {
              throw new IOException("unexpected reply type byte " + (char) t);
            }
          }
          case 1 -> {
            if (in.get() == '\n') {
              state = 0;
              return true;
            }
          }
          case 2 -> {
            byte b = in.get();
            if (b == '-') {
              negative = true;
            } else if (b >= '0' && b <= '9') {
              bulkLen = bulkLen * 10 + (b - '0');
            } else if (b == '\n') {
              if (negative) {
                state = 0;
                return true;
              }
              bodyLeft = bulkLen + 2;
              state = 3;
            }
          }
          default -> {
            int skip = (int) Math.min(bodyLeft, in.remaining());
            in.position(in.position() + skip);
            bodyLeft -= skip;
            if (bodyLeft == 0) {
              state = 0;
              return true;
            }
          }
        }
      }
      return false;
    }
  }
}
