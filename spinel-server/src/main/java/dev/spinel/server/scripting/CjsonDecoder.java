package dev.spinel.server.scripting;

import dev.spinel.protocol.Strtod;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;

import java.io.ByteArrayOutputStream;

/**
 * {@code cjson.decode}: lua-cjson 2.1.0's tokenizer and parser, with its error texts ("Expected value but
 * found invalid token at character 1"). The input is read as a C string: a NUL byte ends it. Numbers
 * are read as C's {@code strtod} reads them (with {@code decode_invalid_numbers} on, the default:
 * hex, {@code inf}, {@code nan}, a leading {@code +} or zeros); {@code null} is {@link CjsonLib#NULL}.
 *
 * <p>One instance per call.
 */
final class CjsonDecoder {
    // Token types, named as lua-cjson names them in its messages.
    private static final int OBJ_BEGIN = 0;
    private static final int OBJ_END = 1;
    private static final int ARR_BEGIN = 2;
    private static final int ARR_END = 3;
    private static final int STRING = 4;
    private static final int NUMBER = 5;
    private static final int BOOLEAN = 6;
    private static final int NULL = 7;
    private static final int COLON = 8;
    private static final int COMMA = 9;
    private static final int END = 10;
    private static final int ERROR = 12;
    private static final String[] NAMES = {"T_OBJ_BEGIN", "T_OBJ_END", "T_ARR_BEGIN", "T_ARR_END", "T_STRING",
        "T_NUMBER", "T_BOOLEAN", "T_NULL", "T_COLON", "T_COMMA", "T_END", "T_WHITESPACE", "T_ERROR", "T_UNKNOWN"};

    private final CjsonLib cfg;
    private final byte[] data;
    private final int length;
    private int ptr;
    private int depth;
    /** The Lua stack slots lua-cjson would use: the argument, a table per level, a key per object level. */
    private int stack = 1;

    // The current token.
    private int type;
    private int index;
    private String error;
    private LuaValue value;

    CjsonDecoder(CjsonLib cfg, LuaString s) {
        this.cfg = cfg;
        this.data = CjsonLib.bytes(s);
        this.length = s.m_length;
    }

    LuaValue decode() {
        if (length >= 2 && (at(0) == 0 || at(1) == 0)) {
            throw new LuaError("JSON parser does not support UTF-16 or UTF-32");
        }
        next();
        LuaValue v;
        try {
            v = processValue();
        } catch (StackOverflowError overflow) {
            throw new LuaError("Found too many nested data structures (" + depth + ") at character " + ptr);
        }
        next();
        if (type != END) {
            throw parseError("the end");
        }
        return v;
    }

    private int at(int i) {
        return i < length ? data[i] & 0xff : 0;
    }

    private LuaError parseError(String expected) {
        String found = type == ERROR ? error : NAMES[type];
        return new LuaError("Expected " + expected + " but found " + found + " at character " + (index + 1));
    }

    private void tokenError(String what) {
        type = ERROR;
        index = ptr;
        error = what;
    }

    private LuaValue processValue() {
        return switch (type) {
            case STRING, NUMBER, BOOLEAN -> value;
            case NULL -> CjsonLib.NULL;
            case OBJ_BEGIN -> object();
            case ARR_BEGIN -> array();
            default -> throw parseError("value");
        };
    }

    private void descend(int slots) {
        depth++;
        if (depth > cfg.decodeMaxDepth || stack + slots > CjsonEncoder.MAX_C_STACK) {
            throw new LuaError("Found too many nested data structures (" + depth + ") at character " + ptr);
        }
    }

    private LuaTable object() {
        descend(3);
        LuaTable t = new LuaTable();
        stack++;
        next();
        if (type == OBJ_END) {
            depth--;
            stack--;
            return t;
        }
        while (true) {
            if (type != STRING) {
                throw parseError("object key string");
            }
            LuaValue key = value;
            next();
            if (type != COLON) {
                throw parseError("colon");
            }
            next();
            stack++;
            t.rawset(key, processValue());
            stack--;
            next();
            if (type == OBJ_END) {
                depth--;
                stack--;
                return t;
            }
            if (type != COMMA) {
                throw parseError("comma or object end");
            }
            next();
        }
    }

    private LuaTable array() {
        descend(2);
        LuaTable t = new LuaTable();
        stack++;
        next();
        if (type == ARR_END) {
            depth--;
            stack--;
            return t;
        }
        for (int i = 1;; i++) {
            t.rawset(i, processValue());
            next();
            if (type == ARR_END) {
                depth--;
                stack--;
                return t;
            }
            if (type != COMMA) {
                throw parseError("comma or array end");
            }
            next();
        }
    }

    private void next() {
        int ch;
        while ((ch = at(ptr)) == ' ' || ch == '\t' || ch == '\r' || ch == '\n') {
            ptr++;
        }
        index = ptr;
        switch (ch) {
            case 0 -> {
                type = END;
                return;
            }
            case '{' -> type = OBJ_BEGIN;
            case '}' -> type = OBJ_END;
            case '[' -> type = ARR_BEGIN;
            case ']' -> type = ARR_END;
            case ':' -> type = COLON;
            case ',' -> type = COMMA;
            default -> {
                unknown(ch);
                return;
            }
        }
        ptr++;
    }

