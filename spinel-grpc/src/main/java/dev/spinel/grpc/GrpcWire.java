package dev.spinel.grpc;

import io.grpc.DecompressorRegistry;
import io.grpc.InternalDecompressorRegistry;
import io.grpc.InternalMetadata;
import io.grpc.InternalStatus;
import io.grpc.Metadata;
import io.grpc.Status;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * gRPC's HTTP/2 wire form as the fast unary path ({@link FastUnaryListener}) reads and writes it: the request
 * headers it looks at, and the response headers and trailers grpc-java's server sends for a unary call
 * ({@code :status 200}, {@code content-type: application/grpc}, {@code grpc-encoding: identity},
 * {@code grpc-accept-encoding} with the decompressors grpc-java advertises; trailers {@code grpc-status}, and
 * {@code grpc-message} percent-encoded by grpc-java's own marshaller). The constant headers are built once and
 * shared: Netty's HPACK encoder only reads them.
 *
 * <p>Thread-safety: immutable constants and stateless functions; the shared header objects are never modified.
 */
final class GrpcWire {
    static final AsciiString POST = AsciiString.cached("POST");
    static final AsciiString CONTENT_TYPE = AsciiString.cached("content-type");
    static final AsciiString GRPC_CONTENT_TYPE = AsciiString.cached("application/grpc");
    static final AsciiString GRPC_ENCODING = AsciiString.cached("grpc-encoding");
    static final AsciiString GRPC_TIMEOUT = AsciiString.cached("grpc-timeout");
    static final AsciiString IDENTITY = AsciiString.cached("identity");
    static final AsciiString CONNECTION = AsciiString.cached("connection");
    static final AsciiString HOST = AsciiString.cached("host");
    static final AsciiString USERNAME = AsciiString.cached("spinel-username");
    static final AsciiString PASSWORD = AsciiString.cached("spinel-password");
    static final AsciiString AUTHORIZATION = AsciiString.cached("authorization");

    /** The response headers of a call that answers with a message. */
    static final Http2Headers OK_HEADERS = new DefaultHttp2Headers()
            .status("200")
            .set(CONTENT_TYPE, GRPC_CONTENT_TYPE)
            .set(GRPC_ENCODING, IDENTITY)
            .set(AsciiString.cached("grpc-accept-encoding"), new AsciiString(
                    InternalDecompressorRegistry.getRawAdvertisedMessageEncodings(DecompressorRegistry.getDefaultInstance())));
    /** The trailers after its message. */
    static final Http2Headers OK_TRAILERS = new DefaultHttp2Headers().set(AsciiString.cached("grpc-status"), "0");

    private GrpcWire() {
    }

    /**
     * Whether grpc-java takes this content type for gRPC (else it answers HTTP 415): {@code application/grpc},
     * in any case, alone or followed by {@code +} (a codec) or {@code ;} (parameters).
     */
    static boolean grpcContentType(CharSequence contentType) {
        if (contentType == null) {
            return false;
        }
        int n = GRPC_CONTENT_TYPE.length();
        if (contentType.length() < n || !GRPC_CONTENT_TYPE.contentEqualsIgnoreCase(contentType.subSequence(0, n))) {
            return false;
        }
        return contentType.length() == n || contentType.charAt(n) == '+' || contentType.charAt(n) == ';';
    }

    /**
     * A failed call's only HEADERS frame (trailers-only, as grpc-java sends a status before any message):
     * {@code :status}, {@code content-type}, {@code grpc-status} and {@code grpc-message}, the last two
     * serialized by grpc-java's own marshallers (so the message's percent-encoding is grpc-java's).
     */
    static Http2Headers trailersOnly(Status status) {
        Metadata m = new Metadata();
        m.put(InternalStatus.CODE_KEY, status);
        if (status.getDescription() != null) {
            m.put(InternalStatus.MESSAGE_KEY, status.getDescription());
        }
        byte[][] kv = InternalMetadata.serialize(m);
        Http2Headers h = new DefaultHttp2Headers(false, 2 + kv.length / 2).status("200").set(CONTENT_TYPE, GRPC_CONTENT_TYPE);
        for (int i = 0; i < kv.length; i += 2) {
            h.add(new AsciiString(kv[i], false), new AsciiString(kv[i + 1], false));
        }
        return h;
    }

    /**
     * The value of a {@code grpc-timeout} header in nanoseconds ({@code 1*8DIGIT} and a unit of H, M, S, m, u, n),
     * {@link Long#MAX_VALUE} for one too long to matter, or -1 when it is not of that form (the call is then left
     * to grpc-java, which decides what such a header means).
     */
    static long timeoutNanos(CharSequence v) {
        int n = v.length();
        if (n < 2 || n > 9) {
            return -1;
        }
        long value = 0;
        for (int i = 0; i < n - 1; i++) {
            char c = v.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        long unit = switch (v.charAt(n - 1)) {
            case 'n' -> 1L;
            case 'u' -> 1_000L;
            case 'm' -> 1_000_000L;
            case 'S' -> 1_000_000_000L;
            case 'M' -> 60_000_000_000L;
            case 'H' -> 3_600_000_000_000L;
            default -> -1L;
        };
        if (unit < 0) {
            return -1;
        }
        return value > Long.MAX_VALUE / unit ? Long.MAX_VALUE : value * unit;
    }

    /**
     * A header's value as grpc-java's {@code Metadata.get} with the ASCII marshaller gives it: the last of its
     * values, decoded as US-ASCII; null when absent.
     */
    static String ascii(Http2Headers headers, AsciiString name) {
        if (headers.get(name) == null) {
            return null;
        }
        List<CharSequence> all = headers.getAll(name);
        CharSequence v = all.get(all.size() - 1);
        if (v instanceof AsciiString a) {
            return new String(a.array(), a.arrayOffset(), a.length(), StandardCharsets.US_ASCII);
        }
        return new String(v.toString().getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.US_ASCII);
    }
}
