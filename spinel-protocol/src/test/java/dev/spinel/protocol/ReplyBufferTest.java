package dev.spinel.protocol;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Reply encodings in RESP2 and RESP3, as redis-server 7.0 writes them. */
class ReplyBufferTest {
    private static String encode(boolean resp3, Consumer<ReplyBuffer> write) {
        ReplyBuffer b = new ReplyBuffer();
        b.resp3(resp3);
        write.accept(b);
        return new String(b.array(), 0, b.size(), StandardCharsets.ISO_8859_1);
    }

    private static void both(String resp2, String resp3, Consumer<ReplyBuffer> write) {
        assertEquals(resp2, encode(false, write), "RESP2");
        assertEquals(resp3, encode(true, write), "RESP3");
    }

    @Test
    void typesThatDifferBetweenVersions() {
        both("$-1\r\n", "_\r\n", ReplyBuffer::nullBulk);
        both("*-1\r\n", "_\r\n", ReplyBuffer::nullArray);
        both("*4\r\n", "%2\r\n", b -> b.map(2));
        both("*3\r\n", "~3\r\n", b -> b.set(3));
        both("*3\r\n", ">3\r\n", b -> b.push(3));
        both(":1\r\n", "#t\r\n", b -> b.bool(true));
        both(":0\r\n", "#f\r\n", b -> b.bool(false));
        both("$19\r\n0.10000000000000001\r\n", ",0.10000000000000001\r\n", b -> b.doubleValue(0.1));
        both("$1\r\n3\r\n", ",3\r\n", b -> b.doubleValue(3.0));
        // integral values take the digits path; it must agree with %.17g at its edges
        both("$2\r\n-7\r\n", ",-7\r\n", b -> b.doubleValue(-7.0));
        both("$1\r\n0\r\n", ",0\r\n", b -> b.doubleValue(0.0));
        both("$2\r\n-0\r\n", ",-0\r\n", b -> b.doubleValue(-0.0));
        both("$15\r\n999999999999999\r\n", ",999999999999999\r\n", b -> b.doubleValue(999999999999999.0));
        both("$16\r\n1000000000000000\r\n", ",1000000000000000\r\n", b -> b.doubleValue(1e15));
        both("$5\r\n1e+17\r\n", ",1e+17\r\n", b -> b.doubleValue(1e17));
        both("$3\r\ninf\r\n", ",inf\r\n", b -> b.doubleValue(Double.POSITIVE_INFINITY));
        both("$4\r\n-inf\r\n", ",-inf\r\n", b -> b.doubleValue(Double.NEGATIVE_INFINITY));
        both("$5\r\nhello\r\n", "=9\r\ntxt:hello\r\n", b -> b.verbatim("hello"));
        both("*0\r\n", "%0\r\n", b -> b.map(0));
    }

    @Test
    void typesThatAreTheSame() {
        both("+OK\r\n", "+OK\r\n", ReplyBuffer::ok);
        both("+PONG\r\n", "+PONG\r\n", b -> b.simple("PONG"));
        both(":0\r\n:1023\r\n:1024\r\n:-1\r\n:-9223372036854775808\r\n:9223372036854775807\r\n",
                ":0\r\n:1023\r\n:1024\r\n:-1\r\n:-9223372036854775808\r\n:9223372036854775807\r\n",
                b -> b.integer(0).integer(1023).integer(1024).integer(-1).integer(Long.MIN_VALUE).integer(Long.MAX_VALUE));
        both("$0\r\n\r\n", "$0\r\n\r\n", b -> b.bulk(new byte[0]));
        both("$2\r\n-5\r\n", "$2\r\n-5\r\n", b -> b.bulk(-5L));
        both("*0\r\n*63\r\n*64\r\n*100000\r\n", "*0\r\n*63\r\n*64\r\n*100000\r\n",
                b -> b.array(0).array(63).array(64).array(100000));
        both("-ERR bad  thing\r\n", "-ERR bad  thing\r\n", b -> b.error("ERR bad\r\nthing"));
    }

