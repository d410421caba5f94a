package dev.spinel.server.config;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code dir}: the working directory for snapshot and log files. Redis chdir()s into it and CONFIG GET
 * then shows the absolute path; the JVM cannot change its working directory, so the value is kept
 * as an absolute path resolved against the previous one, and must name an existing directory.
 *
 * <p>Thread-safety: one volatile string.
 */
public final class DirParam extends Param {
    private final String dflt = Path.of("").toAbsolutePath().toString();
    private volatile String value = dflt;

    public DirParam() {
        super("dir", true);
    }

    public String value() {
        return value;
    }

    public Path path() {
        return Path.of(value);
    }

    @Override
    public String get() {
        return value;
    }

    @Override
    public String defaultValue() {
        return dflt;
    }

    @Override
    public void set(String v) throws ConfigException {
        Path p = Path.of(value).resolve(v).toAbsolutePath().normalize();
        if (!Files.isDirectory(p)) {
            throw new ConfigException(Files.exists(p) ? "Not a directory" : "No such file or directory");
        }
        value = p.toString();
    }
}
