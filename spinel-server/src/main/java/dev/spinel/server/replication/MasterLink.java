package dev.spinel.server.replication;

import dev.spinel.server.acl.Acl;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Session;
import dev.spinel.server.engine.clock.CommandChain;
import dev.spinel.server.log.Log;
import dev.spinel.server.net.ServerTls;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The replica side of a replication link: one thread that connects to the master, does Redis's
 * handshake (AUTH with {@code masterauth}, PING, REPLCONF listening-port and capa psync2, PSYNC), loads
 * the RDB of a full resync (disk-style {@code $<len>}), then applies the stream as Redis's master client
 * does: through the engine's command path on an internal session that write refusals (READONLY) let
 * through, with no replies, counting the offset per processed command; MULTI/EXEC blocks run as
 * transactions. A lost link is retried every second with PSYNC from the processed offset, so a short
 * drop is answered with {@code +CONTINUE}.
 *
 * <p>Thread-safety: the link's thread owns the socket's input and the applying session; ACKs are
 * written by the link's thread and by the cron, serialized on {@code ackLock}; state fields are volatile.
 */
final class MasterLink {
    private static final int CONNECT_TIMEOUT_MS = 5000;
    private final Replication replication;
    private final Engine engine;
    private final String host;
    private final int port;
    private final Object ackLock = new Object();
    private volatile boolean closed;
    private volatile String state = "connect";
    private volatile Socket socket;
    private volatile OutputStream out;
    /** Offset of the last stream byte applied (Redis's master_repl_offset on a replica). */
    private volatile long processed = -1;
    /** The offset of the last byte read from the master's stream (slave_read_repl_offset), -1 outside a stream. */
    private volatile long readOffset = -1;
    private volatile String masterReplid;
    /** Held while one command of the stream is applied and forwarded: snapshots fall between two commands. */
    private final ReentrantLock applyLock = new ReentrantLock();
    private volatile long lastIo = System.currentTimeMillis();
    private volatile long linkDownSince = System.currentTimeMillis();
    private volatile boolean syncInProgress;
    private Thread thread;
    /**
     * The master's client on this side: the stream is applied through it. It is in CLIENT LIST (flags=M)
     * while the link is up; a new one per connection when the last was killed or cut inside a MULTI.
     */
    private volatile Session applier;
    private final ApplierConnection connection;
    /** The link this one replaces, until its thread has ended and this one took its history; then null. */
    private volatile MasterLink predecessor;
    /** Notified by {@link #close}: the wait between two connection attempts ends at once. */
    private final Object retryWait = new Object();

    /**
     * @param continueId the history to ask the master to continue (PSYNC continueId continueFrom+1), or null
     *                   for "PSYNC ? -1" (Redis's cached master: our own history, or the RDB's at start-up)
     */
    MasterLink(Replication replication, String host, int port, String continueId, long continueFrom, int streamDb) {
        this.replication = replication;
        this.engine = replication.engine();
        this.host = host;
        this.port = port;
        this.connection = new ApplierConnection(host + ":" + port, () -> socket);
        this.applier = newApplier(0);
        continueFrom(continueId, continueFrom, streamDb);
    }

    /**
     * A link to a new master that continues where {@code predecessor}, the link to the old one (closed by the
     * caller), stops. Its history is read on this link's thread once the old link's thread has ended: until then
     * the old one may be applying a batch whose offset it has not published, and asking the new master for bytes
     * after the earlier offset would apply them twice (an INCR counted twice). REPLICAOF's caller does not wait.
     */
    MasterLink(Replication replication, String host, int port, MasterLink predecessor) {
        this(replication, host, port, predecessor.masterReplid, predecessor.processed, 0); // for INFO meanwhile
        this.predecessor = predecessor;
    }

    private void continueFrom(String continueId, long continueFrom, int streamDb) {
        if (continueId != null && continueFrom >= 0) {
            this.masterReplid = continueId;
            this.processed = continueFrom;
            applier.select(streamDb);
        }
    }

