package dev.spinel.server.acl;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ACL enforcement in dispatch, with Redis 7.0.15's texts: read/write key patterns by key spec,
 * channels, MULTI (at queue time and again at EXEC), scripts (the caller's permissions), ACL LOG's
 * entries, and the default user's fast path.
 */
class AclEnforcementTest {
    private static final String NOPERM_KEY = "-NOPERM this user has no permissions to access one of the keys used as arguments\r\n";
    private static final String NOPERM_CHANNEL = "-NOPERM this user has no permissions to access one of the channels used as arguments\r\n";
    private static SpinelServer server;

    @BeforeAll
    static void start() {
        server = SpinelServer.start(ServerConfig.defaults().with("port", "0"));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void users() throws Exception {
        try (RawClient admin = new RawClient(server.port())) {
            admin.callString("ACL", "DELUSER", "rw", "pub");
            admin.callString("ACL", "LOG", "RESET");
            admin.callString("FLUSHALL");
            assertEquals("+OK\r\n", admin.callString("ACL", "SETUSER", "rw", "on", ">pw", "+@all", "-flushall",
                    "%R~r*", "%W~w*", "~both*"));
            assertEquals("+OK\r\n", admin.callString("ACL", "SETUSER", "pub", "on", "nopass", "+@all", "allkeys",
                    "&news.*", "&lit*"));
        }
    }

    private static RawClient as(String user, String pass) throws Exception {
        RawClient c = new RawClient(server.port());
        assertEquals("+OK\r\n", c.callString("AUTH", user, pass));
        return c;
    }

    @Test
    void readAndWritePatternsFollowTheKeySpecs() throws Exception {
        try (RawClient c = as("rw", "pw")) {
            assertEquals("$-1\r\n", c.callString("GET", "r1"));
            assertEquals(NOPERM_KEY, c.callString("SET", "r1", "v"));
            assertEquals("+OK\r\n", c.callString("SET", "w1", "v"));
            // SET reads its key only with GET (Redis's setGetKeys); BITFIELD with only GETs only reads.
            assertEquals(NOPERM_KEY, c.callString("SET", "w1", "v", "GET"));
            assertEquals("*1\r\n:0\r\n", c.callString("BITFIELD", "r1", "GET", "u4", "0"));
            assertEquals(NOPERM_KEY, c.callString("BITFIELD", "r1", "SET", "u4", "0", "1"));
            assertEquals(NOPERM_KEY, c.callString("GET", "w1"));
            assertEquals("+OK\r\n", c.callString("SET", "both1", "v"));
            assertEquals("$1\r\nv\r\n", c.callString("GET", "both1"));
            // SINTERSTORE writes its destination and reads its sources.
            assertEquals(":0\r\n", c.callString("SINTERSTORE", "w2", "r1", "r2"));
            assertEquals(NOPERM_KEY, c.callString("SINTERSTORE", "r2", "w1"));
            // LMOVE both reads and deletes from its source: read-only access is not enough.
            assertEquals(NOPERM_KEY, c.callString("LMOVE", "r1", "w1", "LEFT", "LEFT"));
            assertEquals("-NOPERM this user has no permissions to run the 'flushall' command\r\n", c.callString("FLUSHALL"));
            // EXISTS only checks existence (no ACCESS flag): any pattern will do.
            assertEquals(":0\r\n", c.callString("EXISTS", "w9"));
            assertEquals(NOPERM_KEY, c.callString("EXISTS", "zzz"));
        }
    }

    @Test
    void channelsArePatternsExceptForPsubscribe() throws Exception {
        try (RawClient c = as("pub", "x")) {
            assertEquals(":0\r\n", c.callString("PUBLISH", "news.1", "m"));
            assertEquals(NOPERM_CHANNEL, c.callString("PUBLISH", "sport", "m"));
            assertEquals(NOPERM_CHANNEL, c.callString("SPUBLISH", "sport", "m"));
            assertEquals(NOPERM_CHANNEL, c.callString("SUBSCRIBE", "news.1", "sport"));
            // PSUBSCRIBE compares the pattern with the rules literally.
            assertEquals(NOPERM_CHANNEL, c.callString("PSUBSCRIBE", "news.1*"));
            assertTrue(c.callString("PSUBSCRIBE", "lit*").startsWith("*3\r\n$10\r\npsubscribe\r\n"));
        }
    }

    @Test
    void multiRefusesAtQueueTimeAndRechecksAtExec() throws Exception {
        try (RawClient c = as("rw", "pw"); RawClient admin = new RawClient(server.port())) {
            assertEquals("+OK\r\n", c.callString("MULTI"));
            assertEquals(NOPERM_KEY, c.callString("SET", "r1", "v"));
            assertEquals("-EXECABORT Transaction discarded because of previous errors.\r\n", c.callString("EXEC"));

            assertEquals("+OK\r\n", c.callString("MULTI"));
            assertEquals("+QUEUED\r\n", c.callString("SET", "w5", "v"));
            assertEquals("+QUEUED\r\n", c.callString("GET", "both5"));
            assertEquals("+OK\r\n", admin.callString("ACL", "SETUSER", "rw", "-get"));
            assertEquals("*2\r\n+OK\r\n-NOPERM ACLs rules changed between the moment the transaction was accumulated "
                    + "and the EXEC call. This command is no longer allowed for the following reason: no permission to "
                    + "execute the command or subcommand\r\n", c.callString("EXEC"));
            String log = admin.callString("ACL", "LOG", "1");
            assertTrue(log.contains("$7\r\ncontext\r\n$5\r\nmulti\r\n$6\r\nobject\r\n$3\r\nget\r\n"), log);
        }
    }

    @Test
    void scriptsRunWithTheCallersPermissions() throws Exception {
        try (RawClient c = as("rw", "pw"); RawClient admin = new RawClient(server.port())) {
            assertEquals("$-1\r\n", c.callString("EVAL", "return redis.call('get','r1')", "0"));
            String denied = c.callString("EVAL", "return redis.call('set','r1','v')", "0");
            assertTrue(denied.startsWith("-ERR The user executing the script can't access at least one of the keys "
                    + "mentioned in the command arguments script: "), denied);
            assertEquals("-ERR The user executing the script can't run this command or subcommand\r\n",
                    c.callString("EVAL", "return redis.pcall('flushall')", "0"));
            String log = admin.callString("ACL", "LOG", "2");
            assertTrue(log.contains("$6\r\nreason\r\n$7\r\ncommand\r\n$7\r\ncontext\r\n$3\r\nlua\r\n$6\r\nobject\r\n"
                    + "$8\r\nflushall\r\n$8\r\nusername\r\n$2\r\nrw\r\n"), log);
            assertTrue(log.contains("$6\r\nreason\r\n$3\r\nkey\r\n$7\r\ncontext\r\n$3\r\nlua\r\n$6\r\nobject\r\n$2\r\nr1\r\n"), log);
            assertTrue(log.contains("cmd=eval user=rw"), log); // the caller's client, not the script's
        }
    }

    @Test
    void logGroupsLikeEventsAndRecordsFailedAuth() throws Exception {
        try (RawClient c = as("rw", "pw"); RawClient admin = new RawClient(server.port())) {
            c.callString("SET", "r1", "v");
            c.callString("SET", "r1", "v");
            assertEquals("-WRONGPASS invalid username-password pair or user is disabled.\r\n",
                    c.callString("AUTH", "rw", "bad"));
            String log = admin.callString("ACL", "LOG");
            assertTrue(log.startsWith("*2\r\n*14\r\n$5\r\ncount\r\n:1\r\n$6\r\nreason\r\n$4\r\nauth\r\n$7\r\ncontext\r\n"
                    + "$8\r\ntoplevel\r\n$6\r\nobject\r\n$4\r\nAUTH\r\n$8\r\nusername\r\n$2\r\nrw\r\n"), log);
            assertTrue(log.contains("*14\r\n$5\r\ncount\r\n:2\r\n$6\r\nreason\r\n$3\r\nkey\r\n$7\r\ncontext\r\n"
                    + "$8\r\ntoplevel\r\n$6\r\nobject\r\n$2\r\nr1\r\n"), log);
            assertTrue(log.contains("$11\r\nage-seconds\r\n"), log);
            assertEquals("*0\r\n", admin.callString("ACL", "LOG", "0"));
            // an AUTH that fails inside EXEC is logged in the multi context
            c.callString("MULTI");
            c.callString("AUTH", "rw", "bad");
            assertEquals("*1\r\n-WRONGPASS invalid username-password pair or user is disabled.\r\n", c.callString("EXEC"));
            assertTrue(admin.callString("ACL", "LOG", "1").contains("$7\r\ncontext\r\n$5\r\nmulti\r\n"));
            assertEquals("+OK\r\n", admin.callString("ACL", "LOG", "RESET"));
            assertEquals("*0\r\n", admin.callString("ACL", "LOG"));
        }
    }

    @Test
    void changedRulesApplyToOpenConnectionsAndDeletedUsersAreDisconnected() throws Exception {
        try (RawClient c = as("rw", "pw"); RawClient admin = new RawClient(server.port())) {
            assertEquals("$-1\r\n", c.callString("GET", "both2"));
            admin.callString("ACL", "SETUSER", "rw", "resetkeys", "~other*");
            assertEquals(NOPERM_KEY, c.callString("GET", "both2"));
            assertEquals(":1\r\n", admin.callString("ACL", "DELUSER", "rw"));
            assertTrue(c.isClosedByServer());
        }
    }

    @Test
    void secretsAreRedactedInTheSlowLog() throws Exception {
        try (RawClient admin = new RawClient(server.port())) {
            admin.callString("CONFIG", "SET", "slowlog-log-slower-than", "0");
            try {
                admin.callString("SLOWLOG", "RESET");
                admin.callString("AUTH", "rw", "pw");
                admin.callString("HELLO", "2", "AUTH", "rw", "pw", "SETNAME", "n");
                admin.callString("ACL", "SETUSER", "rw", ">other");
                String log = admin.callString("SLOWLOG", "GET", "3");
                assertFalse(log.contains("pw") || log.contains("other"), log);
                assertTrue(log.contains("*4\r\n$3\r\nACL\r\n$7\r\nSETUSER\r\n$10\r\n(redacted)\r\n$10\r\n(redacted)\r\n"), log);
                assertTrue(log.contains("*7\r\n$5\r\nHELLO\r\n$1\r\n2\r\n$4\r\nAUTH\r\n$10\r\n(redacted)\r\n"
                        + "$10\r\n(redacted)\r\n$7\r\nSETNAME\r\n$1\r\nn\r\n"), log);
                assertTrue(log.contains("*3\r\n$4\r\nAUTH\r\n$10\r\n(redacted)\r\n$10\r\n(redacted)\r\n"), log);
            } finally {
                admin.callString("CONFIG", "SET", "slowlog-log-slower-than", "10000");
            }
        }
    }

    @Test
    void theDefaultUserIsUnrestrictedUntilARuleLimitsIt() throws Exception {
        Acl acl = server.engine().acl();
        assertTrue(acl.defaultUser().rules().unrestricted());
        try (RawClient admin = new RawClient(server.port())) {
            assertEquals("+OK\r\n", admin.callString("ACL", "SETUSER", "default", "-debug"));
            assertFalse(acl.defaultUser().rules().unrestricted());
            assertEquals("-NOPERM this user has no permissions to run the 'debug' command\r\n",
                    admin.callString("DEBUG", "SLEEP", "0"));
            assertEquals("+OK\r\n", admin.callString("ACL", "SETUSER", "default", "+@all"));
            assertTrue(acl.defaultUser().rules().unrestricted());
            String list = admin.callString("ACL", "LIST");
            assertTrue(list.startsWith("*3\r\n$34\r\nuser default on nopass ~* &* +@all\r\n"), list);
        }
    }
}
