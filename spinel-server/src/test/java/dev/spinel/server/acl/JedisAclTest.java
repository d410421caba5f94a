package dev.spinel.server.acl;

import dev.spinel.server.SpinelServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisDataException;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Jedis, unchanged, logging in as a user other than default (AUTH user pass, and HELLO 3 AUTH). */
class JedisAclTest {
    private static SpinelServer server;

    @BeforeAll
    static void start() {
        server = SpinelServer.startEphemeral();
        try (Jedis admin = new Jedis("127.0.0.1", server.port())) {
            assertEquals("OK", admin.aclSetUser("app", "on", ">s3cret", "~app:*", "-@all", "+@string", "+@connection", "+acl|whoami"));
        }
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static Jedis connect(RedisProtocol protocol, String password) {
        return new Jedis(new HostAndPort("127.0.0.1", server.port()), DefaultJedisClientConfig.builder()
                .user("app").password(password).protocol(protocol)
                .clientSetInfoConfig(ClientSetInfoConfig.DISABLED).build());
    }

    @Test
    void aUserLogsInAndIsHeldToItsRules() {
        for (RedisProtocol p : List.of(RedisProtocol.RESP2, RedisProtocol.RESP3)) {
            try (Jedis j = connect(p, "s3cret")) {
                assertEquals("app", j.aclWhoAmI());
                assertEquals("OK", j.set("app:1", "v"));
                assertEquals("v", j.get("app:1"));
                JedisDataException key = assertThrows(JedisDataException.class, () -> j.get("other"));
                assertEquals("NOPERM this user has no permissions to access one of the keys used as arguments", key.getMessage());
                JedisDataException cmd = assertThrows(JedisDataException.class, () -> j.hset("app:h", "f", "v"));
                assertEquals("NOPERM this user has no permissions to run the 'hset' command", cmd.getMessage());
            }
        }
    }

    @Test
    void aWrongPasswordIsRefused() {
        JedisAccessControlException e = assertThrows(JedisAccessControlException.class,
                () -> connect(RedisProtocol.RESP2, "nope").ping());
        assertTrue(e.getMessage().startsWith("WRONGPASS"), e.getMessage());
    }
}
