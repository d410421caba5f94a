package dev.spinel.server.commands.key;

import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Entry;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Keyspace;
import dev.spinel.store.Segment;
import dev.spinel.store.types.CollectionSettings;
import dev.spinel.store.types.ListValue;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link Keys#replyString} writes a string straight from its entry into the reply, also when the reply buffer must
 * grow to hold it (a script's reply starts empty: the bytes once went to the array from before the growth).
 */
class KeysReplyStringTest {
    @Test
    void repliesEveryLengthIntoAGrowingBuffer() {
        Keyspace ks = new Keyspace(1);
        Segment seg = ks.db(0).segmentAt(0);
        seg.lock();
        try {
            List<Entry> entries = new ArrayList<>();
            StringBuilder expected = new StringBuilder();
            for (int len = 0; len <= 700; len += len < 60 ? 1 : 97) {
                byte[] key = ("k" + len).getBytes(StandardCharsets.US_ASCII);
                String value = "x".repeat(len);
                entries.add(seg.put(key, KeyHash.hash(key), value.getBytes(StandardCharsets.US_ASCII), -1));
                expected.append('$').append(len).append("\r\n").append(value).append("\r\n");
            }
            ReplyBuffer out = new ReplyBuffer(); // no array yet: the first replies grow it
            for (Entry e : entries) {
                Keys.replyString(out, e);
            }
            assertEquals(expected.toString(), new String(out.array(), 0, out.size(), StandardCharsets.US_ASCII));
            byte[] listKey = {'l'};
            Entry list = seg.put(listKey, KeyHash.hash(listKey), new ListValue(CollectionSettings.DEFAULTS), -1);
            int before = out.size();
            assertThrows(RedisError.class, () -> Keys.replyString(out, list));
            assertEquals(before, out.size(), "nothing written before WRONGTYPE");
        } finally {
            seg.unlock();
        }
    }
}
