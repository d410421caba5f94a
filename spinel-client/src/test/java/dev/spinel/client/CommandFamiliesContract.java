package dev.spinel.client;

import dev.spinel.client.testing.TestServer;
import dev.spinel.protocol.RespValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The typed commands of each family, through a RESP3 client and a RESP2 client (replies differ in
 * shape: maps, doubles, scored pairs). A family the server does not implement yet is skipped, not passed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class CommandFamiliesContract {
    private TestServer server;
    private SpinelClient<String, String> resp3;
    private SpinelClient<String, String> resp2;

    protected abstract TestServer startServer();

    @BeforeAll
    void start() {
        server = startServer();
        resp3 = SpinelClient.create(server.uri());
        resp2 = SpinelClient.create(server.uri(), ClientOptions.defaults().withResp3(false));
    }

    @AfterAll
    void stop() {
        resp3.close();
        resp2.close();
        server.close();
    }

    private SyncCommands<String, String> client(boolean useResp3, String... commands) {
        SyncCommands<String, String> s = (useResp3 ? resp3 : resp2).sync();
        for (String c : commands) {
            try {
                s.execute(c);
            } catch (ServerErrorException e) {
                assumeTrue(!e.getMessage().startsWith("ERR unknown command"), server.name() + " does not implement " + c + " yet");
            }
        }
        s.del(keys(useResp3, "a", "b", "c", "d"));
        return s;
    }

    private static String[] keys(boolean useResp3, String... names) {
        String[] out = new String[names.length];
        for (int i = 0; i < names.length; i++) {
            out[i] = (useResp3 ? "r3:" : "r2:") + names[i];
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void strings(boolean r3) {
        SyncCommands<String, String> s = client(r3, "SETEX", "SETNX", "GETSET", "GETDEL", "MGET", "MSET", "MSETNX", "INCR", "INCRBY",
                "DECR", "DECRBY", "INCRBYFLOAT", "APPEND", "STRLEN", "GETRANGE", "SETRANGE", "TTL", "PSETEX", "PTTL");
        String[] k = keys(r3, "a", "b", "c", "d");
        assertEquals("OK", s.setex(k[0], 100, "v"));
        assertTrue(s.ttl(k[0]) > 90);
        assertEquals("OK", s.psetex(k[0], 100_000, "v"));
        assertFalse(s.setnx(k[0], "other"));
        assertTrue(s.setnx(k[1], "b"));
        assertEquals("b", s.getset(k[1], "b2"));
        assertEquals("b2", s.getdel(k[1]));
        assertNull(s.getdel(k[1]));
        assertEquals(Arrays.asList("v", null), s.mget(k[0], k[1]));
        assertEquals("OK", s.mset(Map.of(k[1], "1", k[2], "2")));
        assertFalse(s.msetnx(Map.of(k[1], "x", k[3], "y")));
        assertEquals(2L, s.incr(k[1]));
        assertEquals(12L, s.incrby(k[1], 10));
        assertEquals(11L, s.decr(k[1]));
        assertEquals(1L, s.decrby(k[1], 10));
        assertEquals(3.5, s.incrbyfloat(k[1], 2.5));
        ServerErrorException e = assertThrows(ServerErrorException.class, () -> s.incr(k[0]));
        assertEquals("ERR value is not an integer or out of range", e.getMessage());
        assertEquals(3L, s.append(k[0], "wx"));
        assertEquals(3L, s.strlen(k[0]));
        assertEquals("vw", s.getrange(k[0], 0, 1));
        assertEquals(5L, s.setrange(k[0], 3, "yz"));
        assertEquals("vwxyz", s.get(k[0]));
        // SET with options
        assertNull(s.set(k[0], "no", SetArgs.none().nx()));
        assertNull(s.set(k[3], "no", SetArgs.none().xx()));
        assertEquals("OK", s.set(k[3], "yes", SetArgs.none().nx().ex(100)));
        assertTrue(s.ttl(k[3]) > 90);
        assertEquals("OK", s.set(k[3], "kept", SetArgs.none().xx().keepTtl()));
        assertTrue(s.ttl(k[3]) > 90);
        assertEquals("OK", s.set(k[3], "p", SetArgs.none().px(500_000)));
        assertTrue(s.pttl(k[3]) > 400_000);
        assertEquals("OK", s.set(k[3], "at", SetArgs.none().pxAt(System.currentTimeMillis() + 600_000)));
        assertTrue(s.pttl(k[3]) > 500_000);
        ServerErrorException syntax = assertThrows(ServerErrorException.class, () -> s.set(k[3], "x", SetArgs.none().ex(0)));
        assertEquals("ERR invalid expire time in 'set' command", syntax.getMessage());
        assertEquals("at", s.get(k[3]));
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void bitmaps(boolean r3) {
        SyncCommands<String, String> s = client(r3, "SETBIT", "GETBIT", "BITCOUNT", "BITPOS", "BITOP", "BITFIELD", "BITFIELD_RO");
        String[] k = keys(r3, "a", "b", "c", "d");
        assertEquals(0L, s.setbit(k[0], 1, 1));
        assertEquals(1L, s.setbit(k[0], 1, 1));
        assertEquals(0L, s.setbit(k[0], 15, 1));
        assertEquals(1L, s.getbit(k[0], 15));
        assertEquals(0L, s.getbit(k[0], 1000));
        assertEquals("@\u0001", s.get(k[0]));
        assertEquals(2L, s.bitcount(k[0]));
        assertEquals(1L, s.bitcount(k[0], 1, -1));
        assertEquals(1L, s.bitcount(k[0], 0, 7, true));
        assertEquals(1L, s.bitpos(k[0], 1));
        assertEquals(15L, s.bitpos(k[0], 1, 1));
        assertEquals(15L, s.bitpos(k[0], 1, 2, -1, true));
        assertEquals(-1L, s.bitpos(k[0], 0, 15, 15, true));
        assertEquals(0L, s.bitpos(k[3], 0));
        ServerErrorException bit = assertThrows(ServerErrorException.class, () -> s.setbit(k[0], 0, 2));
        assertEquals("ERR bit is not an integer or out of range", bit.getMessage());
        assertEquals(0L, s.setbit(k[1], 0, 1));
        assertEquals(2L, s.bitop(BitOperation.OR, k[2], k[0], k[1]));
        assertEquals(3L, s.bitcount(k[2]));
        assertEquals(2L, s.bitop(BitOperation.NOT, k[2], k[0]));
        assertEquals(0L, s.bitop(BitOperation.AND, k[2], k[3]));
        assertEquals(0L, s.exists(k[2]));
        assertEquals(Arrays.asList(0L, -100L, 156L, null, 255L, 3L),
                s.bitfield(k[2], BitFieldArgs.create()
                        .set(BitFieldArgs.signed(8), 0, -100)
                        .get(BitFieldArgs.signed(8), 0)
                        .get(BitFieldArgs.unsigned(8), "#0")
                        .overflow(BitFieldArgs.Overflow.FAIL).incrby(BitFieldArgs.unsigned(8), 8, 256)
                        .overflow(BitFieldArgs.Overflow.SAT).incrby(BitFieldArgs.unsigned(8), 8, 256)
                        .get(BitFieldArgs.unsigned(2), 14)));
        assertEquals(List.of(-100L, 255L), s.bitfieldRo(k[2], BitFieldArgs.create().get("i8", 0).get("u8", "#1")));
        assertEquals(List.of(), s.bitfield(k[2], BitFieldArgs.create()));
        ServerErrorException ro = assertThrows(ServerErrorException.class,
                () -> s.bitfieldRo(k[2], BitFieldArgs.create().set("u8", 0, 1)));
        assertEquals("ERR BITFIELD_RO only supports the GET subcommand", ro.getMessage());
        ServerErrorException type = assertThrows(ServerErrorException.class,
                () -> s.bitfield(k[2], BitFieldArgs.create().get("u64", 0)));
        assertEquals("ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.",
                type.getMessage());
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void keys(boolean r3) {
        SyncCommands<String, String> s = client(r3, "EXISTS", "EXPIRE", "PEXPIRE", "PERSIST", "TTL", "PTTL", "TYPE", "RENAME",
                "RENAMENX", "KEYS", "UNLINK", "TOUCH", "EXPIREAT", "SCAN");
        String[] k = keys(r3, "a", "b", "c", "d");
        s.set(k[0], "1");
        s.set(k[1], "2");
        assertEquals(2L, s.exists(k[0], k[1], k[2]));
        assertEquals(-1L, s.ttl(k[0]));
        assertEquals(-2L, s.ttl(k[2]));
        assertTrue(s.expire(k[0], 100));
        assertFalse(s.expire(k[2], 100));
        assertTrue(s.pttl(k[0]) > 90_000);
        assertTrue(s.persist(k[0]));
        assertTrue(s.pexpire(k[0], 100_000));
        assertTrue(s.expireat(k[1], System.currentTimeMillis() / 1000 + 1000));
        assertEquals("string", s.type(k[0]));
        assertEquals("none", s.type(k[2]));
        assertEquals("OK", s.rename(k[0], k[2]));
        assertFalse(s.renamenx(k[2], k[1]));
        assertEquals(List.of(k[2]), s.keys(k[2].substring(0, 3) + "c*"));
        assertEquals(2L, s.touch(k[1], k[2]));
        assertEquals(2L, s.unlink(k[1], k[2]));
        assertThrows(ServerErrorException.class, () -> s.rename(k[3], k[0]));
        // SCAN pages through every key once iteration finishes
        String prefix = (r3 ? "scan3:" : "scan2:");
        Set<String> expected = new TreeSet<>();
        for (int i = 0; i < 25; i++) {
            s.set(prefix + i, "x");
            expected.add(prefix + i);
        }
        Set<String> seen = new TreeSet<>();
        String cursor = ScanCursor.START;
        int pages = 0;
        do {
            ScanCursor<String> page = s.scan(cursor, prefix + "*", 5);
            seen.addAll(page.items());
            cursor = page.cursor();
            pages++;
        } while (!cursor.equals("0") && pages < 10_000);
        assertEquals(expected, seen);
        assertTrue(s.scan(ScanCursor.START).items().size() > 0);
        s.del(expected.toArray(new String[0]));
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void lists(boolean r3) {
        SyncCommands<String, String> s = client(r3, "LPUSH", "RPUSH", "LRANGE", "LLEN", "LINDEX", "LSET", "LREM", "LTRIM", "LPOP",
                "RPOP", "RPOPLPUSH", "LPUSHX", "RPUSHX", "LINSERT", "LPOS", "LMOVE");
        String[] k = keys(r3, "a", "b", "c", "d");
        assertEquals(0L, s.lpushx(k[0], "x"));
        assertEquals(3L, s.rpush(k[0], "b", "c", "d"));
        assertEquals(4L, s.lpush(k[0], "a"));
        assertEquals(5L, s.rpushx(k[0], "a"));
        assertEquals(List.of("a", "b", "c", "d", "a"), s.lrange(k[0], 0, -1));
        assertEquals(5L, s.llen(k[0]));
        assertEquals("c", s.lindex(k[0], 2));
        assertNull(s.lindex(k[0], 99));
        assertEquals("OK", s.lset(k[0], 2, "C"));
        assertEquals(2L, s.lrem(k[0], 0, "a"));
        assertEquals("OK", s.ltrim(k[0], 0, 1));
        assertEquals(List.of("b", "C"), s.lrange(k[0], 0, -1));
        assertEquals("C", s.rpoplpush(k[0], k[1]));
        assertEquals("b", s.lpop(k[0]));
        assertNull(s.lpop(k[0]));
        s.rpush(k[2], "1", "2", "3");
        assertEquals(List.of("1", "2"), s.lpop(k[2], 2));
        assertEquals("3", s.rpop(k[2]));
        s.rpush(k[2], "a", "c");
        assertEquals(3L, s.linsert(k[2], true, "c", "b"));
        assertEquals(4L, s.linsert(k[2], false, "c", "d"));
        assertEquals(-1L, s.linsert(k[2], false, "zz", "d"));
        assertEquals(2L, s.lpos(k[2], "c"));
        assertNull(s.lpos(k[2], "zz"));
        assertEquals("d", s.lmove(k[2], k[2], ListDirection.RIGHT, ListDirection.LEFT));
        assertEquals(List.of("d", "a", "b", "c"), s.lrange(k[2], 0, -1));
        s.set(k[3], "str");
        ServerErrorException e = assertThrows(ServerErrorException.class, () -> s.lpush(k[3], "x"));
        assertEquals("WRONGTYPE Operation against a key holding the wrong kind of value", e.getMessage());
        assertEquals("WRONGTYPE", e.code());
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void hashes(boolean r3) {
        SyncCommands<String, String> s = client(r3, "HSET", "HGET", "HMGET", "HGETALL", "HDEL", "HEXISTS", "HLEN", "HINCRBY",
                "HINCRBYFLOAT", "HKEYS", "HVALS", "HSETNX", "HSTRLEN", "HSCAN");
        String[] k = keys(r3, "a", "b", "c", "d");
        assertTrue(s.hset(k[0], "f1", "v1"));
        assertFalse(s.hset(k[0], "f1", "v1b"));
        Map<String, String> m = new LinkedHashMap<>();
        m.put("f2", "v2");
        m.put("n", "5");
        assertEquals(2L, s.hset(k[0], m));
        assertFalse(s.hsetnx(k[0], "f2", "x"));
        assertEquals("v1b", s.hget(k[0], "f1"));
        assertEquals(Arrays.asList("v1b", null), s.hmget(k[0], "f1", "nope"));
        assertEquals(Map.of("f1", "v1b", "f2", "v2", "n", "5"), s.hgetall(k[0]));
        assertEquals(Map.of(), s.hgetall(k[1]));
        assertTrue(s.hexists(k[0], "f2"));
        assertEquals(3L, s.hlen(k[0]));
        assertEquals(3L, s.hstrlen(k[0], "f1"));
        assertEquals(7L, s.hincrby(k[0], "n", 2));
        assertEquals(7.25, s.hincrbyfloat(k[0], "n", 0.25));
        assertEquals(Set.of("f1", "f2", "n"), new TreeSet<>(s.hkeys(k[0])));
        assertEquals(Set.of("v1b", "v2", "7.25"), new TreeSet<>(s.hvals(k[0])));
        ScanCursor<KeyValue<String, String>> hpage = s.hscan(k[0], ScanCursor.START, "f*", 100);
        assertTrue(hpage.finished()); // a small hash answers in one page
        assertEquals(Set.of(new KeyValue<>("f1", "v1b"), new KeyValue<>("f2", "v2")), Set.copyOf(hpage.items()));
        assertEquals(2L, s.hdel(k[0], "f1", "f2", "nope"));
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void sets(boolean r3) {
        SyncCommands<String, String> s = client(r3, "SADD", "SREM", "SMEMBERS", "SISMEMBER", "SCARD", "SPOP", "SRANDMEMBER", "SMOVE",
                "SINTER", "SUNION", "SDIFF", "SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE", "SSCAN");
        String[] k = keys(r3, "a", "b", "c", "d");
        assertEquals(3L, s.sadd(k[0], "x", "y", "z", "x"));
        assertEquals(2L, s.sadd(k[1], "y", "w"));
        assertEquals(Set.of("x", "y", "z"), new TreeSet<>(s.smembers(k[0])));
        ScanCursor<String> spage = s.sscan(k[0], ScanCursor.START, "*", 100);
        assertTrue(spage.finished());
        assertEquals(Set.of("x", "y", "z"), new TreeSet<>(spage.items()));
        assertTrue(s.sismember(k[0], "x"));
        assertFalse(s.sismember(k[0], "w"));
        assertEquals(3L, s.scard(k[0]));
        assertEquals(List.of("y"), s.sinter(k[0], k[1]));
        assertEquals(Set.of("w", "x", "y", "z"), new TreeSet<>(s.sunion(k[0], k[1])));
        assertEquals(Set.of("x", "z"), new TreeSet<>(s.sdiff(k[0], k[1])));
        assertEquals(1L, s.sinterstore(k[2], k[0], k[1]));
        assertEquals(4L, s.sunionstore(k[2], k[0], k[1]));
        assertEquals(2L, s.sdiffstore(k[2], k[0], k[1]));
        assertTrue(s.smove(k[0], k[1], "x"));
        assertEquals(1L, s.srem(k[0], "z", "nope"));
        assertEquals("y", s.srandmember(k[0]));
        assertEquals("y", s.spop(k[0]));
        assertNull(s.spop(k[0]));
        assertEquals(List.of(), s.smembers(k[0]));
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void scripting(boolean r3) {
        SyncCommands<String, String> s = client(r3, "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "SCRIPT");
        String[] k = keys(r3, "a", "b", "c", "d");
        String script = "redis.call('set', KEYS[1], ARGV[1]); return {redis.call('get', KEYS[1]), #KEYS, #ARGV}";
        RespValue r = s.eval(script, new String[] {k[0]}, "v1", "extra");
        assertEquals("[v1, 1, 2]", texts(r));
        String sha = s.scriptLoad(script);
        assertEquals(40, sha.length());
        assertEquals("[v2, 1, 1]", texts(s.evalsha(sha, new String[] {k[0]}, "v2")));
        assertEquals("v2", RespValue.text(s.evalReadOnly("return redis.call('get', KEYS[1])", new String[] {k[0]})));
        assertEquals("v2", RespValue.text(s.evalshaReadOnly(s.scriptLoad("return redis.call('get', KEYS[1])"), new String[] {k[0]})));
        ServerErrorException ro = assertThrows(ServerErrorException.class,
                () -> s.evalReadOnly("return redis.call('del', KEYS[1])", new String[] {k[0]}));
        assertTrue(ro.getMessage().startsWith("ERR Write commands are not allowed from read-only scripts."), ro.getMessage());
        assertEquals("OK", s.scriptFlush());
        ServerErrorException missing = assertThrows(ServerErrorException.class, () -> s.evalsha(sha, new String[0]));
        assertEquals("NOSCRIPT No matching script. Please use EVAL.", missing.getMessage());
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void functions(boolean r3) {
        SyncCommands<String, String> s = client(r3, "FCALL", "FCALL_RO", "FUNCTION");
        String[] k = keys(r3, "fa");
        String lib = "#!lua name=famlib" + (r3 ? 3 : 2) + "\n"
                + "redis.register_function('famset" + (r3 ? 3 : 2) + "', function(keys, args) redis.call('set', keys[1], args[1]); return redis.call('get', keys[1]) end)\n"
                + "redis.register_function{function_name='famget" + (r3 ? 3 : 2) + "', callback=function(keys) return redis.call('get', keys[1]) end, flags={'no-writes'}}";
        assertEquals("famlib" + (r3 ? 3 : 2), s.functionLoad(lib));
        ServerErrorException exists = assertThrows(ServerErrorException.class, () -> s.functionLoad(lib));
        assertTrue(exists.getMessage().contains("already exists"), exists.getMessage());
        assertEquals("famlib" + (r3 ? 3 : 2), s.functionLoadReplace(lib));
        assertEquals("v1", RespValue.text(s.fcall("famset" + (r3 ? 3 : 2), new String[] {k[0]}, "v1")));
        assertEquals("v1", RespValue.text(s.fcallReadOnly("famget" + (r3 ? 3 : 2), new String[] {k[0]})));
        assertThrows(ServerErrorException.class, () -> s.fcallReadOnly("famset" + (r3 ? 3 : 2), new String[] {k[0]}, "v2"));
        assertEquals("OK", s.functionDelete("famlib" + (r3 ? 3 : 2)));
        ServerErrorException gone = assertThrows(ServerErrorException.class, () -> s.fcall("famset" + (r3 ? 3 : 2), new String[] {k[0]}, "v3"));
        assertEquals("ERR Function not found", gone.getMessage());
        assertEquals("OK", s.functionFlush());
    }

    private static String texts(RespValue v) {
        StringBuilder sb = new StringBuilder("[");
        for (RespValue item : ((RespValue.Array) v).items()) {
            sb.append(sb.length() > 1 ? ", " : "");
            sb.append(item instanceof RespValue.Integer i ? Long.toString(i.value()) : RespValue.text(item));
        }
        return sb.append(']').toString();
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void hyperLogLogs(boolean r3) {
        SyncCommands<String, String> s = client(r3, "PFADD", "PFCOUNT", "PFMERGE");
        String[] k = keys(r3, "a", "b", "c", "d");
        assertTrue(s.pfadd(k[0], "a", "b", "c"));
        assertFalse(s.pfadd(k[0], "a", "b"));
        assertTrue(s.pfadd(k[1]));
        assertFalse(s.pfadd(k[1]));
        assertTrue(s.pfadd(k[1], "c", "d"));
        assertEquals(3L, s.pfcount(k[0]));
        assertEquals(4L, s.pfcount(k[0], k[1]));
        assertEquals(0L, s.pfcount(k[3]));
        assertEquals("OK", s.pfmerge(k[2], k[0], k[1]));
        assertEquals(4L, s.pfcount(k[2]));
        assertEquals("OK", s.pfmerge(k[3]));
        assertEquals(0L, s.pfcount(k[3]));
        String[] many = new String[5000];
        for (int i = 0; i < many.length; i++) {
            many[i] = "e" + i;
        }
        assertTrue(s.pfadd(k[3], many)); // past hll-sparse-max-bytes: dense
        long estimate = s.pfcount(k[3]);
        assertTrue(Math.abs(estimate - 5000) < 150, "estimate " + estimate);
        assertEquals(estimate, (long) (r3 ? resp3 : resp2).async().pfcount(k[3]).join());
        s.set(k[0], "not an hll");
        ServerErrorException e = assertThrows(ServerErrorException.class, () -> s.pfcount(k[0]));
        assertTrue(e.getMessage().startsWith("WRONGTYPE Key is not a valid HyperLogLog string value."), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void sortedSets(boolean r3) {
        SyncCommands<String, String> s = client(r3, "ZADD", "ZSCORE", "ZINCRBY", "ZREM", "ZCARD", "ZCOUNT", "ZRANK", "ZREVRANK",
                "ZRANGE", "ZREVRANGE", "ZRANGEBYSCORE", "ZPOPMIN", "ZPOPMAX", "ZSCAN");
        String[] k = keys(r3, "a", "b", "c", "d");
        assertEquals(1L, s.zadd(k[0], 1.5, "a"));
        assertEquals(3L, s.zadd(k[0], List.of(new ScoredValue<>("b", 2), new ScoredValue<>("c", 3), new ScoredValue<>("inf", Double.POSITIVE_INFINITY))));
        assertEquals(1.5, s.zscore(k[0], "a"));
        assertNull(s.zscore(k[0], "zz"));
        assertEquals(Double.POSITIVE_INFINITY, s.zscore(k[0], "inf"));
        assertEquals(4.0, s.zincrby(k[0], 2.5, "a"));
        assertEquals(4L, s.zcard(k[0]));
        assertEquals(2L, s.zcount(k[0], 2, 3.5));
        assertEquals(2L, s.zrank(k[0], "a"));
        assertEquals(1L, s.zrevrank(k[0], "a"));
        assertNull(s.zrank(k[0], "zz"));
        assertEquals(List.of("b", "c", "a", "inf"), s.zrange(k[0], 0, -1));
        assertEquals(List.of("inf", "a"), s.zrevrange(k[0], 0, 1));
        assertEquals(List.of(new ScoredValue<>("b", 2.0), new ScoredValue<>("c", 3.0)), s.zrangeWithScores(k[0], 0, 1));
        assertEquals(List.of("c", "a"), s.zrangebyscore(k[0], 2.5, 10));
        ScanCursor<ScoredValue<String>> zpage = s.zscan(k[0], ScanCursor.START, "[ab]", 100);
        assertTrue(zpage.finished());
        assertEquals(Set.of(new ScoredValue<>("a", 4.0), new ScoredValue<>("b", 2.0)), Set.copyOf(zpage.items()));
        assertEquals(2L, s.zrem(k[0], "a", "b", "nope"));
        s.zadd(k[1], List.of(new ScoredValue<>("m1", 1), new ScoredValue<>("m2", 2), new ScoredValue<>("m3", 3)));
        assertEquals(List.of(new ScoredValue<>("m1", 1.0)), s.zpopmin(k[1], 1));
        assertEquals(List.of(new ScoredValue<>("m3", 3.0), new ScoredValue<>("m2", 2.0)), s.zpopmax(k[1], 5));
        assertEquals(List.of(), s.zpopmin(k[1], 1));
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void streams(boolean r3) throws Exception {
        SyncCommands<String, String> s = client(r3, "XADD", "XLEN", "XRANGE", "XREVRANGE", "XDEL", "XTRIM", "XSETID", "XREAD",
                "XGROUP", "XREADGROUP", "XACK", "XPENDING", "XCLAIM", "XAUTOCLAIM");
        String[] k = keys(r3, "a", "b", "c", "d");
        assertEquals("1-1", s.xadd(k[0], "1-1", Map.of("f", "v1")));
        Map<String, String> two = new LinkedHashMap<>();
        two.put("f", "v2");
        two.put("g", "w2");
        assertEquals("1-2", s.xadd(k[0], "1-*", two));
        String auto = s.xadd(k[0], Map.of("f", "v3"));
        assertTrue(auto.matches("\\d+-\\d+"), auto);
        assertNull(s.xadd(k[1], XAddArgs.defaults().noMkStream(), Map.of("f", "v")));
        assertEquals("5-0", s.xadd(k[1], XAddArgs.defaults().id("5-0").trim(StreamTrim.maxlen(1)), Map.of("x", "1")));
        assertEquals(3L, s.xlen(k[0]));
        assertEquals(List.of(new StreamEntry<>("1-1", Map.of("f", "v1")), new StreamEntry<>("1-2", two)), s.xrange(k[0], "-", "(" + auto));
        assertEquals(List.of("g"), List.copyOf(s.xrange(k[0], "(1-1", "+", 1).get(0).fields().keySet()).subList(1, 2));
        assertEquals(auto, s.xrevrange(k[0], "+", "-", 1).get(0).id());
        assertEquals(3, s.xrevrange(k[0], "+", "-").size());
        assertEquals(List.of(), s.xrange(k[2], "-", "+"));

        Map<String, String> from = new LinkedHashMap<>();
        from.put(k[0], "1-1");
        from.put(k[1], "0");
        Map<String, List<StreamEntry<String, String>>> read = s.xread(0, from);
        assertEquals(List.of(k[0], k[1]), List.copyOf(read.keySet()));
        assertEquals(List.of("1-2", auto), read.get(k[0]).stream().map(StreamEntry::id).toList());
        assertEquals(List.of(new StreamEntry<>("5-0", Map.of("x", "1"))), read.get(k[1]));
        assertEquals(1, s.xread(1, Map.of(k[0], "0")).get(k[0]).size());
        assertEquals(Map.of(), s.xread(0, Map.of(k[0], auto)));
        assertEquals(Map.of(), s.xreadBlocking(10, 0, Map.of(k[0], "$")), "a BLOCK that times out");

        assertEquals("OK", s.xgroupCreate(k[0], "g1", "0"));
        assertEquals("OK", s.xgroupCreateMkStream(k[2], "g2", "$"));
        assertTrue(s.xgroupCreateConsumer(k[0], "g1", "alice"));
        Map<String, List<StreamEntry<String, String>>> got = s.xreadgroup("g1", "bob", 2, Map.of(k[0], ">"));
        assertEquals(List.of("1-1", "1-2"), got.get(k[0]).stream().map(StreamEntry::id).toList());
        assertEquals(1, s.xreadgroupNoAck("g1", "carol", 0, Map.of(k[0], ">")).get(k[0]).size());
        PendingSummary<String> summary = s.xpending(k[0], "g1");
        assertEquals(new PendingSummary<>(2, "1-1", "1-2", Map.of("bob", 2L)), summary);
        List<PendingMessage<String>> pending = s.xpending(k[0], "g1", "-", "+", 10);
        assertEquals(List.of("1-1", "1-2"), pending.stream().map(PendingMessage::id).toList());
        assertEquals("bob", pending.get(0).consumer());
        assertEquals(1L, pending.get(0).deliveries());
        assertEquals(List.of(), s.xpending(k[0], "g1", "-", "+", 10, "alice"));
        assertEquals(List.of(new StreamEntry<>("1-1", Map.of("f", "v1"))), s.xclaim(k[0], "g1", "alice", 0, "1-1"));
        assertEquals(1L, s.xdel(k[0], "1-2"));
        AutoClaimResult<String, String> claimed = s.xautoclaim(k[0], "g1", "alice", 0, "0", 10);
        assertEquals("0-0", claimed.nextId());
        assertEquals(List.of("1-1"), claimed.entries().stream().map(StreamEntry::id).toList());
        assertEquals(List.of("1-2"), claimed.deletedIds());
        assertEquals(1L, s.xack(k[0], "g1", "1-1", "9-9"));
        assertEquals(0L, s.xgroupDelConsumer(k[0], "g1", "bob"));
        assertEquals("OK", s.xgroupSetId(k[0], "g1", "0"));
        assertEquals(2, s.xreadgroup("g1", "bob", 0, Map.of(k[0], ">")).get(k[0]).size());
        assertTrue(s.xgroupDestroy(k[0], "g1"));
        assertFalse(s.xgroupDestroy(k[0], "g1"));
        assertEquals(1L, s.xtrim(k[0], StreamTrim.maxlen(1)));
        assertEquals(0L, s.xtrim(k[0], StreamTrim.minid("0").approximate().limit(10)));
        assertEquals("OK", s.xsetid(k[0], "999999999999999-0"));
        assertThrows(ServerErrorException.class, () -> s.xadd(k[0], "1-1", Map.of("f", "v")), "ID not above the top");
        assertThrows(ServerErrorException.class, () -> s.xreadgroup("nope", "c", 0, Map.of(k[0], ">")), "NOGROUP");

        // A blocking read on its own connection, served by an XADD on the shared one.
        var waiting = (r3 ? resp3 : resp2).async().xreadBlocking(0, 0, Map.of(k[3], "$"));
        Thread.sleep(50);
        String added = s.xadd(k[3], Map.of("late", "1"));
        assertEquals(List.of(new StreamEntry<>(added, Map.of("late", "1"))),
                waiting.get(10, TimeUnit.SECONDS).get(k[3]));
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void geo(boolean r3) {
        SyncCommands<String, String> s = client(r3, "GEOADD", "GEOPOS", "GEODIST", "GEOHASH", "GEOSEARCH");
        String[] k = keys(r3, "a", "b", "c", "d");
        assertEquals(1L, s.geoadd(k[0], 13.361389, 38.115556, "Palermo"));
        assertEquals(2L, s.geoadd(k[0], List.of(new GeoValue<>("Catania", 15.087269, 37.502669),
                new GeoValue<>("Agrigento", 13.583333, 37.316667), new GeoValue<>("Palermo", 13.361389, 38.115556))));
        assertEquals(Arrays.asList(new GeoCoordinates(Double.parseDouble("13.36138933897018433"), Double.parseDouble("38.11555639549629859")), null),
                s.geopos(k[0], "Palermo", "nope"));
        assertEquals(166.2742, s.geodist(k[0], "Palermo", "Catania", GeoUnit.KM));
        assertNull(s.geodist(k[0], "Palermo", "nope", GeoUnit.M));
        assertEquals(Arrays.asList("sqc8b49rny0", "sqdtr74hyu0", null), s.geohash(k[0], "Palermo", "Catania", "nope"));
        assertEquals(List.of(new GeoResult<>("Catania", null, null, null), new GeoResult<>("Agrigento", null, null, null)),
                s.geosearch(k[0], GeoSearchArgs.<String>fromLonLat(15, 37).byRadius(200, GeoUnit.KM).asc().count(2)));
        List<GeoResult<String>> full = s.geosearch(k[0], GeoSearchArgs.fromMember("Palermo").byBox(400, 400, GeoUnit.KM)
                .desc().withDist().withHash().withCoord());
        assertEquals(List.of("Catania", "Agrigento", "Palermo"), full.stream().map(GeoResult::value).toList());
        assertEquals(166.2742, full.get(0).distance());
        assertEquals(3479447370796909L, full.get(0).hash());
        assertEquals(new GeoCoordinates(Double.parseDouble("15.08726745843887329"), Double.parseDouble("37.50266842333162032")),
                full.get(0).coordinates());
        assertEquals(0.0, full.get(2).distance());
        assertEquals(1, s.geosearch(k[0], GeoSearchArgs.<String>fromLonLat(15, 37).byRadius(200, GeoUnit.KM).countAny(1)).size());
        assertEquals(List.of(), s.geosearch(k[1], GeoSearchArgs.<String>fromLonLat(15, 37).byRadius(200, GeoUnit.MI)));
        ServerErrorException e = assertThrows(ServerErrorException.class,
                () -> s.geosearch(k[0], GeoSearchArgs.fromMember("nope").byRadius(1, GeoUnit.FT)));
        assertEquals("ERR could not decode requested zset member", e.getMessage());
    }
}
