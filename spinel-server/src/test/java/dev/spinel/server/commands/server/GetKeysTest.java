package dev.spinel.server.commands.server;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.CommandMetadata;
import dev.spinel.protocol.CommandSpec;
import dev.spinel.protocol.KeyPositions.FlaggedKey;
import dev.spinel.server.config.Quoting;
import dev.spinel.server.errors.RedisError;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * COMMAND GETKEYS / GETKEYSANDFLAGS for every kind of key spec, compared with a real redis-server.
 * Runs on Redis's metadata directly, so it covers commands other families register later.
 */
class GetKeysTest {
    private static RedisServerProcess redis;
    private static RawClient client;

    @BeforeAll
    static void start() throws Exception {
        redis = RedisServerProcess.start();
        client = new RawClient(redis.port());
    }

    @AfterAll
    static void stop() throws Exception {
        client.close();
        redis.close();
    }

    private static final List<String> CASES = List.of(
            "get k", "set k v", "set k v GET", "set k v EX 10 get", "mset a 1 b 2", "mset a 1 b", "mget a b c", "del a b",
            "zunionstore d 2 a b weights 1 2", "zunionstore d 5 a b", "zinterstore d 0 a", "zdiffstore d 1 a",
            "zunion 2 a b", "eval s 2 a b c", "eval s 0", "eval s 3 a", "eval s -1 a", "evalsha x 1 k", "fcall f 1 k",
            "fcall_ro f 0", "eval_ro s 1 k", "sort k by x get y store d limit 0 1", "sort k store d store e",
            "sort k limit 0", "sort k get # store", "sort k STORE d by x", "sort_ro k by x", "xread count 1 streams a b 0 0", "xread streams a 0",
            "xread streams a b 0", "xreadgroup group g c streams a 0", "georadius k 1 1 1 m store d",
            "georadius k 1 1 1 m storedist d", "georadius k 1 1 1 m", "georadiusbymember k m 1 m store d",
            "geosearchstore d s frommember m byradius 1 m", "blpop a b 0", "bzpopmin a b 0", "lmpop 2 a b left",
            "lmpop 3 a b left", "zmpop 1 a min", "blmpop 0 2 a b left", "bzmpop 0 1 a max", "sintercard 2 a b",
            "zdiff 2 a b", "zintercard 1 a", "rename a b", "smove a b m", "object encoding k", "memory usage k",
            "bitfield k get u8 0", "bitfield k set u8 0 1", "bitfield_ro k get u8 0", "pfmerge d a b", "pfcount a b",
            "xadd s * f v", "lcs a b", "copy a b", "msetnx a 1 b 2", "watch a b", "sunionstore d a b",
            "bitop and d a b", "spublish c m", "ssubscribe a b", "xinfo stream s", "xgroup create s g $",
            "restore k 0 x", "touch a b", "lmove a b left right", "zrangestore d s 0 1", "exists a b",
            "migrate h p k 0 5", "migrate h p \"\" 0 5 keys a b", "migrate h p \"\" 0 5 auth pw keys a", "migrate h p \"\" 0 5 auth2 u pw copy keys a b", "ping x", "publish c m", "config get x",
            "client list", "get", "set k", "object encoding", "keys *", "scan 0", "expire k 10", "getex k persist",
            "hset h f v", "linsert l before a b", "rpoplpush a b", "brpoplpush a b 0", "smismember s a b",
            "zrangebyscore z 0 1", "getrange k 0 1",
            "sort k store store d", "sort k store limit 0 1", "bitfield k get u8", "bitfield k get u8 0 overflow wrap",
            "bitfield k overflow", "bitfield k incrby u8 0 1", "set k v get ex 1", "xreadgroup group g c count 1 streams",
            "georadius k 1 1 1 m store", "zunionstore d 1", "eval s 1", "lmpop 0 left", "sintercard x a", "setrange k 0 v", "unlink a b", "dump k", "type k");

    @Test
    void getkeysMatchesRedis() throws Exception {
        List<String> failures = new ArrayList<>();
        for (String line : CASES) {
            List<String> words = Quoting.split(line);
            for (String sub : List.of("GETKEYS", "GETKEYSANDFLAGS")) {
                List<String> full = new ArrayList<>(List.of("COMMAND", sub));
                full.addAll(words);
                String expected = new String(client.call(full.toArray(new String[0])), StandardCharsets.UTF_8);
                String actual = spinel(Args.of(full.toArray(new String[0])), sub.equals("GETKEYSANDFLAGS"));
                if (!expected.equals(actual)) {
                    failures.add(sub + " " + line + "\n    redis:  " + expected.replace("\r\n", "\\r\\n")
                            + "\n    spinel: " + actual.replace("\r\n", "\\r\\n"));
                }
            }
        }
        assertEquals("", String.join("\n", failures));
    }

    /** The same answer as CommandCommand.getkeys, looking commands up in Redis's whole table. */
    private static String spinel(Args a, boolean withFlags) {
        if (a.count() < 4) {
            // The engine's arity check (command|getkeys needs the command and one argument).
            return "-ERR wrong number of arguments for 'command|" + (withFlags ? "getkeysandflags" : "getkeys") + "' command\r\n";
        }
        CommandSpec spec = CommandMetadata.get(a.string(2));
        if (spec != null && !spec.subcommands().isEmpty() && a.count() > 3) {
            spec = spec.subcommands().get(a.string(3).toLowerCase());
        }
        if (spec == null) {
            return "-ERR Invalid command specified\r\n";
        }
        List<FlaggedKey> keys;
        try {
            keys = GetKeys.of(spec, a, 2);
        } catch (RedisError e) {
            return "-" + e.getMessage() + "\r\n";
        }
        StringBuilder sb = new StringBuilder("*").append(keys.size()).append("\r\n");
        for (FlaggedKey k : keys) {
            String key = a.string(2 + k.pos());
            if (withFlags) {
                sb.append("*2\r\n");
            }
            sb.append('$').append(key.length()).append("\r\n").append(key).append("\r\n");
            if (withFlags) {
                sb.append('*').append(k.flags().size()).append("\r\n");
                for (String f : k.flags()) {
                    sb.append('+').append(f).append("\r\n");
                }
            }
        }
        return sb.toString();
    }
}
