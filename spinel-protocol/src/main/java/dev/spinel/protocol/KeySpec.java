package dev.spinel.protocol;

import dev.spinel.protocol.KeyPositions.FlaggedKey;

import java.util.List;

import static dev.spinel.protocol.KeyPositions.NONE;
import static dev.spinel.protocol.KeyPositions.range;

/**
 * One decoded key spec of Redis 7.0's command table: its flags, where the search for keys begins (an index,
 * or after a keyword) and how the keys follow (a range, or a count argument). Immutable.
 */
record KeySpec(List<String> flags, boolean incomplete, boolean readOnly, int aclFlags, int begin, int index, String keyword, int startFrom,
                       int find, int lastKey, int keyStep, int limit, int keyNumIdx, int firstKey) {

    int beginSearch(Args args) {
        int argc = args.count();
        if (begin == BEGIN_INDEX) {
            return index < 0 ? argc + index : index;
        }
        if (begin == BEGIN_KEYWORD) {
            int from = startFrom >= 0 ? startFrom : argc + startFrom;
            int step = startFrom >= 0 ? 1 : -1;
            for (int i = from; i > 0 && i < argc; i += step) {
                if (args.is(i, keyword)) {
                    return i + 1;
                }
            }
        }
        return 0;
    }

    int[] findKeys(int first, Args args) {
        int argc = args.count();
        if (first >= argc) {
            return NONE;
        }
        if (find == FIND_RANGE) {
            int last;
            if (lastKey >= 0) {
                last = first + lastKey;
            } else if (limit <= 1) {
                last = argc + lastKey;
            } else {
                last = first + ((argc - first) / limit + lastKey);
            }
            return range(first, Math.min(last, argc - 1), keyStep, argc);
        }
        if (find == FIND_KEYNUM) {
            int numIdx = first + keyNumIdx;
            int firstKeyIdx = first + firstKey;
            if (numIdx >= argc) {
                return NONE;
            }
            long numKeys;
            try {
                numKeys = args.parseLong(numIdx);
            } catch (NumberFormatException e) {
                return NONE;
            }
            if (numKeys <= 0) {
                return NONE;
            }
            long lastIdx = firstKeyIdx + (numKeys - 1) * keyStep;
            if (lastIdx >= argc) {
                throw new IllegalArgumentException("Invalid number of arguments specified for command");
            }
            return range(firstKeyIdx, (int) lastIdx, keyStep, argc);
        }
        return NONE;
    }

    /**
     * COMMAND GETKEYS's reading of this spec (Redis's getKeysUsingKeySpecs for a client's request): adds
     * its keys to {@code out}; false when the arguments cannot hold the keys the spec declares.
     */
    boolean strictKeys(Args args, List<FlaggedKey> out) {
        int argc = args.count();
        int first = 0;
        if (begin == BEGIN_INDEX) {
            first = index;
            if (first >= argc) {
                return true;
            }
        } else if (begin == BEGIN_KEYWORD) {
            int start = startFrom > 0 ? startFrom : argc + startFrom;
            int end = startFrom > 0 ? argc - 1 : 0;
            for (int i = start; i != end && i >= 1 && i < argc; i = start <= end ? i + 1 : i - 1) {
                if (args.is(i, keyword)) {
                    first = i + 1;
                    break;
                }
            }
            if (first == 0) {
                return true;
            }
        } else {
            return false;
        }
        int last;
        if (find == FIND_RANGE) {
            if (lastKey >= 0) {
                last = first + lastKey;
            } else if (limit == 0) {
                last = argc + lastKey;
            } else {
                last = first + ((argc - first) / limit + lastKey);
            }
        } else if (find == FIND_KEYNUM) {
            if (first + keyNumIdx >= argc) {
                return false;
            }
            long numKeys;
            try {
                numKeys = args.parseLong(first + keyNumIdx);
            } catch (NumberFormatException e) {
                return false;
            }
            if (numKeys < 0 || numKeys > argc) {
                return false;
            }
            first += firstKey;
            last = first + (int) numKeys - 1;
        } else {
            return false;
        }
        if (last >= argc || last < first || first >= argc) {
            return false;
        }
        for (int i = first; i <= last; i += Math.max(1, keyStep)) {
            out.add(new FlaggedKey(i, flags));
        }
        return true;
    }

    static final int BEGIN_OTHER = 0;
    static final int BEGIN_INDEX = 1;
    static final int BEGIN_KEYWORD = 2;
    static final int FIND_OTHER = 0;
    static final int FIND_RANGE = 1;
    static final int FIND_KEYNUM = 2;

    static int beginType(String t) {
        return "index".equals(t) ? BEGIN_INDEX : "keyword".equals(t) ? BEGIN_KEYWORD : BEGIN_OTHER;
    }

    static int findType(String t) {
        return "range".equals(t) ? FIND_RANGE : "keynum".equals(t) ? FIND_KEYNUM : FIND_OTHER;
    }
}
