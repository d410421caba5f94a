package dev.spinel.persistence;

import dev.spinel.store.types.CollectionSettings;
import dev.spinel.store.types.SetLimits;

/**
 * Registers the codecs of lists, hashes, sets, sorted sets and streams. Values loaded are built with the given
 * live encoding thresholds (the server's configuration), so they end up in the encoding a command
 * would have produced. {@link ValueCodecs#standard()} is process-wide: with several servers in one JVM
 * (tests), values loaded use the thresholds of the server registered last.
 *
 * <p>Thread-safe (see {@link ValueCodecs#register}).
 */
public final class CollectionCodecs {
    private CollectionCodecs() {
    }

    public static void register(ValueCodecs codecs, CollectionSettings settings, SetLimits limits) {
        codecs.register(new ListCodec(settings));
        codecs.register(new HashCodec(settings));
        codecs.register(new SetCodec(limits));
        codecs.register(new ZSetCodec(limits));
        codecs.register(new StreamCodec(settings));
    }
}
