package dev.spinel.server.replication;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether the master's close (its FIN) of a replica's link has already reached this host while the link's own
 * thread has not read it yet. Redis's replica reads its master's socket in the event loop that also answers its
 * clients, and epoll reports the close, which came first, before a client's later request: INFO answered after
 * the master's {@code CLIENT KILL TYPE replica} says {@code master_link_status:down}. Spinel reads the link on a
 * thread of its own, which on a loaded machine may run only after that INFO (replication.tcl's "Diskless load
 * swapdb (async_loading): new database is exposed after swapping" then saw the link up and read the old data), so
 * INFO and ROLE ask the kernel here. Linux only: the socket's TCP state in {@code /proc/self/net/tcp6} and
 * {@code tcp} (anything but ESTABLISHED: {@code CLOSE_WAIT} once the peer closed); elsewhere false. It reads the
 * tables, so it is for reports (INFO, ROLE), never for a command's hot path.
 *
 * <p>Thread-safety: stateless; any thread.
 */
final class PeerClose {
    private static final Path[] TABLES = {Path.of("/proc/self/net/tcp6"), Path.of("/proc/self/net/tcp")};
    private static final int ESTABLISHED = 0x01;
    private static final int UNREADABLE = -2;

    private PeerClose() {
    }

    /**
     * True when the link on {@code s}, a connected socket, is already gone though its reading thread may not know:
     * closed here (a failed ACK), or no longer ESTABLISHED in the kernel's tables (CLOSE_WAIT after the peer's FIN;
     * not listed after a reset). False when the tables cannot be read (not Linux).
     */
    static boolean arrived(Socket s) {
        if (s == null || !s.isConnected()) {
            return false;
        }
        if (s.isClosed()) {
            return true;
        }
        int local = s.getLocalPort();
        int remote = s.getPort();
        boolean read = false;
        for (Path table : TABLES) {
            int state = state(table, local, remote);
            if (state == ESTABLISHED) {
                return false;
            }
            read |= state != UNREADABLE;
        }
        return read;
    }

    /**
     * The state of the table's connection from local port {@code local} to remote port {@code remote}: ESTABLISHED
     * if one such entry is, else the last one's, -1 when none is listed, {@link #UNREADABLE} without the table.
     */
    static int state(Path table, int local, int remote) {
        int found = -1;
        try (BufferedReader r = Files.newBufferedReader(table, StandardCharsets.US_ASCII)) {
            r.readLine(); // the header
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                String[] f = line.trim().split("\\s+", 5);
                if (f.length >= 4 && port(f[1]) == local && port(f[2]) == remote) {
                    found = Integer.parseInt(f[3], 16);
                    if (found == ESTABLISHED) {
                        return found;
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            return UNREADABLE; // not Linux, or a format we do not know: nothing is known
        }
        return found;
    }

    private static int port(String address) {
        return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1), 16);
    }
}