    private boolean startsWith(String word) {
        for (int i = 0; i < word.length(); i++) {
            if (at(ptr + i) != word.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private void unknown(int ch) {
        boolean invalidNumbers = cfg.decodeInvalidNumbers != 0;
        boolean known = ch == '"' || ch == '-' || (ch >= '0' && ch <= '9') || ch == 't' || ch == 'f' || ch == 'n'
            || (invalidNumbers && (ch == 'i' || ch == 'I' || ch == 'N' || ch == '+'));
        if (!known) {
            tokenError("invalid token");
        } else if (ch == '"') {
            string();
        } else if (ch == '-' || (ch >= '0' && ch <= '9')) {
            if (!invalidNumbers && isInvalidNumber()) {
                tokenError("invalid number");
            } else {
                number();
            }
        } else if (startsWith("true")) {
            type = BOOLEAN;
            value = LuaValue.TRUE;
            ptr += 4;
        } else if (startsWith("false")) {
            type = BOOLEAN;
            value = LuaValue.FALSE;
            ptr += 5;
        } else if (startsWith("null")) {
            type = NULL;
            ptr += 4;
        } else if (invalidNumbers && isInvalidNumber()) {
            number();
        } else {
            tokenError("invalid token");
        }
    }

    /** lua-cjson's json_is_invalid_number: valid for strtod but not JSON. */
    private boolean isInvalidNumber() {
        int p = ptr;
        if (at(p) == '+') {
            return true;
        }
        if (at(p) == '-') {
            p++;
        }
        if (at(p) == '0') {
            int ch2 = at(p + 1);
            return (ch2 | 0x20) == 'x' || (ch2 >= '0' && ch2 <= '9');
        } else if (at(p) <= '9') {
            return false;
        }
        return matchesIgnoreCase(p, "inf") || matchesIgnoreCase(p, "nan");
    }

    private boolean matchesIgnoreCase(int p, String word) {
        for (int i = 0; i < word.length(); i++) {
            if ((at(p + i) | 0x20) != word.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    private void number() {
        int end = Strtod.scanNumber(data, ptr, length);
        if (end == ptr) {
            tokenError("invalid number");
            return;
        }
        type = NUMBER;
        value = LuaValue.valueOf(Strtod.value(data, ptr, end));
        ptr = end;
    }

    private void string() {
        ptr++;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int ch;
        while ((ch = at(ptr)) != '"') {
            if (ch == 0) {
                tokenError("unexpected end of string");
                return;
            }
            if (ch == '\\') {
                int esc = at(ptr + 1);
                ch = switch (esc) {
                    case '"', '\\', '/' -> esc;
                    case 'b' -> '\b';
                    case 'f' -> '\f';
                    case 'n' -> '\n';
                    case 'r' -> '\r';
                    case 't' -> '\t';
                    case 'u' -> 'u';
                    default -> 0;
                };
                if (ch == 'u') {
                    if (unicodeEscape(out)) {
                        continue;
                    }
                    tokenError("invalid unicode escape code");
                    return;
                }
                if (ch == 0) {
                    tokenError("invalid escape code");
                    return;
                }
                ptr++;
            }
            out.write(ch);
            ptr++;
        }
        ptr++;
        type = STRING;
        value = CjsonLib.string(out);
    }

    private int hex4(int p) {
        int v = 0;
        for (int i = 0; i < 4; i++) {
            int d = Character.digit(at(p + i), 16);
            if (d < 0) {
                return -1;
            }
            v = v << 4 | d;
        }
        return v;
    }

    /** A {@code \}{@code uXXXX} escape (or a surrogate pair of them) appended as UTF-8; false if invalid. */
    private boolean unicodeEscape(ByteArrayOutputStream out) {
        int cp = hex4(ptr + 2);
        int len = 6;
        if (cp < 0) {
            return false;
        }
        if ((cp & 0xF800) == 0xD800) {
            if ((cp & 0x400) != 0 || at(ptr + 6) != '\\' || at(ptr + 7) != 'u') {
                return false;
            }
            int low = hex4(ptr + 8);
            if (low < 0 || (low & 0xFC00) != 0xDC00) {
                return false;
            }
            cp = (((cp & 0x3FF) << 10) | (low & 0x3FF)) + 0x10000;
            len = 12;
        }
        if (cp < 0x80) {
            out.write(cp);
        } else if (cp < 0x800) {
            out.write(0xC0 | cp >> 6);
            out.write(0x80 | cp & 0x3F);
        } else if (cp < 0x10000) {
            out.write(0xE0 | cp >> 12);
            out.write(0x80 | cp >> 6 & 0x3F);
            out.write(0x80 | cp & 0x3F);
        } else {
            out.write(0xF0 | cp >> 18);
            out.write(0x80 | cp >> 12 & 0x3F);
            out.write(0x80 | cp >> 6 & 0x3F);
            out.write(0x80 | cp & 0x3F);
        }
        ptr += len;
        return true;
    }
}
