package dev.spinel.server.engine;

import dev.spinel.protocol.Args;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.ports.InternalConnection;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The record of a command's writes is the session itself (docs/memory.md, round 7): {@link CommandWrites} is
 * {@link Session}'s superclass, not an object each session holds, which cost every idle connection an object
 * header and three references (~32 B).
 */
class SessionOneObjectTest {
    @Test
    void theSessionHoldsNoSeparateRecordOfItsWrites() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0"))) {
            Session s = new Session(server.engine(), 1, new InternalConnection("one-object"));
            server.engine().execute(s, Args.of("SET", "k", "v"));
            server.engine().execute(s, Args.of("SADD", "s", "a", "b"));
            assertEquals(3, s.dirtyCount(), "the writes were recorded (SADD counts each member, as Redis)");
            assertSame(s, s.writes());
            List<String> separate = new ArrayList<>();
            for (Class<?> c = Session.class; c != Object.class; c = c.getSuperclass()) {
                for (Field f : c.getDeclaredFields()) {
                    if (Modifier.isStatic(f.getModifiers()) || f.getType().isPrimitive()) {
                        continue;
                    }
                    f.setAccessible(true);
                    Object v = f.get(s);
                    if (v instanceof CommandWrites && v != s) {
                        separate.add(c.getSimpleName() + "." + f.getName());
                    }
                }
            }
            assertEquals(List.of(), separate);
            assertTrue(CommandWrites.class.isAssignableFrom(Session.class));
        }
    }
}