    private Session newApplier(int db) {
        Session s = new Session(engine, engine.clients().nextId(), connection);
        s.authenticated(true);
        s.user(Acl.internalSuperuser("master")); // the master's writes are never refused by ACL rules
        s.replicationApplier(true);
        s.select(db);
        return s;
    }

    String masterReplid() {
        return masterReplid;
    }

    /** The database the master's stream is in (the RDB's repl-stream-db, then its SELECTs); under {@link #applyLock}. */
    int streamDb() {
        return applier.db().index();
    }

    Lock applyLock() {
        return applyLock;
    }

    String host() {
        return host;
    }

    int port() {
        return port;
    }

    boolean connected() {
        return "connected".equals(state);
    }

    /** ROLE's state word (connect, connecting, sync, connected): connect once the master's close has arrived. */
    String stateName() {
        String st = state;
        return st.equals("connected") && PeerClose.arrived(socket) ? "connect" : st;
    }

    long processedOffset() {
        return processed;
    }

    void start() {
        thread = new LinkThread(this::run);
        thread.start();
    }

    void close() {
        closed = true;
        synchronized (retryWait) {
            retryWait.notifyAll(); // a successor waits for this thread's end: not for the retry's second
        }
        Socket s = socket;
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }

    private void run() {
        MasterLink before = predecessor;
        if (before != null) {
            try {
                before.thread.join(); // closed: it ends after the command it applies, having published its offset
            } catch (InterruptedException e) {
                return;
            }
            continueFrom(before.masterReplid, before.processed, before.streamDb());
            predecessor = null;
        }
        while (!closed) {
            String lost = null;
            boolean wasConnected = false;
            try {
                session();
            } catch (IOException | RuntimeException e) {
                if (!closed) { // Redis's words for a master silent during the connection or the handshake
                    lost = e instanceof SocketTimeoutException && (state.equals("connecting") || state.equals("handshake"))
                            ? "Timeout connecting to the MASTER..." : "Replication link with MASTER " + host + ":" + port + " lost: " + e.getMessage();
                }
            } finally {
                Socket s = socket;
                socket = null;
                out = null;
                syncInProgress = false;
                if (s != null) {
                    try {
                        s.close();
                    } catch (IOException ignored) {
                        // already gone
                    }
                }
                if (connected()) {
                    wasConnected = true;
                    linkDownSince = System.currentTimeMillis();
                }
                state = "connect"; // before the log line: INFO says the link is down as soon as it is noticed
            }
            if (lost != null) {
                if (wasConnected) {
                    Log.notice("Connection with master lost."); // Redis's words, which tests and operators grep for
                }
                Log.warning(lost);
            }
            synchronized (retryWait) {
                if (!closed) {
                    try {
                        retryWait.wait(1000);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }
    }

    private void session() throws IOException {
        state = "connecting";
        Socket s = new Socket();
        socket = s;
        if (closed) {
            return;
        }
        String source = replication.config().param("bind-source-addr").get();
        if (!source.isEmpty()) {
            s.bind(new InetSocketAddress(source, 0)); // Redis's bind-source-addr: the address the master sees
        }
        s.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MS);
        s.setTcpNoDelay(true);
        if (replication.config().tlsReplication.value()) {
            ServerTls tls = replication.setup().tlsContext();
            if (tls == null) {
                throw new IOException("tls-replication is set but TLS is not configured (tls-cert-file, tls-key-file)");
            }
            s.setSoTimeout(CONNECT_TIMEOUT_MS);
            s = tls.connect(s, host, port);
            socket = s;
        }
        s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, replication.config().replTimeout.value() * 1000));
        out = s.getOutputStream();
        StreamReader in = new StreamReader(s.getInputStream());
        Log.notice("MASTER <-> REPLICA sync started");
        state = "handshake";
        String auth = replication.config().masterauth.value();
        if (!auth.isEmpty()) {
            String user = replication.config().masteruser.value();
            expectOk(in, user.isEmpty() ? send("AUTH", auth) : send("AUTH", user, auth), "AUTH");
        }
        String pong = reply(in, send("PING"));
        if (pong.startsWith("-") && !pong.startsWith("-NOAUTH") && !pong.startsWith("-NOPERM") && !pong.startsWith("-ERR operation not permitted")) {
            throw new IOException("Error reply to PING from master: '" + pong + "'");
        }
        if (pong.startsWith("-")) {
            throw new IOException("Error reply to PING from master: '" + pong + "'");
        }
        int announcePort = (int) replication.config().replicaAnnouncePort.value();
        String portReply = reply(in, send("REPLCONF", "listening-port",
                Integer.toString(announcePort != 0 ? announcePort : replication.setup().listeningPort())));
        if (portReply.startsWith("-")) {
            Log.notice("(Non critical) Master does not understand REPLCONF listening-port: " + portReply);
        }
        String announceIp = replication.config().replicaAnnounceIp.value();
        if (!announceIp.isEmpty()) {
            String ipReply = reply(in, send("REPLCONF", "ip-address", announceIp));
            if (ipReply.startsWith("-")) {
                Log.notice("(Non critical) Master does not understand REPLCONF ip-address: " + ipReply);
            }
        }
        reply(in, send("REPLCONF", "capa", "eof", "capa", "psync2"));
        Session a = applier;
        if (a.killed() || a.transaction() != null) {
            // a MULTI cut by the drop is dropped (processed stayed before it: the master sends it again)
            applier = newApplier(a.db().index());
        }
        long from = processed;
        String id = masterReplid;
        boolean failover = replication.failoverState().inProgress();
        String answer;
        if (id == null || from < 0) {
            answer = reply(in, send("PSYNC", "?", "-1"));
        } else if (failover) {
            answer = reply(in, send("PSYNC", id, Long.toString(from + 1), "FAILOVER")); // the target takes over
        } else {
            answer = reply(in, send("PSYNC", id, Long.toString(from + 1)));
        }
        if (failover) {
            replication.failoverState().answered(answer.startsWith("+FULLRESYNC") || answer.startsWith("+CONTINUE"));
        }
        state = "sync";
        if (answer.startsWith("+FULLRESYNC")) {
            String[] parts = answer.split(" ");
            String newId = parts[1];
            long offset = Long.parseLong(parts[2]);
            Log.notice("Full resync from master: " + newId + ":" + offset);
            syncInProgress = true;
            int db = ReplicaRdbLoad.fromMaster(in, engine, replication, newId.equals(masterReplid), () -> lastIo = System.currentTimeMillis());
            syncInProgress = false;
            applyLock.lock();
            try {
                masterReplid = newId;
                processed = offset;
                applier.select(db);
                replication.fullSyncFrom(newId, offset);
            } finally {
                applyLock.unlock();
            }
            replication.setup().fullSyncLoaded();
        } else if (answer.startsWith("+CONTINUE")) {
            String[] parts = answer.split(" ");
            String newId = parts.length > 1 ? parts[1].trim() : null;
            applyLock.lock();
            try {
                if (newId != null) {
                    masterReplid = newId;
                }
                replication.continued(newId, processed);
            } finally {
                applyLock.unlock();
            }
            Log.notice("Successful partial resynchronization with master.");
        } else {
            throw new IOException("Unexpected reply to PSYNC from master: " + answer);
        }
        state = "connected";
        Log.notice("MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization or finished the full one.");
        sendAck();
        Session listed = applier;
        engine.clients().add(listed); // CLIENT LIST flags=M, CLIENT KILL TYPE master
        try {
            new StreamApplier(this, engine, replication, connection).run(in);
        } finally {
            readOffset = -1;
            engine.clients().remove(listed);
        }
    }

