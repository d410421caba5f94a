package dev.spinel.server.replication;

import dev.spinel.server.config.Quoting;
import dev.spinel.server.errors.RedisError;

import java.util.List;

/**
 * What of the RDB a replica asked for with {@code REPLCONF rdb-filter-only <filters>} (Redis 7.0's slave_req):
 * a filter list excludes the keys and the functions, then includes what it names; Redis knows only
 * {@code functions} ({@code redis-cli --functions-rdb}). An empty list asks for an RDB with neither.
 *
 * <p>Thread-safety: immutable.
 */
enum RdbFilter {
    /** No filter: keys and functions, as every replica that does not ask. */
    ALL(false, false),
    /** {@code rdb-filter-only functions}: the function libraries and no key. */
    FUNCTIONS_ONLY(true, false),
    /** {@code rdb-filter-only ""}: the header and the footer only. */
    NOTHING(true, true);

    final boolean excludeData;
    final boolean excludeFunctions;

    RdbFilter(boolean excludeData, boolean excludeFunctions) {
        this.excludeData = excludeData;
        this.excludeFunctions = excludeFunctions;
    }

    /** The filter a REPLCONF value asks for, split as Redis's sdssplitargs; Redis's errors for what it refuses. */
    static RdbFilter parse(String value) {
        List<String> words = Quoting.split(value);
        if (words == null) {
            throw new RedisError("ERR Missing rdb-filter-only values");
        }
        RdbFilter f = NOTHING;
        for (String w : words) {
            if (!w.equalsIgnoreCase("functions")) {
                throw new RedisError("ERR Unsupported rdb-filter-only option: " + w);
            }
            f = FUNCTIONS_ONLY;
        }
        return f;
    }
}