    @Test
    void bulkOfEveryHeaderSizeAndGrowth() {
        ReplyBuffer b = new ReplyBuffer();
        byte[] v = new byte[100_000];
        Arrays.fill(v, (byte) 'x');
        for (int len : new int[] {0, 1, 1023, 1024, 1025, 16 * 1024, 100_000}) {
            int before = b.size();
            b.bulk(v, 0, len);
            String header = "$" + len + "\r\n";
            assertEquals(header, new String(b.array(), before, header.length(), StandardCharsets.US_ASCII));
            assertEquals(before + header.length() + len + 2, b.size());
        }
        assertTrue(b.array().length > 16 * 1024);
        b.clear();
        assertEquals(0, b.size());
        // a buffer above 1 MB is given back on clear
        b.bulk(new byte[2 * 1024 * 1024]);
        b.clear();
        assertTrue(b.array().length <= 1024 * 1024);
    }

    @Test
    void truncateDropsAPartialReply() {
        ReplyBuffer b = new ReplyBuffer();
        b.ok();
        int mark = b.size();
        b.array(2).bulk("a");
        b.truncate(mark);
        b.error("ERR x");
        assertEquals("+OK\r\n-ERR x\r\n", new String(b.array(), 0, b.size(), StandardCharsets.US_ASCII));
    }

    /** The growth listener is told before each growth, not each write; once discarding, the array stops growing. */
    @Test
    void growthListenerAndDiscard() {
        ReplyBuffer b = new ReplyBuffer();
        int[] calls = {0};
        b.growthListener((out, adding) -> {
            calls[0]++;
            if (out.size() > 10_000) {
                out.discard();
            }
        });
        byte[] item = new byte[100];
        for (int i = 0; i < 5; i++) {
            b.bulk(item); // 530 bytes: past the initial 512, one growth
        }
        assertEquals(1, calls[0]);
        for (int i = 0; i < 100_000; i++) {
            b.bulk(item);
        }
        assertTrue(b.discarding());
        assertTrue(b.array().length <= 32 * 1024, "stopped growing: " + b.array().length);
        assertTrue(calls[0] < 10, "told per growth: " + calls[0]);
        byte[] big = new byte[100_000];
        b.bulk(big); // a single piece larger than the array still fits (and is dropped with the rest)
        assertTrue(b.size() <= b.array().length && b.array().length >= big.length);
    }

    @Test
    void emptyBufferHoldsNoArrayAndBorrowsScratchUntilGivenBack() {
        ReplyBuffer b = new ReplyBuffer();
        assertEquals(0, b.array().length); // an idle connection's buffer costs no array
        byte[] scratch = new byte[64];
        assertTrue(b.borrow(scratch));
        b.ok();
        assertTrue(b.array() == scratch && b.ownCapacity() == 0);
        b.clear();
        b.giveBack(); // nothing unsent: no array of its own
        assertEquals(0, b.array().length);
        assertTrue(b.borrow(scratch));
        b.simple("KEPT");
        b.giveBack(); // unsent replies move off the scratch
        Arrays.fill(scratch, (byte) 'x');
        assertEquals("+KEPT\r\n", new String(b.array(), 0, b.size(), StandardCharsets.ISO_8859_1));
        assertTrue(b.array() != scratch && b.ownCapacity() >= b.size());
        assertTrue(!b.borrow(scratch)); // it has its own array now
    }

    @Test
    void replyGrownPastTheScratchIsKeptOnlyWhileUnsent() {
        ReplyBuffer b = new ReplyBuffer();
        byte[] scratch = new byte[16];
        b.borrow(scratch);
        b.bulk(new byte[100]);
        assertTrue(b.array() != scratch);
        b.giveBack();
        assertEquals(108, b.size()); // $100 CRLF, the bytes, CRLF
        b.clear();
        ReplyBuffer c = new ReplyBuffer();
        c.borrow(scratch);
        c.bulk(new byte[100]);
        c.clear();
        c.giveBack();
        assertEquals(0, c.array().length);
    }
}