    /** CLIENT PAUSE holds the stream: waits up to 100 ms for its end (the applier's thread). */
    void sleepWhilePaused() {
        long end = engine.pause().endMillis();
        long wait = Math.max(1, Math.min(100, end - System.currentTimeMillis()));
        try {
            Thread.sleep(wait);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closed = true;
        }
    }

    // ---- for the StreamApplier, on the link's thread ----

    boolean closed() {
        return closed;
    }

    Session applier() {
        return applier;
    }

    /** The offset of the last byte read from the master's stream (the applier's thread). */
    void readOffset(long offset) {
        readOffset = offset;
    }

    /** The offset of the last byte processed; under {@link #applyLock}. */
    void processed(long offset) {
        processed = offset;
    }

    void touched(long now) {
        lastIo = now;
    }

    /** An ACK now (the master's GETACK); a failed write closes the socket, which the link's thread then sees. */
    void ackQuietly() {
        try {
            sendAck();
        } catch (IOException e) {
            close(socket);
        }
    }

    /** The link's thread: applies with one {@link CommandChain} timing the commands of a read, as an event loop. */
    private static final class LinkThread extends Thread implements CommandChain.Owner {
        private final CommandChain chain = new CommandChain();

        LinkThread(Runnable r) {
            super(r, "spinel-replica-link");
            setDaemon(true);
        }

