package dev.spinel.client;

import java.util.ArrayList;
import java.util.List;

/**
 * The options of {@code XADD key [NOMKSTREAM] [MAXLEN|MINID [=|~] threshold [LIMIT count]] *|id}:
 * {@link #id} (default {@code *}, the server picks the next ID; {@code <ms>-*} picks the sequence only),
 * {@link #noMkStream} (a missing stream is not created: the reply is then {@code null}) and a
 * {@link StreamTrim} applied after the add. Immutable: each method returns a new instance.
 */
public final class XAddArgs {
    private final String id;
    private final boolean noMkStream;
    private final StreamTrim trim;

    private XAddArgs(String id, boolean noMkStream, StreamTrim trim) {
        this.id = id;
        this.noMkStream = noMkStream;
        this.trim = trim;
    }

    /** The defaults: ID chosen by the server, stream created if missing, no trimming. */
    public static XAddArgs defaults() {
        return new XAddArgs("*", false, null);
    }

    /** An explicit ID ({@code <ms>-<seq>}, or {@code <ms>-*}). */
    public XAddArgs id(String entryId) {
        return new XAddArgs(entryId, noMkStream, trim);
    }

    public XAddArgs noMkStream() {
        return new XAddArgs(id, true, trim);
    }

    public XAddArgs trim(StreamTrim how) {
        return new XAddArgs(id, noMkStream, how);
    }

    /** The arguments between the key and the fields, as the server reads them. */
    public Object[] encode() {
        List<Object> out = new ArrayList<>(8);
        if (noMkStream) {
            out.add("NOMKSTREAM");
        }
        if (trim != null) {
            out.addAll(List.of(trim.encode()));
        }
        out.add(id);
        return out.toArray();
    }
}
