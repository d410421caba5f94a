package dev.spinel.server.durability;

import dev.spinel.persistence.RdbFiles;
import dev.spinel.persistence.RdbWriter;
import dev.spinel.protocol.Version;
import dev.spinel.server.config.ServerConfig;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes the base file of the log from a point-in-time snapshot, in the form {@code aof-use-rdb-preamble}
 * asks for, named as Redis 7.0 names it: {@code <appendfilename>.<seq>.base.rdb} (an RDB with aof-base=1
 * and the function libraries) or, with {@code no}, {@code <appendfilename>.<seq>.base.aof} (commands,
 * starting with a "#TS:" annotation under aof-timestamp-enabled, as Redis's rewriteAppendOnlyFileRio).
 *
 * <p>Thread-safety: stateless; the caller runs one rewrite at a time (the log's rewriting flag).
 */
final class AofBase {
    private AofBase() {
    }

    /** The manifest entry of base {@code seq} in the form configured now. */
    static AofManifest.Part part(ServerConfig config, long seq) {
        String suffix = config.aofUseRdbPreamble.value() ? ".base.rdb" : ".base.aof";
        return new AofManifest.Part(config.appendfilename.value() + "." + seq + suffix, seq, 'b');
    }

    /** Writes {@code snap} (and the libraries) as base {@code part} in {@code dir}; the snapshot is consumed. */
    static void write(ServerConfig config, RdbWriter.Snapshot snap, List<byte[]> functions, Path dir, AofManifest.Part part)
            throws IOException {
        Path target = dir.resolve(part.file());
        int delay = (int) config.rdbKeySaveDelay.value();
        if (part.file().endsWith(".base.rdb")) {
            RdbFiles.save(snap, target, new RdbWriter.Options(config.rdbcompression.value(), config.rdbchecksum.value(),
                    RdbWriter.Access.NONE, RdbWriter.Options.redisAux(Version.REDIS, 0, true), functions).withKeySaveDelay(delay));
        } else {
            long ts = config.aofTimestampEnabled.value() ? System.currentTimeMillis() / 1000 : -1;
            RdbFiles.saveCommands(snap, target, functions, ts, delay);
        }
    }
}