        @Override
        public CommandChain commandChain() {
            return chain;
        }
    }

    /** A client's REPLCONF GETACK on this replica: an ACK to the master now, as Redis's replconfCommand does. */
    void requestAck() {
        if (!connected()) {
            return;
        }
        try {
            sendAck();
        } catch (IOException e) {
            close(socket); // the link's thread sees the drop and reconnects
        }
    }

    /** Once a second (Replication's cron): REPLCONF ACK, so the master's WAIT and lag see our offset. */
    void cron() {
        if (connected()) {
            try {
                sendAck();
            } catch (IOException e) {
                close(socket);
            }
        }
    }

    static void close(Socket s) {
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // the link's thread sees the drop and reconnects
            }
        }
    }

    private void sendAck() throws IOException {
        OutputStream o = out;
        if (o == null) {
            return;
        }
        byte[] frame = frame("REPLCONF", "ACK", Long.toString(processed));
        synchronized (ackLock) {
            o.write(frame);
            o.flush();
        }
    }

    private static byte[] frame(String... words) {
        StringBuilder sb = new StringBuilder().append('*').append(words.length).append("\r\n");
        for (String w : words) {
            byte[] b = w.getBytes(StandardCharsets.UTF_8);
            sb.append('$').append(b.length).append("\r\n").append(w).append("\r\n");
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    private String send(String... words) throws IOException {
        byte[] f = frame(words);
        synchronized (ackLock) {
            out.write(f);
            out.flush();
        }
        return words[0];
    }

    private String reply(StreamReader in, String what) throws IOException {
        String line;
        do {
            line = in.line();
        } while (line.isEmpty());
        lastIo = System.currentTimeMillis();
        return line;
    }

    private void expectOk(StreamReader in, String what, String name) throws IOException {
        String r = reply(in, what);
        if (r.startsWith("-")) {
            throw new IOException("Unable to " + name + " to MASTER: " + r);
        }
    }

    /** The replica's fields of INFO replication, Redis 7.0's names. */
    void appendInfo(StringBuilder sb, long now) {
        f(sb, "master_host", host);
        f(sb, "master_port", port);
        boolean connected = connected();
        boolean up = connected && !PeerClose.arrived(socket); // as Redis, down once the master's close is here
        f(sb, "master_link_status", up ? "up" : "down");
        f(sb, "master_last_io_seconds_ago", up ? (now - lastIo) / 1000 : -1);
        f(sb, "master_sync_in_progress", syncInProgress ? 1 : 0);
        f(sb, "slave_read_repl_offset", Math.max(processed, readOffset));
        f(sb, "slave_repl_offset", processed);
        if (!up) { // 0 while our thread has yet to read the close: it just went down
            f(sb, "master_link_down_since_seconds", connected ? 0 : (now - linkDownSince) / 1000);
        }
        f(sb, "slave_priority", replication.config().replicaPriority.value());
        f(sb, "slave_read_only", replication.config().replicaReadOnly.value() ? 1 : 0);
        f(sb, "replica_announced", replication.config().replicaAnnounced.value() ? 1 : 0);
    }

    private static void f(StringBuilder sb, String name, Object v) {
        sb.append(name).append(':').append(v).append("\r\n");
    }
}
