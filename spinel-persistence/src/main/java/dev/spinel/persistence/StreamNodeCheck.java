package dev.spinel.persistence;

import dev.spinel.store.types.ListpackElements;
import dev.spinel.store.types.stream.StreamValue;

import java.util.Arrays;

/**
 * Checks a stream node read from an RDB file or a RESTORE payload before it is stored (Redis's
 * lpValidateIntegrity + streamValidateListpackIntegrity, deep form): every element inside the
 * listpack, the master entry, and each entry's flags, field count and lp-count consistent, so that
 * later reads cannot run off the node. Stateless and thread-safe.
 */
final class StreamNodeCheck {
    private StreamNodeCheck() {
    }

    /** The node's elements (listpack header and terminator stripped), or an {@link RdbException}. */
    static byte[] elements(byte[] lp) {
        if (lp.length < ListpackElements.OVERHEAD) {
            throw bad("too short");
        }
        long total = (lp[0] & 0xFFL) | (lp[1] & 0xFFL) << 8 | (lp[2] & 0xFFL) << 16 | (lp[3] & 0xFFL) << 24;
        if (total != lp.length || (lp[lp.length - 1] & 0xFF) != 0xFF) {
            throw bad("header size or terminator mismatch");
        }
        byte[] el = Arrays.copyOfRange(lp, 6, lp.length - 1);
        int declared = (lp[4] & 0xFF) | (lp[5] & 0xFF) << 8;
        try {
            int n = 0;
            for (int p = 0; p < el.length; n++) {
                if ((el[p] & 0xFF) == 0xFF) {
                    throw bad("terminator inside the listpack");
                }
                int q = ListpackElements.next(el, p);
                if (q <= p || q > el.length) {
                    throw bad("element runs past the end");
                }
                long back = CompactBlobs.decodeBacklen(el, q - 1, p); // lpValidateNext: it must name the element's size
                if (back < 0 || back + CompactBlobs.backlenSize(back) != q - p) {
                    throw bad("element back length mismatch");
                }
                p = q;
            }
            if (declared != 0xFFFF && declared != n) {
                throw bad("element count mismatch");
            }
            checkEntries(el);
        } catch (RdbException e) {
            throw e;
        } catch (RuntimeException e) {
            throw bad("malformed element");
        }
        return el;
    }

    private static void checkEntries(byte[] n) {
        int end = n.length;
        int p = 0;
        long count = integer(n, p, end);
        p = ListpackElements.next(n, p);
        long deleted = integer(n, p, end);
        p = ListpackElements.next(n, p);
        long masterFields = integer(n, p, end);
        p = ListpackElements.next(n, p);
        if (count < 1 || deleted < 0 || masterFields < 0 || masterFields > end) {
            throw bad("bad master entry");
        }
        for (long i = 0; i < masterFields; i++) {
            need(p, end);
            p = ListpackElements.next(n, p);
        }
        if (integer(n, p, end) != 0) {
            throw bad("bad master entry terminator");
        }
        p = ListpackElements.next(n, p);
        long live = 0;
        long dead = 0;
        while (p < end) {
            long flags = integer(n, p, end);
            if (flags < 0 || flags > 3) {
                throw bad("bad entry flags");
            }
            p = ListpackElements.next(n, p);
            integer(n, p, end);
            p = ListpackElements.next(n, p);
            integer(n, p, end);
            p = ListpackElements.next(n, p);
            long fields;
            long expected;
            boolean same = (flags & StreamValue.FLAG_SAMEFIELDS) != 0;
            if (same) {
                fields = masterFields;
                expected = fields + 3;
            } else {
                fields = integer(n, p, end);
                if (fields < 0 || fields > end) {
                    throw bad("bad entry field count");
                }
                p = ListpackElements.next(n, p);
                expected = 2 * fields + 4;
            }
            for (long i = 0; i < (same ? fields : 2 * fields); i++) {
                need(p, end);
                p = ListpackElements.next(n, p);
            }
            if (integer(n, p, end) != expected) {
                throw bad("bad entry lp-count");
            }
            p = ListpackElements.next(n, p);
            if ((flags & StreamValue.FLAG_DELETED) != 0) {
                dead++;
            } else {
                live++;
            }
        }
        if (live != count || dead != deleted) {
            throw bad("master entry counters do not match the entries");
        }
    }

    private static long integer(byte[] n, int p, int end) {
        need(p, end);
        if (!ListpackElements.isInt(n, p)) {
            throw bad("expected an integer element");
        }
        return ListpackElements.intAt(n, p);
    }

    private static void need(int p, int end) {
        if (p >= end) {
            throw bad("entry runs past the end");
        }
    }

    /** Live entries of a loaded stream (the sum of its nodes' counters). */
    static long liveEntries(StreamValue s) {
        long n = 0;
        for (int i = 0; i < s.nodeCount(); i++) {
            n += ListpackElements.intAt(s.nodeBytes(i), 0);
        }
        return n;
    }

    private static RdbException bad(String why) {
        return new RdbException("Invalid stream node listpack: " + why);
    }
}
