package dev.spinel.server.metrics;

import dev.spinel.server.stats.DurationTotal;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import io.prometheus.metrics.model.snapshots.SummarySnapshot.SummaryDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Unit;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.function.Supplier;

/**
 * Spinel's own figures, which Redis has not: the CPU time of each event loop (how busy a loop is: waiting for
 * I/O costs none, so its rate is the loop's utilisation) and the AOF's fsync count and total time. Read when
 * Prometheus scrapes, from the JVM's thread CPU clocks and the log's counters.
 *
 * <p>Thread-safety: {@link #collect} from any thread.
 */
final class SpinelMetrics implements MultiCollector {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private final Supplier<List<Thread>> loops;
    private final DurationTotal aofFsync;

    SpinelMetrics(Supplier<List<Thread>> loops, DurationTotal aofFsync) {
        this.loops = loops;
        this.aofFsync = aofFsync;
    }

    @Override
    public MetricSnapshots collect() {
        CounterSnapshot.Builder busy = CounterSnapshot.builder().name("spinel_event_loop_busy_seconds").unit(Unit.SECONDS)
                .help("CPU time used by each event loop thread (commands, parsing, socket I/O; idle waiting costs none)");
        if (THREADS.isThreadCpuTimeSupported()) {
            for (Thread t : loops.get()) {
                long nanos = THREADS.getThreadCpuTime(t.threadId());
                if (nanos >= 0) { // -1: the thread has ended (the server is stopping)
                    busy.dataPoint(CounterDataPointSnapshot.builder().labels(Labels.of("loop", t.getName()))
                            .value(nanos / 1e9).build());
                }
            }
        }
        SummarySnapshot fsync = SummarySnapshot.builder().name("spinel_aof_fsync_seconds").unit(Unit.SECONDS)
                .help("fsyncs of the append-only log and the time they took")
                .dataPoint(SummaryDataPointSnapshot.builder().sum(aofFsync.nanos() / 1e9).count(aofFsync.count()).build())
                .build();
        return MetricSnapshots.of(busy.build(), fsync);
    }
}
