package dev.spinel.server.net;

import io.netty.channel.ChannelInboundHandlerAdapter;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A connection's handler is one object (docs/memory.md, round 5): its input and output halves are its
 * superclasses, not objects of their own that each hold the engine, the context and the session again. Every
 * idle connection kept three such objects (~100 B more per connection).
 */
class OneHandlerObjectTest {
    /**
     * The handler's instance fields today (136 B with compact headers and ZGC's 8-byte references; the 26th,
     * {@code readsStopped}, a boolean, fits in what was padding: still 136 B).
     */
    private static final int FIELD_BUDGET = 26;

    @Test
    void theHandlerHoldsNoOtherObjectOfTheConnectionLayer() throws Exception {
        RespConnectionHandler handler = new RespConnectionHandler(null, false);
        List<String> found = new ArrayList<>();
        int fields = 0;
        for (Class<?> c = handler.getClass(); c != ChannelInboundHandlerAdapter.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) || f.getType().isPrimitive()) {
                    continue;
                }
                fields++;
                f.setAccessible(true);
                Object v = f.get(handler);
                if (v != null && v != handler && v.getClass().getPackage() == RespConnectionHandler.class.getPackage()) {
                    found.add(c.getSimpleName() + "." + f.getName() + ": " + v.getClass().getSimpleName());
                }
            }
        }
        assertTrue(fields > 5, "the walk saw the handler's reference fields");
        assertEquals(List.of(), found);
    }

    /**
     * Every idle connection pays for each field of its handler: a new one must be a decision, not a drift. A
     * replica link's drained-output task (replbuf) is a channel attribute, so the other connections do not carry
     * it (docs/memory.md, round 7); this count was one more with it.
     */
    @Test
    void theHandlersFieldsStayWithinTheirBudget() {
        List<String> fields = new ArrayList<>();
        for (Class<?> c = RespConnectionHandler.class; c != ChannelInboundHandlerAdapter.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers())) {
                    fields.add(c.getSimpleName() + "." + f.getName());
                }
            }
        }
        assertTrue(fields.size() <= FIELD_BUDGET, fields.size() + " fields: " + fields);
    }

    @Test
    void theHalvesAreTheHandlersSuperclasses() {
        assertTrue(ReadBatch.class.isAssignableFrom(RespConnectionHandler.class));
        assertTrue(ReplyFlusher.class.isAssignableFrom(ReadBatch.class));
    }
}
