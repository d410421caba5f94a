package dev.spinel.server.cluster;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The INFO field a peer's probe reads its replication offset from. */
class PeerCallTest {
    private static final String INFO = "# Spinel-gossip\r\nrole:master\r\nmaster_repl_offset:1234\r\noffset: 7 \r\nlast:x";

    @Test
    void readsAFieldByItsWholeName() {
        assertEquals("1234", PeerCall.infoField(INFO, "master_repl_offset"));
        assertEquals("7", PeerCall.infoField(INFO, "offset")); // not master_repl_offset's tail; trimmed as before
        assertEquals("master", PeerCall.infoField(INFO, "role"));
        assertEquals("x", PeerCall.infoField(INFO, "last")); // the last line needs no CRLF
    }

    @Test
    void aMissingOrPrefixOnlyFieldIsNull() {
        assertNull(PeerCall.infoField(INFO, "master_repl"));
        assertNull(PeerCall.infoField(INFO, "missing"));
        assertNull(PeerCall.infoField("", "role"));
        assertNull(PeerCall.infoField("role", "role")); // a name without its colon
    }
}
