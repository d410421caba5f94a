package dev.spinel.server.commands.pubsub;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.server.ServerCommands;
import dev.spinel.store.ByteKey;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.pubsub.PubSub;
import dev.spinel.server.engine.pubsub.PubSub.Kind;
import dev.spinel.server.engine.EngineHooks;
import dev.spinel.server.engine.Session;
import dev.spinel.server.engine.ports.ReplicationFeed;
import dev.spinel.server.errors.RedisError;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Publish/subscribe commands (Redis's pubsub.c). Subscription confirmations are push frames in
 * RESP3 and arrays in RESP2; the registry and delivery live in {@link PubSub}.
 */
public final class PubSubCommands {
    private static final byte[] SUBSCRIBE = bytes("subscribe");
    private static final byte[] UNSUBSCRIBE = bytes("unsubscribe");
    private static final byte[] PSUBSCRIBE = bytes("psubscribe");
    private static final byte[] PUNSUBSCRIBE = bytes("punsubscribe");
    private static final byte[] SSUBSCRIBE = bytes("ssubscribe");
    private static final byte[] SUNSUBSCRIBE = bytes("sunsubscribe");

    private PubSubCommands() {
    }

    public static void register(CommandTable t) {
        t.register("subscribe", (s, a) -> subscribe(s, a, Kind.CHANNEL, SUBSCRIBE));
        t.register("psubscribe", (s, a) -> subscribe(s, a, Kind.PATTERN, PSUBSCRIBE));
        t.register("ssubscribe", (s, a) -> subscribe(s, a, Kind.SHARD, SSUBSCRIBE));
        t.register("unsubscribe", (s, a) -> unsubscribe(s, a, Kind.CHANNEL, UNSUBSCRIBE));
        t.register("punsubscribe", (s, a) -> unsubscribe(s, a, Kind.PATTERN, PUNSUBSCRIBE));
        t.register("sunsubscribe", (s, a) -> unsubscribe(s, a, Kind.SHARD, SUNSUBSCRIBE));
        t.register("publish", PubSubCommands::publish);
        t.register("spublish", PubSubCommands::spublish);
        t.register("pubsub", null);
        t.registerSub("pubsub", "channels", (s, a) -> channels(s, a, Kind.CHANNEL));
        t.registerSub("pubsub", "shardchannels", (s, a) -> channels(s, a, Kind.SHARD));
        t.registerSub("pubsub", "numsub", (s, a) -> numsub(s, a, Kind.CHANNEL));
        t.registerSub("pubsub", "shardnumsub", (s, a) -> numsub(s, a, Kind.SHARD));
        t.registerSub("pubsub", "numpat", (s, a) -> s.out().integer(s.engine().pubSub().patternCount()));
        t.registerSub("pubsub", "help", PubSubCommands::help);
    }

    // SUBSCRIBE channel [channel ...] / PSUBSCRIBE pattern [pattern ...] / SSUBSCRIBE shardchannel [...]
    static void subscribe(Session s, Args a, Kind kind, byte[] kindName) {
        PubSub<Session> ps = s.engine().pubSub();
        for (int i = 1; i < a.count(); i++) {
            byte[] name = a.copy(i);
            ps.subscribe(kind, new ByteKey(name), s);
            confirm(s, kindName, name, count(s, kind));
        }
    }

    // UNSUBSCRIBE [channel ...] / PUNSUBSCRIBE [pattern ...] / SUNSUBSCRIBE [shardchannel ...]
    static void unsubscribe(Session s, Args a, Kind kind, byte[] kindName) {
        PubSub<Session> ps = s.engine().pubSub();
        if (a.count() == 1) {
            List<ByteKey> all = List.copyOf(s.subscriptions().set(kind));
            if (all.isEmpty()) {
                confirm(s, kindName, null, count(s, kind));
                return;
            }
            for (ByteKey k : all) {
                ps.unsubscribe(kind, k, s);
                confirm(s, kindName, k.bytes(), count(s, kind));
            }
            return;
        }
        for (int i = 1; i < a.count(); i++) {
            byte[] name = a.copy(i);
            ps.unsubscribe(kind, new ByteKey(name), s);
            confirm(s, kindName, name, count(s, kind));
        }
    }

    private static int count(Session s, Kind kind) {
        return kind == Kind.SHARD ? s.subscriptions().shardCount() : s.subscriptions().count();
    }

    /** A (un)subscription's confirmation: a push, which CLIENT REPLY OFF/SKIP do not silence (RESP2 too, as Redis). */
    private static void confirm(Session s, byte[] kindName, byte[] name, int count) {
        ReplyBuffer out = s.out();
        s.beginPush();
        out.push(3);
        out.bulk(kindName);
        if (name == null) {
            out.nullBulk();
        } else {
            out.bulk(name);
        }
        out.integer(count);
        s.endPush();
    }

    // PUBLISH channel message
    static void publish(Session s, Args a) {
        byte[] channel = a.copy(1);
        byte[] message = a.copy(2);
        s.out().integer(s.engine().pubSub().publish(channel, message));
        if (!s.engine().config().clusterEnabled.value()) {
            replicate(s, a); // Redis 7.0's forceCommandPropagation(PROPAGATE_REPL); a cluster's bus is not there
            return;
        }
        // In a cluster every node's subscribers get it, through the bus (the replication stream does not carry it)
        EngineHooks.ClusterPublish bus = s.engine().hooks().clusterPublish();
        if (bus != null && !s.cluster().busLink()) {
            bus.publish(channel, message);
        }
    }

    // SPUBLISH shardchannel message
    static void spublish(Session s, Args a) {
        byte[] channel = a.copy(1);
        byte[] message = a.copy(2);
        s.out().integer(s.engine().pubSub().publishShard(channel, message));
        EngineHooks.ClusterPublish bus = s.engine().hooks().clusterPublish();
        if (bus != null && s.cluster().busLink()) {
            return; // a message from a node of the shard (Redis's bus PUBLISHSHARD): for this node's subscribers only
        }
        // Outside cluster mode as Redis 7.0 (the replication stream); in cluster mode the stream stands for Redis's
        // bus message from a primary to its replicas, and a replica sends its own to the shard's other nodes.
        replicate(s, a);
        if (bus != null && !s.isReplicationApplier()) {
            bus.publishShard(channel, message);
        }
    }

    /**
     * Sends the command to the replicas only (not the append-only file), as Redis's PROPAGATE_REPL; a replica
     * applying it publishes it to its subscribers and passes it on to its own replicas.
     */
    private static void replicate(Session s, Args a) {
        ReplicationFeed feed = s.engine().hooks().replicationFeed();
        if (feed == null) {
            return;
        }
        ByteArrayOutputStream frame = new ByteArrayOutputStream();
        header(frame, '*', a.count());
        for (int i = 0; i < a.count(); i++) {
            header(frame, '$', a.length(i));
            frame.write(a.buffer(), a.offset(i), a.length(i));
            frame.write('\r');
            frame.write('\n');
        }
        byte[] b = frame.toByteArray();
        feed.append(s.dbIndex(), b, 0, b.length);
    }

    private static void header(ByteArrayOutputStream out, char type, int n) {
        out.write(type);
        out.writeBytes(Integer.toString(n).getBytes(StandardCharsets.US_ASCII));
        out.write('\r');
        out.write('\n');
    }

    // PUBSUB CHANNELS [pattern] / PUBSUB SHARDCHANNELS [pattern]
    static void channels(Session s, Args a, Kind kind) {
        if (a.count() > 3) { // the table's arity (-2) lets any number through; pubsubCommand takes at most one pattern
            throw new RedisError("ERR unknown subcommand or wrong number of arguments for '" + ServerCommands.truncate(a.cString(1))
                    + "'. Try PUBSUB HELP.");
        }
        List<byte[]> names = s.engine().pubSub().channels(kind, a.count() > 2 ? a.copy(2) : null);
        s.out().array(names.size());
        for (byte[] n : names) {
            s.out().bulk(n);
        }
    }

    // PUBSUB NUMSUB [channel ...] / PUBSUB SHARDNUMSUB [shardchannel ...]
    static void numsub(Session s, Args a, Kind kind) {
        s.out().array((a.count() - 2) * 2); // a flat array in RESP3 too, as Redis 7.0 sends it (not a map)
        for (int i = 2; i < a.count(); i++) {
            byte[] name = a.copy(i);
            s.out().bulk(name);
            s.out().integer(s.engine().pubSub().subscriberCount(kind, name));
        }
    }

    private static final String[] HELP = {
        "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CHANNELS [<pattern>]",
        "    Return the currently active channels matching a <pattern> (default: '*').",
        "NUMPAT",
        "    Return number of subscriptions to patterns.",
        "NUMSUB [<channel> ...]",
        "    Return the number of subscribers for the specified channels, excluding",
        "    pattern subscriptions(default: no channels).",
        "SHARDCHANNELS [<pattern>]",
        "    Return the currently active shard level channels matching a <pattern> (default: '*').",
        "SHARDNUMSUB [<shardchannel> ...]",
        "    Return the number of subscribers for the specified shard level channel(s)",
        "HELP",
        "    Prints this help."
    };

    // PUBSUB HELP
    static void help(Session s, Args a) {
        s.out().array(HELP.length);
        for (String line : HELP) {
            s.out().simple(line);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
