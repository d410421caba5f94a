package dev.spinel.server.replication;

import dev.spinel.server.testing.RawClient;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

/**
 * Writes of every data type to a master, pipelined: strings with relative and absolute expiries, counters
 * and floats, lists, hashes, sets (SPOP: random, so the stream must carry what was popped), sorted sets,
 * streams (XADD *: generated IDs), EXPIRE/PERSIST, DEL/RENAME, MULTI/EXEC blocks, writes in database 1, a
 * script (replicated as its effects), store commands (SINTERSTORE, ZUNIONSTORE, SORT STORE), HyperLogLogs.
 */
final class Workload {
    private Workload() {
    }

    static void run(RawClient c, Random r, int n) throws IOException {
        int sent = 0;
        for (int i = 0; i < n; i++) {
            String k = "k" + r.nextInt(60);
            String v = "v" + r.nextInt(1000);
            switch (r.nextInt(33)) {
                case 0 -> send(c, "SET", "s:" + k, v);
                case 1 -> send(c, "SET", "s:" + k, v, "EX", Integer.toString(100 + r.nextInt(1000)));
                case 2 -> send(c, "SETEX", "s:" + k, "500", v);
                case 3 -> send(c, "INCRBY", "n:" + k, Integer.toString(r.nextInt(100)));
                case 4 -> send(c, "INCRBYFLOAT", "f:" + k, "1.5");
                case 5 -> send(c, "APPEND", "s:" + k, v);
                case 6 -> send(c, "RPUSH", "l:" + k, v, v + "x");
                case 7 -> send(c, "LPOP", "l:" + k);
                case 8 -> send(c, "HSET", "h:" + k, "f" + r.nextInt(10), v);
                case 9 -> send(c, "HINCRBYFLOAT", "h:" + k, "g", "0.25");
                case 10 -> send(c, "SADD", "set:" + k, v, "m" + r.nextInt(20));
                case 11 -> send(c, "SPOP", "set:" + k);
                case 12 -> send(c, "ZADD", "z:" + k, Integer.toString(r.nextInt(100)), v);
                case 13 -> send(c, "ZINCRBY", "z:" + k, "2.5", v);
                case 14 -> send(c, "XADD", "x:" + k, "MAXLEN", "~", "50", "*", "f", v);
                case 15 -> send(c, "EXPIRE", "s:" + k, Integer.toString(200 + r.nextInt(100)));
                case 16 -> send(c, "PEXPIREAT", "h:" + k, Long.toString(System.currentTimeMillis() + 600_000));
                case 17 -> send(c, "PERSIST", "s:" + k);
                case 18 -> send(c, "DEL", "l:" + k);
                case 19 -> send(c, "RENAME", "n:" + k, "n:renamed" + r.nextInt(5));
                case 20 -> {
                    send(c, "MULTI");
                    send(c, "INCR", "n:tx");
                    send(c, "LPUSH", "l:tx", v);
                    send(c, "SET", "s:tx", v, "PX", "900000");
                    send(c, "EXEC");
                    sent += 4;
                }
                case 21 -> {
                    send(c, "SELECT", "1");
                    send(c, "SET", "db1:" + k, v);
                    send(c, "SELECT", "0");
                    sent += 2;
                }
                case 22 -> send(c, "SET", "short:" + k, v, "PX", "1"); // expires at once: either end may drop it
                case 23 -> send(c, "EVAL", "redis.call('incr', KEYS[1]); return redis.call('rpush', KEYS[2], ARGV[1])", "2", "n:lua", "l:lua", v);
                case 24 -> send(c, "SPOP", "set:" + k, "3");
                case 25 -> send(c, "SINTERSTORE", "set:inter", "set:" + k, "set:k1");
                case 26 -> send(c, "ZUNIONSTORE", "z:union", "2", "z:" + k, "z:k1", "WEIGHTS", "1", "2.5");
                case 27 -> send(c, "LMOVE", "l:" + k, "l:moved", "LEFT", "RIGHT");
                case 28 -> send(c, "PFADD", "hll:" + k, v, "a", "b");
                case 29 -> send(c, "SETRANGE", "s:" + k, Integer.toString(r.nextInt(10)), v);
                case 30 -> send(c, "ZPOPMIN", "z:" + k);
                case 31 -> send(c, "SORT", "l:" + k, "ALPHA", "STORE", "l:sorted");
                default -> send(c, "GETEX", "s:" + k, "EX", "700");
            }
            sent++;
            if (sent >= 64) {
                drain(c, sent);
                sent = 0;
            }
        }
        drain(c, sent);
    }

    private static void send(RawClient c, String... args) throws IOException {
        c.send(Arrays.stream(args).map(s -> s.getBytes(StandardCharsets.UTF_8)).toList());
    }

    private static void drain(RawClient c, int n) throws IOException {
        for (int i = 0; i < n; i++) {
            c.readReply();
        }
    }
}
