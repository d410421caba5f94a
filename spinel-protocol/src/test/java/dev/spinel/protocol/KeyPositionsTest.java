package dev.spinel.protocol;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Key positions from Redis 7.0's key specifications, decoded once per command: every command of the
 * table decodes, and each kind of spec (index + range, keyword, keynum, several specs, legacy, SORT)
 * finds the keys COMMAND GETKEYS gives in Redis.
 */
class KeyPositionsTest {
    private static int[] keys(String... argv) {
        return KeyPositions.of(CommandMetadata.get(argv[0].toLowerCase()), Args.of(argv));
    }

    @Test
    void everyCommandOfTheTableHasDecodedKeySpecs() {
        assertTrue(CommandMetadata.all().size() > 200);
        CommandMetadata.all().values().forEach(spec -> assertTrue(spec.keySpecs() != null, spec.name()));
    }

    @Test
    void findsKeysAsRedisGetkeysDoes() {
        assertArrayEquals(new int[] {1}, keys("SET", "k", "v"));
        assertArrayEquals(new int[] {1, 3, 5}, keys("MSET", "a", "1", "b", "2", "c", "3"));
        assertArrayEquals(new int[] {1, 2, 3}, keys("DEL", "a", "b", "c"));
        assertArrayEquals(new int[] {1, 3, 4}, keys("ZUNIONSTORE", "dst", "2", "a", "b", "WEIGHTS", "1", "2"));
        assertArrayEquals(new int[] {2, 3}, keys("LMPOP", "2", "l1", "l2", "LEFT"));
        assertArrayEquals(new int[] {1, 2}, keys("LMOVE", "src", "dst", "LEFT", "RIGHT"));
        assertArrayEquals(new int[] {1, 2}, keys("BLPOP", "a", "b", "0"));
        assertArrayEquals(new int[] {1, 6}, keys("SORT", "k", "LIMIT", "0", "1", "STORE", "d"));
        assertArrayEquals(new int[0], keys("PING"));
        // MIGRATE's key specs are incomplete: Redis routes and locks by its migrateGetKeys
        assertArrayEquals(new int[] {3}, keys("MIGRATE", "h", "1", "k", "0", "1000", "COPY"));
        assertArrayEquals(new int[] {11, 12}, keys("MIGRATE", "h", "1", "", "0", "1000", "AUTH2", "u", "p", "REPLACE", "KEYS", "a", "b"));
        assertArrayEquals(new int[0], keys("MIGRATE", "h", "1", "", "0", "1000", "KEYS"));
        assertArrayEquals(new int[0], keys("MIGRATE", "h", "1", "k", "0", "1000", "KEYS", "a")); // an error: no key
    }

    @Test
    void aNumkeysBeyondTheArgumentsIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> keys("ZUNION", "5", "a", "b"));
    }

    @Test
    void writtenKeysLeaveOutReadOnlySpecs() {
        assertArrayEquals(new int[] {2}, written("BITOP", "AND", "dest", "a", "b"));
        assertArrayEquals(new int[] {1}, written("SINTERSTORE", "dest", "a", "b"));
        assertArrayEquals(new int[] {2}, written("COPY", "src", "dst"));
        assertArrayEquals(new int[] {1, 2}, written("LMOVE", "a", "b", "LEFT", "RIGHT"));
        assertArrayEquals(new int[] {1, 3}, written("MSET", "a", "1", "b", "2"));
    }

    @Test
    void singleKeyAgreesWithTheSpecsForEveryCommand() {
        int found = 0;
        for (CommandSpec spec : CommandMetadata.all().values()) {
            for (int argc = 1; argc <= 8; argc++) {
                String[] argv = new String[argc];
                argv[0] = spec.name();
                for (int i = 1; i < argc; i++) {
                    argv[i] = "1"; // a number, so keynum specs read a count
                }
                Args a = Args.of(argv);
                int single = KeyPositions.singleKey(spec, a);
                if (single < 0) {
                    continue;
                }
                found++;
                assertArrayEquals(new int[] {single}, KeyPositions.of(spec, a), spec.name() + " with " + argc + " arguments");
            }
        }
        assertTrue(found > 500, found + " requests with a single key"); // SET, GET, INCR, HSET, LPUSH, ...
        assertEquals(1, KeyPositions.singleKey(CommandMetadata.get("set"), Args.of("SET", "k", "v")));
        assertEquals(-1, KeyPositions.singleKey(CommandMetadata.get("mset"), Args.of("MSET", "a", "1", "b", "2")));
        assertEquals(-1, KeyPositions.singleKey(CommandMetadata.get("sort"), Args.of("SORT", "k", "STORE", "d")));
        assertEquals(-1, KeyPositions.singleKey(CommandMetadata.get("lmove"), Args.of("LMOVE", "a", "b", "LEFT", "RIGHT")));
    }

    private static int[] written(String... argv) {
        return KeyPositions.written(CommandMetadata.get(argv[0].toLowerCase()), Args.of(argv));
    }
}
