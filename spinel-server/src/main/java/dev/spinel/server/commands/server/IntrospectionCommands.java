package dev.spinel.server.commands.server;

import dev.spinel.protocol.Args;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.RedisError;

/** SLOWLOG, LATENCY and MONITOR: looking at what the server is doing. */
public final class IntrospectionCommands {
    private IntrospectionCommands() {
    }

    public static void register(CommandTable t) {
        t.register("slowlog", null);
        t.registerSub("slowlog", "get", IntrospectionCommands::slowlogGet);
        t.registerSub("slowlog", "len", (s, a) -> s.out().integer(s.engine().slowLog().size()));
        t.registerSub("slowlog", "reset", (s, a) -> {
            s.engine().slowLog().reset();
            s.out().ok();
        });
        t.registerSub("slowlog", "help", (s, a) -> help(s, SLOWLOG_HELP));
        t.register("latency", null);
        t.registerSub("latency", "latest", (s, a) -> s.engine().latency().writeLatest(s.out()));
        t.registerSub("latency", "history", (s, a) -> s.engine().latency().writeHistory(s.out(), a.string(2)));
        t.registerSub("latency", "reset", IntrospectionCommands::latencyReset);
        t.registerSub("latency", "help", (s, a) -> help(s, LATENCY_HELP));
        t.registerSub("latency", "histogram", LatencyReports::histogram);
        t.registerSub("latency", "doctor", LatencyReports::doctor);
        t.registerSub("latency", "graph", LatencyReports::graph);
        t.register("monitor", IntrospectionCommands::monitor);
    }

    // SLOWLOG GET [count]
    static void slowlogGet(Session s, Args a) {
        long count = 10;
        if (a.count() == 3) {
            try {
                count = a.parseLong(2);
            } catch (NumberFormatException e) {
                count = -2;
            }
            if (count < -1) {
                throw new RedisError("ERR count should be greater than or equal to -1");
            }
        }
        s.engine().slowLog().write(s.out(), count);
    }

    // LATENCY RESET [event [event ...]]
    static void latencyReset(Session s, Args a) {
        String[] names = new String[a.count() - 2];
        for (int i = 2; i < a.count(); i++) {
            names[i - 2] = a.string(i);
        }
        s.out().integer(s.engine().latency().reset(names));
    }

    // MONITOR
    static void monitor(Session s, Args a) {
        if (s.executingTransaction()) {
            throw new RedisError("ERR MONITOR isn't allowed for DENY BLOCKING client");
        }
        if (s.monitoring()) {
            return; // Redis ignores MONITOR from a monitor (it is flagged a replica already): no reply at all
        }
        s.monitoring(true);
        s.engine().monitors().add(s);
        s.out().ok();
    }

    private static void help(Session s, String[] lines) {
        s.out().array(lines.length);
        for (String line : lines) {
            s.out().simple(line);
        }
    }

    private static final String[] SLOWLOG_HELP = {
        "SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "GET [<count>]",
        "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
        "    Entries are made of:",
        "    id, timestamp, time in microseconds, arguments array, client IP and port,",
        "    client name",
        "LEN",
        "    Return the length of the slowlog.",
        "RESET",
        "    Reset the slowlog.",
        "HELP",
        "    Prints this help."
    };

    private static final String[] LATENCY_HELP = {
        "LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "DOCTOR",
        "    Return a human readable latency analysis report.",
        "GRAPH <event>",
        "    Return an ASCII latency graph for the <event> class.",
        "HISTORY <event>",
        "    Return time-latency samples for the <event> class.",
        "LATEST",
        "    Return the latest latency samples for all events.",
        "RESET [<event> ...]",
        "    Reset latency data of one or more <event> classes.",
        "    (default: reset all data for all event classes)",
        "HISTOGRAM [COMMAND ...]",
        "    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
        "    If no commands are specified then all histograms are replied.",
        "HELP",
        "    Prints this help."
    };
}
