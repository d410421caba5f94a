package dev.spinel.server.acl;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ACL SAVE / ACL LOAD with {@code aclfile}, the config file's {@code user} lines, and their errors (Redis 7.0.15's texts). */
class AclFileTest {
    @TempDir
    Path dir;

    private SpinelServer start(String... config) throws Exception {
        ServerConfig c = ServerConfig.defaults().with("port", "0").with("dir", dir.toString());
        c.load(String.join("\n", config));
        return SpinelServer.start(c);
    }

    @Test
    void saveWritesAclListAndLoadReadsItBack() throws Exception {
        Files.writeString(dir.resolve("users.acl"), ""); // Redis does not start without its ACL file
        try (SpinelServer server = start("aclfile users.acl"); RawClient c = new RawClient(server.port())) {
            assertEquals("+OK\r\n", c.callString("ACL", "SETUSER", "alice", "on", ">pw", "~a*", "%R~b*", "&ch",
                    "-@all", "+@read", "+select|0", "(+set ~s*)"));
            assertEquals("+OK\r\n", c.callString("ACL", "SAVE"));
            String file = Files.readString(dir.resolve("users.acl"));
            assertEquals("user alice on #" + UserRules.hash("pw") + " ~a* %R~b* resetchannels &ch -@all +@read +select|0"
                    + " (~s* resetchannels -@all +set)\n"
                    + "user default on nopass ~* &* +@all\n", file);

            assertEquals("+OK\r\n", c.callString("ACL", "SETUSER", "bob", "on", "nopass"));
            assertEquals("+OK\r\n", c.callString("ACL", "SETUSER", "default", "-debug"));
            try (RawClient alice = new RawClient(server.port())) {
                assertEquals("+OK\r\n", alice.callString("AUTH", "alice", "pw"));
                assertEquals("+OK\r\n", c.callString("ACL", "LOAD"));
                assertTrue(alice.isClosedByServer()); // ACL LOAD replaces every user but default: their clients go
            }
            assertEquals("*2\r\n$5\r\nalice\r\n$7\r\ndefault\r\n", c.callString("ACL", "USERS"));
            String list = c.callString("ACL", "LIST");
            assertTrue(list.contains("user default on nopass ~* &* +@all\r\n"), list);
            assertTrue(list.contains("(~s* resetchannels -@all +set)"), list);
        }
    }

    @Test
    void aBadFileChangesNothingAndNamesEveryBadLine() throws Exception {
        Files.writeString(dir.resolve("users.acl"), "user alice on nopass +nosuch\n# comment\nuser alice on\n\n"
                + "user bob on nopass (~x\n", StandardCharsets.UTF_8);
        try (SpinelServer server = start(); RawClient c = new RawClient(server.port())) {
            // no aclfile configured
            assertEquals("-ERR This Redis instance is not configured to use an ACL file. You may want to specify users via "
                    + "the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration "
                    + "file set) in order to store users in the Redis configuration.\r\n", c.callString("ACL", "LOAD"));
        }
        Files.writeString(dir.resolve("good.acl"), "user carol on nopass ~* +@all\n");
        try (SpinelServer server = start("aclfile good.acl"); RawClient c = new RawClient(server.port())) {
            assertEquals("*2\r\n$5\r\ncarol\r\n$7\r\ndefault\r\n", c.callString("ACL", "USERS"));
            Files.copy(dir.resolve("users.acl"), dir.resolve("good.acl"), StandardCopyOption.REPLACE_EXISTING);
            assertEquals("-ERR good.acl:1: Unknown command or category name in ACL. good.acl:2 should start with user "
                    + "keyword followed by the username. WARNING: Duplicate user 'alice' found on line 3. good.acl:5: "
                    + "Unmatched parenthesis in selector definition.WARNING: ACL errors detected, no change to the "
                    + "previously active ACL rules was performed\r\n", c.callString("ACL", "LOAD"));
            assertEquals("*2\r\n$5\r\ncarol\r\n$7\r\ndefault\r\n", c.callString("ACL", "USERS"));
            Files.delete(dir.resolve("good.acl"));
            assertEquals("-ERR Error loading ACLs, opening file 'good.acl': No such file or directory\r\n",
                    c.callString("ACL", "LOAD"));
        }
    }

    @Test
    void configFileUsersAndTheirErrors() throws Exception {
        try (SpinelServer server = start("user alice on >pw ~* +@all", "user default on >secret ~* &* +@all");
             RawClient c = new RawClient(server.port())) {
            assertEquals("-NOAUTH Authentication required.\r\n", c.callString("PING"));
            assertEquals("+OK\r\n", c.callString("AUTH", "alice", "pw"));
            assertEquals("$5\r\nalice\r\n", c.callString("ACL", "WHOAMI"));
            assertEquals("-ERR This Redis instance is not configured to use an ACL file. You may want to specify users via "
                    + "the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration "
                    + "file set) in order to store users in the Redis configuration.\r\n", c.callString("ACL", "SAVE"));
        }
        Exception dup = assertThrows(Exception.class, () -> start("user a on", "user a off"));
        assertTrue(dup.getMessage().contains("Duplicate user found"), dup.getMessage());
        Exception bad = assertThrows(Exception.class, () -> start("user a on bogus"));
        assertTrue(bad.getMessage().contains("Error in user declaration 'bogus': Syntax error"), bad.getMessage());
        Files.writeString(dir.resolve("u.acl"), "user x on\n");
        Exception both = assertThrows(Exception.class, () -> start("aclfile u.acl", "user a on"));
        assertTrue(both.getMessage().contains("please define either an ACL file or declare users"), both.getMessage());
    }

    @Test
    void requirepassSetsTheDefaultUsersPassword() throws Exception {
        try (SpinelServer server = start("requirepass pw"); RawClient c = new RawClient(server.port())) {
            assertEquals("+OK\r\n", c.callString("AUTH", "pw"));
            String line = "user default on #" + UserRules.hash("pw") + " ~* &* +@all";
            assertEquals("*1\r\n$" + line.length() + "\r\n" + line + "\r\n", c.callString("ACL", "LIST"));
            assertEquals("+OK\r\n", c.callString("CONFIG", "SET", "requirepass", ""));
            assertEquals("*1\r\n$34\r\nuser default on nopass ~* &* +@all\r\n", c.callString("ACL", "LIST"));
        }
    }
}
