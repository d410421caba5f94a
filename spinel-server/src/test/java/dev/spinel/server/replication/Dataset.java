package dev.spinel.server.replication;

import dev.spinel.server.testing.RawClient;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A server's dataset in databases 0 and 1, key by key, as comparable text: the type, the value (unordered
 * collections sorted) and the absolute expiry (PEXPIRETIME, exact since the stream carries absolute times).
 * A key that expires while it is read counts as absent, as on a server that reads it a moment later.
 */
final class Dataset {
    private Dataset() {
    }

    static Map<String, String> of(RawClient c) throws IOException {
        Map<String, String> all = new TreeMap<>();
        for (int db = 0; db <= 1; db++) {
            c.call("SELECT", Integer.toString(db));
            List<String> keys = ReplicationTest.Resp.parse(c.call("KEYS", "*"));
            for (String k : keys) {
                String type = ReplicationTest.Resp.parse(c.call("TYPE", k)).getFirst();
                if (type.equals("+none")) {
                    continue; // expired between KEYS and TYPE
                }
                String value = switch (type) {
                    case "+string" -> String.valueOf(ReplicationTest.Resp.parse(c.call("GET", k)));
                    case "+list" -> String.valueOf(ReplicationTest.Resp.parse(c.call("LRANGE", k, "0", "-1")));
                    case "+hash" -> pairsSorted(ReplicationTest.Resp.parse(c.call("HGETALL", k)));
                    case "+set" -> sorted(ReplicationTest.Resp.parse(c.call("SMEMBERS", k)));
                    case "+zset" -> String.valueOf(ReplicationTest.Resp.parse(c.call("ZRANGE", k, "0", "-1", "WITHSCORES")));
                    case "+stream" -> String.valueOf(ReplicationTest.Resp.parse(c.call("XRANGE", k, "-", "+")))
                            + ReplicationTest.Resp.parse(c.call("XINFO", "STREAM", k)).subList(0, 2);
                    default -> type;
                };
                String expiry = ReplicationTest.Resp.parse(c.call("PEXPIRETIME", k)).getFirst();
                if (expiry.equals(":-2")) {
                    continue; // expired after TYPE (a short TTL): what was read of it may be of no key
                }
                all.put(db + ":" + k, type + " " + value + " " + expiry);
            }
        }
        c.call("SELECT", "0");
        return all;
    }

    private static String sorted(List<String> v) {
        List<String> s = new ArrayList<>(v);
        Collections.sort(s);
        return s.toString();
    }

    private static String pairsSorted(List<String> v) {
        List<String> pairs = new ArrayList<>();
        for (int i = 0; i + 1 < v.size(); i += 2) {
            pairs.add(v.get(i) + "=" + v.get(i + 1));
        }
        Collections.sort(pairs);
        return pairs.toString();
    }
}
