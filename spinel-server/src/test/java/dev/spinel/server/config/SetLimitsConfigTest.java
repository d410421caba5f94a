package dev.spinel.server.config;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The set/zset encoding parameters reach the store's {@code SetLimits}, through names and aliases. */
class SetLimitsConfigTest {
    @Test
    void parametersAndAliasesUpdateTheLimits() throws ConfigException {
        ServerConfig cfg = ServerConfig.defaults();
        assertEquals(512, cfg.setLimits.setMaxIntsetEntries());
        assertEquals(128, cfg.setLimits.zsetMaxListpackEntries());
        assertEquals(64, cfg.setLimits.zsetMaxListpackValue());
        cfg.set("set-max-intset-entries", "7");
        cfg.set("zset-max-ziplist-entries", "5");
        cfg.set("zset-max-ziplist-value", "1kb");
        assertEquals(7, cfg.setLimits.setMaxIntsetEntries());
        assertEquals(5, cfg.setLimits.zsetMaxListpackEntries());
        assertEquals(1024, cfg.setLimits.zsetMaxListpackValue());
        assertEquals("5", cfg.param("zset-max-listpack-entries").get());
        assertThrows(ConfigException.class, () -> cfg.set("set-max-intset-entries", "-1"));
        assertEquals(7, cfg.setLimits.setMaxIntsetEntries(), "a rejected value changes nothing");
    }
}
