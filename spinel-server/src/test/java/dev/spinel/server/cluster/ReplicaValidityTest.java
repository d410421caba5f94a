package dev.spinel.server.cluster;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redis's data-age rule for an automatic failover (clusterHandleSlaveFailover), with the figures of Redis's legacy
 * cluster test 06-slave-stop-cond: node timeout 3000 ms, factor 2, ping period 10 s, so a replica may take over while
 * its data is at most 10 + 3 x 2 = 16 s old beyond the node timeout. That unit runs the rule end to end
 * (tools/redis-cluster-legacy.sh 06-slave-stop-cond).
 */
class ReplicaValidityTest {
    @Test
    void dataAgeIsTheLinkDownTimeOrTheLastIo() {
        assertEquals(23_000, ReplicaValidity.dataAgeMs("role:slave\r\nmaster_link_status:down\r\nmaster_last_io_seconds_ago:-1\r\n"
                + "master_link_down_since_seconds:23\r\n"));
        assertEquals(2_000, ReplicaValidity.dataAgeMs("role:slave\r\nmaster_link_status:up\r\nmaster_last_io_seconds_ago:2\r\n"));
    }

    @Test
    void tooOldPastPingPeriodPlusFactorTimesNodeTimeout() {
        assertFalse(ReplicaValidity.tooOld(19_000, 3000, 2, 10)); // 16 s beyond the node timeout: still valid
        assertTrue(ReplicaValidity.tooOld(19_001, 3000, 2, 10));
        assertTrue(ReplicaValidity.tooOld(23_000, 3000, 2, 10));
        assertFalse(ReplicaValidity.tooOld(23_000, 3000, 10, 10)); // the default factor: 40 s
        assertFalse(ReplicaValidity.tooOld(Long.MAX_VALUE / 2, 3000, 0, 10)); // 0: no limit
        assertFalse(ReplicaValidity.tooOld(2_000, 3000, 0, 10));
    }
}
