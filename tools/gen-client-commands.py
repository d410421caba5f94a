#!/usr/bin/env python3
"""Generates the typed command surface of spinel-client from the table below.

For each family it writes the public async and sync interfaces (dev.spinel.client) and the internal
implementations as interfaces with default methods (dev.spinel.client.internal), so each command is
one row here. Run from the repository root: python3 tools/gen-client-commands.py
"""
import os, re

# family -> (title, rows); a row: (syntax, return type, method, params, args, reply, blocking timeout param or None)
FAMILIES = {
 "String": ("strings", [
  ("GET key", "V", "get", "K key", "GET, k(key)", "replies().value", None),
  ("SET key value", "String", "set", "K key, V value", "SET, k(key), v(value)", "Replies.STATUS", None),
  ("SET key value [NX|XX] [EX|PX|EXAT|PXAT|KEEPTTL] (null when NX/XX prevented it)", "String", "set", "K key, V value, SetArgs setArgs", "SET, k(key), v(value), setArgs.encode()", "Replies.STATUS_OR_NULL", None),
  ("SET key value EX seconds", "String", "setex", "K key, long seconds, V value", "SETEX, k(key), seconds, v(value)", "Replies.STATUS", None),
  ("SET key value PX milliseconds", "String", "psetex", "K key, long milliseconds, V value", "PSETEX, k(key), milliseconds, v(value)", "Replies.STATUS", None),
  ("SETNX key value (true if set)", "Boolean", "setnx", "K key, V value", "SETNX, k(key), v(value)", "Replies.BOOLEAN", None),
  ("GETSET key value", "V", "getset", "K key, V value", "GETSET, k(key), v(value)", "replies().value", None),
  ("GETDEL key", "V", "getdel", "K key", "GETDEL, k(key)", "replies().value", None),
  ("MGET key [key ...] (null for a missing key)", "List<V>", "mget", "K... keys", "MGET, ks(keys)", "replies().values", None),
  ("MSET key value [key value ...]", "String", "mset", "Map<K, V> map", "MSET, kv(map)", "Replies.STATUS", None),
  ("MSETNX key value [key value ...]", "Boolean", "msetnx", "Map<K, V> map", "MSETNX, kv(map)", "Replies.BOOLEAN", None),
  ("INCR key", "Long", "incr", "K key", "INCR, k(key)", "Replies.LONG", None),
  ("INCRBY key increment", "Long", "incrby", "K key, long increment", "INCRBY, k(key), increment", "Replies.LONG", None),
  ("DECR key", "Long", "decr", "K key", "DECR, k(key)", "Replies.LONG", None),
  ("DECRBY key decrement", "Long", "decrby", "K key, long decrement", "DECRBY, k(key), decrement", "Replies.LONG", None),
  ("INCRBYFLOAT key increment", "Double", "incrbyfloat", "K key, double increment", "INCRBYFLOAT, k(key), num(increment)", "Replies.DOUBLE", None),
  ("APPEND key value (the new length)", "Long", "append", "K key, V value", "APPEND, k(key), v(value)", "Replies.LONG", None),
  ("STRLEN key", "Long", "strlen", "K key", "STRLEN, k(key)", "Replies.LONG", None),
  ("GETRANGE key start end", "V", "getrange", "K key, long start, long end", "GETRANGE, k(key), start, end", "replies().value", None),
  ("SETRANGE key offset value", "Long", "setrange", "K key, long offset, V value", "SETRANGE, k(key), offset, v(value)", "Replies.LONG", None),
  ("SETBIT key offset value (the bit it had)", "Long", "setbit", "K key, long offset, long value", "SETBIT, k(key), offset, value", "Replies.LONG", None),
  ("GETBIT key offset", "Long", "getbit", "K key, long offset", "GETBIT, k(key), offset", "Replies.LONG", None),
  ("BITCOUNT key", "Long", "bitcount", "K key", "BITCOUNT, k(key)", "Replies.LONG", None),
  ("BITCOUNT key start end (byte indexes)", "Long", "bitcount", "K key, long start, long end", "BITCOUNT, k(key), start, end", "Replies.LONG", None),
  ("BITCOUNT key start end BYTE|BIT", "Long", "bitcount", "K key, long start, long end, boolean bitIndexes", "BITCOUNT, k(key), start, end, bitIndexes ? BIT : BYTE", "Replies.LONG", None),
  ("BITPOS key bit (-1 if none)", "Long", "bitpos", "K key, long bit", "BITPOS, k(key), bit", "Replies.LONG", None),
  ("BITPOS key bit start (byte index)", "Long", "bitpos", "K key, long bit, long start", "BITPOS, k(key), bit, start", "Replies.LONG", None),
  ("BITPOS key bit start end BYTE|BIT", "Long", "bitpos", "K key, long bit, long start, long end, boolean bitIndexes", "BITPOS, k(key), bit, start, end, bitIndexes ? BIT : BYTE", "Replies.LONG", None),
  ("BITOP AND|OR|XOR|NOT destkey key [key ...] (the result's length)", "Long", "bitop", "BitOperation operation, K destination, K... keys", "BITOP, operation.name(), k(destination), ks(keys)", "Replies.LONG", None),
  ("BITFIELD key [GET|SET|INCRBY|OVERFLOW ...] (a value per GET/SET/INCRBY, null where OVERFLOW FAIL refused it)", "List<Long>", "bitfield", "K key, BitFieldArgs subcommands", "BITFIELD, k(key), subcommands.encode()", "Replies.LONGS_OR_NULLS", None),
  ("BITFIELD_RO key GET type offset [GET type offset ...]", "List<Long>", "bitfieldRo", "K key, BitFieldArgs gets", "BITFIELD_RO, k(key), gets.encode()", "Replies.LONGS_OR_NULLS", None),
 ]),
 "Key": ("keys", [
  ("DEL key [key ...]", "Long", "del", "K... keys", "DEL, ks(keys)", "Replies.LONG", None),
  ("UNLINK key [key ...]", "Long", "unlink", "K... keys", "UNLINK, ks(keys)", "Replies.LONG", None),
  ("EXISTS key [key ...] (how many exist)", "Long", "exists", "K... keys", "EXISTS, ks(keys)", "Replies.LONG", None),
  ("TOUCH key [key ...]", "Long", "touch", "K... keys", "TOUCH, ks(keys)", "Replies.LONG", None),
  ("EXPIRE key seconds", "Boolean", "expire", "K key, long seconds", "EXPIRE, k(key), seconds", "Replies.BOOLEAN", None),
  ("PEXPIRE key milliseconds", "Boolean", "pexpire", "K key, long milliseconds", "PEXPIRE, k(key), milliseconds", "Replies.BOOLEAN", None),
  ("EXPIREAT key unix-time-seconds", "Boolean", "expireat", "K key, long unixSeconds", "EXPIREAT, k(key), unixSeconds", "Replies.BOOLEAN", None),
  ("PERSIST key", "Boolean", "persist", "K key", "PERSIST, k(key)", "Replies.BOOLEAN", None),
  ("TTL key (-2 missing, -1 no expiry)", "Long", "ttl", "K key", "TTL, k(key)", "Replies.LONG", None),
  ("PTTL key", "Long", "pttl", "K key", "PTTL, k(key)", "Replies.LONG", None),
  ("TYPE key", "String", "type", "K key", "TYPE, k(key)", "Replies.STATUS", None),
  ("RENAME key newkey", "String", "rename", "K key, K newKey", "RENAME, k(key), k(newKey)", "Replies.STATUS", None),
  ("RENAMENX key newkey", "Boolean", "renamenx", "K key, K newKey", "RENAMENX, k(key), k(newKey)", "Replies.BOOLEAN", None),
  ("KEYS pattern", "List<K>", "keys", "K pattern", "KEYS, k(pattern)", "replies().keys", None),
  ("RANDOMKEY", "K", "randomkey", "", "RANDOMKEY", "replies().key", None),
  ("SCAN cursor", "ScanCursor<K>", "scan", "String cursor", "SCAN, cursor", "replies().scan", None),
  ("SCAN cursor MATCH pattern COUNT count", "ScanCursor<K>", "scan", "String cursor, K pattern, long count", "SCAN, cursor, MATCH, k(pattern), COUNT, count", "replies().scan", None),
 ]),
 "List": ("lists", [
  ("LPUSH key element [element ...]", "Long", "lpush", "K key, V... values", "LPUSH, k(key), vs(values)", "Replies.LONG", None),
  ("RPUSH key element [element ...]", "Long", "rpush", "K key, V... values", "RPUSH, k(key), vs(values)", "Replies.LONG", None),
  ("LPUSHX key element [element ...]", "Long", "lpushx", "K key, V... values", "LPUSHX, k(key), vs(values)", "Replies.LONG", None),
  ("RPUSHX key element [element ...]", "Long", "rpushx", "K key, V... values", "RPUSHX, k(key), vs(values)", "Replies.LONG", None),
  ("LPOP key", "V", "lpop", "K key", "LPOP, k(key)", "replies().value", None),
  ("RPOP key", "V", "rpop", "K key", "RPOP, k(key)", "replies().value", None),
  ("LPOP key count", "List<V>", "lpop", "K key, long count", "LPOP, k(key), count", "replies().values", None),
  ("RPOP key count", "List<V>", "rpop", "K key, long count", "RPOP, k(key), count", "replies().values", None),
  ("LLEN key", "Long", "llen", "K key", "LLEN, k(key)", "Replies.LONG", None),
  ("LRANGE key start stop", "List<V>", "lrange", "K key, long start, long stop", "LRANGE, k(key), start, stop", "replies().values", None),
  ("LINDEX key index", "V", "lindex", "K key, long index", "LINDEX, k(key), index", "replies().value", None),
  ("LSET key index element", "String", "lset", "K key, long index, V value", "LSET, k(key), index, v(value)", "Replies.STATUS", None),
  ("LREM key count element", "Long", "lrem", "K key, long count, V value", "LREM, k(key), count, v(value)", "Replies.LONG", None),
  ("LTRIM key start stop", "String", "ltrim", "K key, long start, long stop", "LTRIM, k(key), start, stop", "Replies.STATUS", None),
  ("LINSERT key BEFORE|AFTER pivot element (-1 if no pivot)", "Long", "linsert", "K key, boolean before, V pivot, V value", "LINSERT, k(key), before ? BEFORE : AFTER, v(pivot), v(value)", "Replies.LONG", None),
  ("LPOS key element (null if absent)", "Long", "lpos", "K key, V element", "LPOS, k(key), v(element)", "Replies.LONG_OR_NULL", None),
  ("LMOVE source destination LEFT|RIGHT LEFT|RIGHT", "V", "lmove", "K source, K destination, ListDirection from, ListDirection to", "LMOVE, k(source), k(destination), from.name(), to.name()", "replies().value", None),
  ("BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout (null on timeout)", "V", "blmove", "K source, K destination, ListDirection from, ListDirection to, double timeoutSeconds", "BLMOVE, k(source), k(destination), from.name(), to.name(), num(timeoutSeconds)", "replies().value", "timeoutSeconds"),
  ("RPOPLPUSH source destination", "V", "rpoplpush", "K source, K destination", "RPOPLPUSH, k(source), k(destination)", "replies().value", None),
  ("BLPOP key [key ...] timeout (null on timeout)", "KeyValue<K, V>", "blpop", "double timeoutSeconds, K... keys", "BLPOP, ks(keys), num(timeoutSeconds)", "replies().keyValue", "timeoutSeconds"),
  ("BRPOP key [key ...] timeout (null on timeout)", "KeyValue<K, V>", "brpop", "double timeoutSeconds, K... keys", "BRPOP, ks(keys), num(timeoutSeconds)", "replies().keyValue", "timeoutSeconds"),
  ("BRPOPLPUSH source destination timeout (null on timeout)", "V", "brpoplpush", "K source, K destination, double timeoutSeconds", "BRPOPLPUSH, k(source), k(destination), num(timeoutSeconds)", "replies().value", "timeoutSeconds"),
 ]),
 "Hash": ("hashes", [
  ("HSET key field value (true if the field is new)", "Boolean", "hset", "K key, K field, V value", "HSET, k(key), k(field), v(value)", "Replies.BOOLEAN", None),
  ("HSET key field value [field value ...] (fields added)", "Long", "hset", "K key, Map<K, V> map", "HSET, k(key), kv(map)", "Replies.LONG", None),
  ("HSETNX key field value", "Boolean", "hsetnx", "K key, K field, V value", "HSETNX, k(key), k(field), v(value)", "Replies.BOOLEAN", None),
  ("HGET key field", "V", "hget", "K key, K field", "HGET, k(key), k(field)", "replies().value", None),
  ("HMGET key field [field ...]", "List<V>", "hmget", "K key, K... fields", "HMGET, k(key), ks(fields)", "replies().values", None),
  ("HGETALL key", "Map<K, V>", "hgetall", "K key", "HGETALL, k(key)", "replies().map", None),
  ("HDEL key field [field ...]", "Long", "hdel", "K key, K... fields", "HDEL, k(key), ks(fields)", "Replies.LONG", None),
  ("HEXISTS key field", "Boolean", "hexists", "K key, K field", "HEXISTS, k(key), k(field)", "Replies.BOOLEAN", None),
  ("HLEN key", "Long", "hlen", "K key", "HLEN, k(key)", "Replies.LONG", None),
  ("HSTRLEN key field", "Long", "hstrlen", "K key, K field", "HSTRLEN, k(key), k(field)", "Replies.LONG", None),
  ("HINCRBY key field increment", "Long", "hincrby", "K key, K field, long increment", "HINCRBY, k(key), k(field), increment", "Replies.LONG", None),
  ("HINCRBYFLOAT key field increment", "Double", "hincrbyfloat", "K key, K field, double increment", "HINCRBYFLOAT, k(key), k(field), num(increment)", "Replies.DOUBLE", None),
  ("HKEYS key", "List<K>", "hkeys", "K key", "HKEYS, k(key)", "replies().keys", None),
  ("HVALS key", "List<V>", "hvals", "K key", "HVALS, k(key)", "replies().values", None),
  ("HSCAN key cursor MATCH pattern COUNT count", "ScanCursor<KeyValue<K, V>>", "hscan", "K key, String cursor, K pattern, long count", "HSCAN, k(key), cursor, MATCH, k(pattern), COUNT, count", "replies().hscan", None),
 ]),
 "Set": ("sets", [
  ("SADD key member [member ...]", "Long", "sadd", "K key, V... members", "SADD, k(key), vs(members)", "Replies.LONG", None),
  ("SREM key member [member ...]", "Long", "srem", "K key, V... members", "SREM, k(key), vs(members)", "Replies.LONG", None),
  ("SMEMBERS key (in no particular order)", "List<V>", "smembers", "K key", "SMEMBERS, k(key)", "replies().values", None),
  ("SISMEMBER key member", "Boolean", "sismember", "K key, V member", "SISMEMBER, k(key), v(member)", "Replies.BOOLEAN", None),
  ("SCARD key", "Long", "scard", "K key", "SCARD, k(key)", "Replies.LONG", None),
  ("SPOP key", "V", "spop", "K key", "SPOP, k(key)", "replies().value", None),
  ("SRANDMEMBER key", "V", "srandmember", "K key", "SRANDMEMBER, k(key)", "replies().value", None),
  ("SMOVE source destination member", "Boolean", "smove", "K source, K destination, V member", "SMOVE, k(source), k(destination), v(member)", "Replies.BOOLEAN", None),
  ("SINTER key [key ...]", "List<V>", "sinter", "K... keys", "SINTER, ks(keys)", "replies().values", None),
  ("SUNION key [key ...]", "List<V>", "sunion", "K... keys", "SUNION, ks(keys)", "replies().values", None),
  ("SDIFF key [key ...]", "List<V>", "sdiff", "K... keys", "SDIFF, ks(keys)", "replies().values", None),
  ("SINTERSTORE destination key [key ...]", "Long", "sinterstore", "K destination, K... keys", "SINTERSTORE, k(destination), ks(keys)", "Replies.LONG", None),
  ("SUNIONSTORE destination key [key ...]", "Long", "sunionstore", "K destination, K... keys", "SUNIONSTORE, k(destination), ks(keys)", "Replies.LONG", None),
  ("SSCAN key cursor MATCH pattern COUNT count", "ScanCursor<V>", "sscan", "K key, String cursor, V pattern, long count", "SSCAN, k(key), cursor, MATCH, v(pattern), COUNT, count", "replies().sscan", None),
  ("SDIFFSTORE destination key [key ...]", "Long", "sdiffstore", "K destination, K... keys", "SDIFFSTORE, k(destination), ks(keys)", "Replies.LONG", None),
 ]),
 "SortedSet": ("sorted sets", [
  ("ZADD key score member (members added)", "Long", "zadd", "K key, double score, V member", "ZADD, k(key), num(score), v(member)", "Replies.LONG", None),
  ("ZADD key score member [score member ...]", "Long", "zadd", "K key, List<ScoredValue<V>> members", "ZADD, k(key), scored(members)", "Replies.LONG", None),
  ("ZSCORE key member (null if absent)", "Double", "zscore", "K key, V member", "ZSCORE, k(key), v(member)", "Replies.DOUBLE", None),
  ("ZINCRBY key increment member", "Double", "zincrby", "K key, double increment, V member", "ZINCRBY, k(key), num(increment), v(member)", "Replies.DOUBLE", None),
  ("ZREM key member [member ...]", "Long", "zrem", "K key, V... members", "ZREM, k(key), vs(members)", "Replies.LONG", None),
  ("ZCARD key", "Long", "zcard", "K key", "ZCARD, k(key)", "Replies.LONG", None),
  ("ZCOUNT key min max", "Long", "zcount", "K key, double min, double max", "ZCOUNT, k(key), num(min), num(max)", "Replies.LONG", None),
  ("ZRANK key member (null if absent)", "Long", "zrank", "K key, V member", "ZRANK, k(key), v(member)", "Replies.LONG_OR_NULL", None),
  ("ZREVRANK key member (null if absent)", "Long", "zrevrank", "K key, V member", "ZREVRANK, k(key), v(member)", "Replies.LONG_OR_NULL", None),
  ("ZRANGE key start stop", "List<V>", "zrange", "K key, long start, long stop", "ZRANGE, k(key), start, stop", "replies().values", None),
  ("ZRANGE key start stop REV", "List<V>", "zrevrange", "K key, long start, long stop", "ZREVRANGE, k(key), start, stop", "replies().values", None),
  ("ZRANGE key start stop WITHSCORES", "List<ScoredValue<V>>", "zrangeWithScores", "K key, long start, long stop", "ZRANGE, k(key), start, stop, WITHSCORES", "replies().scored", None),
  ("ZPOPMIN key count", "List<ScoredValue<V>>", "zpopmin", "K key, long count", "ZPOPMIN, k(key), count", "replies().scored", None),
  ("ZPOPMAX key count", "List<ScoredValue<V>>", "zpopmax", "K key, long count", "ZPOPMAX, k(key), count", "replies().scored", None),
  ("BZPOPMIN key [key ...] timeout (null on timeout)", "KeyValue<K, ScoredValue<V>>", "bzpopmin", "double timeoutSeconds, K... keys", "BZPOPMIN, ks(keys), num(timeoutSeconds)", "replies().keyScored", "timeoutSeconds"),
  ("BZPOPMAX key [key ...] timeout (null on timeout)", "KeyValue<K, ScoredValue<V>>", "bzpopmax", "double timeoutSeconds, K... keys", "BZPOPMAX, ks(keys), num(timeoutSeconds)", "replies().keyScored", "timeoutSeconds"),
  ("ZSCAN key cursor MATCH pattern COUNT count", "ScanCursor<ScoredValue<V>>", "zscan", "K key, String cursor, V pattern, long count", "ZSCAN, k(key), cursor, MATCH, v(pattern), COUNT, count", "replies().zscan", None),
  ("ZRANGEBYSCORE key min max", "List<V>", "zrangebyscore", "K key, double min, double max", "ZRANGEBYSCORE, k(key), num(min), num(max)", "replies().values", None),
 ]),
 "Geo": ("geo", [
  ("GEOADD key longitude latitude member (members added)", "Long", "geoadd", "K key, double longitude, double latitude, V member", "GEOADD, k(key), num(longitude), num(latitude), v(member)", "Replies.LONG", None),
  ("GEOADD key longitude latitude member [longitude latitude member ...]", "Long", "geoadd", "K key, List<GeoValue<V>> values", "GEOADD, k(key), GeoReplies.args(this, values)", "Replies.LONG", None),
  ("GEOPOS key member [member ...] (null for a missing member)", "List<GeoCoordinates>", "geopos", "K key, V... members", "GEOPOS, k(key), vs(members)", "GeoReplies.positions()", None),
  ("GEODIST key member1 member2 M|KM|MI|FT (null if either is missing)", "Double", "geodist", "K key, V from, V to, GeoUnit unit", "GEODIST, k(key), v(from), v(to), unit.name()", "Replies.DOUBLE", None),
  ("GEOHASH key member [member ...] (null for a missing member)", "List<String>", "geohash", "K key, V... members", "GEOHASH, k(key), vs(members)", "GeoReplies.hashes()", None),
  ("GEOSEARCH key FROMMEMBER m|FROMLONLAT lon lat BYRADIUS r unit|BYBOX w h unit [ASC|DESC] [COUNT n [ANY]] [WITHCOORD] [WITHDIST] [WITHHASH]", "List<GeoResult<V>>", "geosearch", "K key, GeoSearchArgs<V> args", "GEOSEARCH, k(key), args.encode(this::v)", "GeoReplies.results(replies())", None),
 ]),
 "HyperLogLog": ("HyperLogLog", [
  ("PFADD key element [element ...] (true if the estimate may have changed)", "Boolean", "pfadd", "K key, V... elements", "PFADD, k(key), vs(elements)", "Replies.BOOLEAN", None),
  ("PFCOUNT key [key ...] (the estimated cardinality of their union)", "Long", "pfcount", "K... keys", "PFCOUNT, ks(keys)", "Replies.LONG", None),
  ("PFMERGE destkey [sourcekey ...]", "String", "pfmerge", "K destkey, K... sourcekeys", "PFMERGE, k(destkey), ks(sourcekeys)", "Replies.STATUS", None),
 ]),
 "Scripting": ("Lua scripting", [
  ("EVAL script numkeys [key ...] [arg ...] (the script's reply as the server sent it)", "RespValue", "eval", "String script, K[] keys, V... args", "EVAL, script, (long) keys.length, ks(keys), vs(args)", "Replies.RAW", None),
  ("EVALSHA sha1 numkeys [key ...] [arg ...] (NOSCRIPT error if the server does not have it)", "RespValue", "evalsha", "String sha1, K[] keys, V... args", "EVALSHA, sha1, (long) keys.length, ks(keys), vs(args)", "Replies.RAW", None),
  ("EVAL_RO script numkeys [key ...] [arg ...] (write commands in the script are refused)", "RespValue", "evalReadOnly", "String script, K[] keys, V... args", "EVAL_RO, script, (long) keys.length, ks(keys), vs(args)", "Replies.RAW", None),
  ("EVALSHA_RO sha1 numkeys [key ...] [arg ...]", "RespValue", "evalshaReadOnly", "String sha1, K[] keys, V... args", "EVALSHA_RO, sha1, (long) keys.length, ks(keys), vs(args)", "Replies.RAW", None),
  ("SCRIPT LOAD script (its SHA1)", "String", "scriptLoad", "String script", "SCRIPT, LOAD, script", "Replies.STATUS", None),
  ("SCRIPT FLUSH", "String", "scriptFlush", "", "SCRIPT, FLUSH", "Replies.STATUS", None),
  ("FCALL function numkeys [key ...] [arg ...] (the function's reply as the server sent it)", "RespValue", "fcall", "String function, K[] keys, V... args", "FCALL, function, (long) keys.length, ks(keys), vs(args)", "Replies.RAW", None),
  ("FCALL_RO function numkeys [key ...] [arg ...] (only functions flagged no-writes)", "RespValue", "fcallReadOnly", "String function, K[] keys, V... args", "FCALL_RO, function, (long) keys.length, ks(keys), vs(args)", "Replies.RAW", None),
  ("FUNCTION LOAD code (the library's name; an error if it exists)", "String", "functionLoad", "String code", "FUNCTION, LOAD, code", "Replies.STATUS", None),
  ("FUNCTION LOAD REPLACE code (the library's name)", "String", "functionLoadReplace", "String code", "FUNCTION, LOAD, REPLACE, code", "Replies.STATUS", None),
  ("FUNCTION DELETE library-name", "String", "functionDelete", "String library", "FUNCTION, DELETE, library", "Replies.STATUS", None),
  ("FUNCTION FLUSH", "String", "functionFlush", "", "FUNCTION, FLUSH", "Replies.STATUS", None),
 ]),
 "Stream": ("stream", [
  ("XADD key id field value [field value ...] (the entry's ID; \"*\" lets the server choose it, \"ms-*\" the sequence)", "String", "xadd", "K key, String id, Map<K, V> fields", "XADD, k(key), id, kv(fields)", "Replies.STATUS", None),
  ("XADD key MAXLEN ~ maxlen * field value [field value ...] (trims whole nodes to keep about maxlen entries)", "String", "xaddCapped", "K key, long maxLen, Map<K, V> fields", "XADD, k(key), MAXLEN, \"~\", maxLen, \"*\", kv(fields)", "Replies.STATUS", None),
  ("XLEN key", "Long", "xlen", "K key", "XLEN, k(key)", "Replies.LONG", None),
  ("XRANGE key start end (\"-\" and \"+\" for the ends, \"(id\" exclusive)", "List<StreamEntry<K, V>>", "xrange", "K key, String start, String end", "XRANGE, k(key), start, end", "StreamReplies.entries(replies())", None),
  ("XRANGE key start end COUNT count", "List<StreamEntry<K, V>>", "xrange", "K key, String start, String end, long count", "XRANGE, k(key), start, end, COUNT, count", "StreamReplies.entries(replies())", None),
  ("XREVRANGE key end start", "List<StreamEntry<K, V>>", "xrevrange", "K key, String end, String start", "XREVRANGE, k(key), end, start", "StreamReplies.entries(replies())", None),
  ("XREVRANGE key end start COUNT count", "List<StreamEntry<K, V>>", "xrevrange", "K key, String end, String start, long count", "XREVRANGE, k(key), end, start, COUNT, count", "StreamReplies.entries(replies())", None),
  ("XDEL key id (entries deleted)", "Long", "xdel", "K key, String id", "XDEL, k(key), id", "Replies.LONG", None),
  ("XTRIM key MAXLEN maxlen (entries removed)", "Long", "xtrim", "K key, long maxLen", "XTRIM, k(key), MAXLEN, maxLen", "Replies.LONG", None),
  ("XREAD COUNT count STREAMS key id (entries after id; empty if none)", "List<StreamEntry<K, V>>", "xread", "K key, String id, long count", "XREAD, COUNT, count, STREAMS, k(key), id", "StreamReplies.read(replies())", None),
  ("XGROUP CREATE key group id MKSTREAM (\"$\": only entries added from now on)", "String", "xgroupCreate", "K key, String group, String id", "XGROUP, CREATE, k(key), group, id, MKSTREAM", "Replies.STATUS", None),
  ("XREADGROUP GROUP group consumer COUNT count STREAMS key id (\">\": new entries; an ID: the consumer's pending ones after it)", "List<StreamEntry<K, V>>", "xreadgroup", "String group, String consumer, K key, String id, long count", "XREADGROUP, GROUP, group, consumer, COUNT, count, STREAMS, k(key), id", "StreamReplies.read(replies())", None),
  ("XACK key group id (entries acknowledged)", "Long", "xack", "K key, String group, String id", "XACK, k(key), group, id", "Replies.LONG", None),
 ]),
 "Server": ("server and connection", [
  ("PING", "String", "ping", "", "PING", "Replies.STATUS", None),
  ("ECHO message", "V", "echo", "V message", "ECHO, v(message)", "replies().value", None),
  ("DBSIZE", "Long", "dbsize", "", "DBSIZE", "Replies.LONG", None),
  ("INFO [section] (the text as the server writes it)", "String", "info", "String section", "INFO, section", "Replies.STATUS", None),
  ("FLUSHDB", "String", "flushdb", "", "FLUSHDB", "Replies.STATUS", None),
  ("FLUSHALL", "String", "flushall", "", "FLUSHALL", "Replies.STATUS", None),
  ("PUBLISH channel message (receivers)", "Long", "publish", "K channel, V message", "PUBLISH, k(channel), v(message)", "Replies.LONG", None),
  ("SPUBLISH shardchannel message (receivers)", "Long", "spublish", "K shardChannel, V message", "SPUBLISH, k(shardChannel), v(message)", "Replies.LONG", None),
 ]),
}

ROOT = "spinel-client/src/main/java/dev/spinel/client"
HEADER = "// Generated by tools/gen-client-commands.py from its command table: edit the table, not this file.\n"

def imports(rows, pkg_internal=False):
    text = " ".join(r[1] + " " + r[3] for r in rows)
    imp = ["java.util.concurrent.CompletableFuture"]
    if "List<" in text: imp.append("java.util.List")
    if "Map<" in text: imp.append("java.util.Map")
    pub = []
    if "KeyValue" in text: pub.append("dev.spinel.client.KeyValue")
    if "ScoredValue" in text: pub.append("dev.spinel.client.ScoredValue")
    if "SetArgs" in text: pub.append("dev.spinel.client.SetArgs")
    if "ScanCursor" in text: pub.append("dev.spinel.client.ScanCursor")
    if "ListDirection" in text: pub.append("dev.spinel.client.ListDirection")
    for geo in ("GeoCoordinates", "GeoResult", "GeoSearchArgs", "GeoUnit", "GeoValue"):
        if geo in text: pub.append("dev.spinel.client." + geo)
    if "BitOperation" in text: pub.append("dev.spinel.client.BitOperation")
    if "StreamEntry" in text: pub.append("dev.spinel.client.StreamEntry")
    if "BitFieldArgs" in text: pub.append("dev.spinel.client.BitFieldArgs")
    if "RespValue" in text: imp.append("dev.spinel.protocol.RespValue")
    return pub, sorted(imp)

def split_params(params):
    out, depth, cur = [], 0, ""
    for ch in params:
        if ch == "<": depth += 1
        if ch == ">": depth -= 1
        if ch == "," and depth == 0:
            out.append(cur); cur = ""
        else:
            cur += ch
    if cur.strip(): out.append(cur)
    return out

def param_names(params):
    return [p.split()[-1] for p in split_params(params)]

def varargs(params):
    return "..." in params

names = set()
def consts(args):
    first = args.split(",")[0].strip()
    names.add(first)
    for a in args.split(","):
        a = a.strip()
        if re.fullmatch(r"[A-Z_]+", a): names.add(a)

def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f: f.write(text)

for fam, (title, rows) in FAMILIES.items():
    pub, imp = imports(rows)
    # public async interface
    out = [HEADER, "package dev.spinel.client;\n\n"]
    out += ["import %s;\n" % i for i in imp if i.startswith("java") or i.startswith("dev.spinel.protocol")]
    out.append("\n/**\n * The %s commands, asynchronous: each returns at once; the future completes on the client's\n"
               " * event loop when the reply arrives (callbacks must not block). Thread-safe.\n */\n" % title)
    out.append("public interface Async%sCommands<K, V> {\n" % fam)
    for syn, ret, m, params, args, reply, blk in rows:
        sw = '    @SuppressWarnings("unchecked")\n' if varargs(params) else ""
        out.append("    /** {@code %s} */\n%s    CompletableFuture<%s> %s(%s);\n\n" % (syn, sw, ret, m, params))
    out[-1] = out[-1].rstrip("\n") + "\n"
    out.append("}\n")
    write(f"{ROOT}/Async{fam}Commands.java", "".join(out))
    # public sync interface
    out = [HEADER, "package dev.spinel.client;\n\n"]
    out += ["import %s;\n" % i for i in imp if (i.startswith("java") and "Completable" not in i) or i.startswith("dev.spinel.protocol")]
    out.append("\n/**\n * The %s commands, blocking: each call waits for its reply (parks, so it is cheap on virtual\n"
               " * threads) and throws {@link SpinelException} subclasses on failure. Thread-safe.\n */\n" % title)
    out.append("public interface Sync%sCommands<K, V> {\n" % fam)
    for syn, ret, m, params, args, reply, blk in rows:
        sw = '    @SuppressWarnings("unchecked")\n' if varargs(params) else ""
        out.append("    /** {@code %s} */\n%s    %s %s(%s);\n\n" % (syn, sw, ret, m, params))
    out[-1] = out[-1].rstrip("\n") + "\n"
    out.append("}\n")
    write(f"{ROOT}/Sync{fam}Commands.java", "".join(out))
    # internal async impl
    out = [HEADER, "package dev.spinel.client.internal;\n\n", "import dev.spinel.client.Async%sCommands;\n" % fam]
    out += ["import %s;\n" % i for i in pub]
    out += ["import %s;\n" % i for i in imp]
    out.append("\nimport static dev.spinel.client.internal.Names.*;\n")
    out.append("\n/** Implements {@link Async%sCommands} on a {@link Dispatcher}. Thread-safe. */\n" % fam)
    out.append("public interface %sCommandsImpl<K, V> extends Async%sCommands<K, V>, Dispatcher<K, V> {\n" % (fam, fam))
    for syn, ret, m, params, args, reply, blk in rows:
        consts(args)
        arr = "cat(%s)" % args if re.search(r"\b(ks|vs|kv|scored)\(|\.encode\(|GeoReplies\.args\(", args) else args
        sw = '    @SuppressWarnings("unchecked")\n' if varargs(params) else ""
        if blk:
            body = "return dispatchBlocking(Command.blocking(%s, blockingNanos(%s), %s));" % (reply, blk, arr)
        else:
            body = "return dispatch(new Command<>(%s, %s));" % (reply, arr)
        out.append("    @Override\n%s    default CompletableFuture<%s> %s(%s) {\n        %s\n    }\n\n" % (sw, ret, m, params, body))
    out[-1] = out[-1].rstrip("\n") + "\n"
    out.append("}\n")
    write(f"{ROOT}/internal/{fam}CommandsImpl.java", "".join(out))
    # internal sync impl
    out = [HEADER, "package dev.spinel.client.internal;\n\n", "import dev.spinel.client.Sync%sCommands;\n" % fam]
    out += ["import %s;\n" % i for i in pub]
    out += ["import %s;\n" % i for i in imp if "Completable" not in i]
    out.append("\n/** Implements {@link Sync%sCommands} by waiting on the asynchronous commands. Thread-safe. */\n" % fam)
    out.append("public interface Sync%sCommandsImpl<K, V> extends Sync%sCommands<K, V>, Awaiter<K, V> {\n" % (fam, fam))
    for syn, ret, m, params, args, reply, blk in rows:
        sw = '    @SuppressWarnings("unchecked")\n' if varargs(params) else ""
        out.append("    @Override\n%s    default %s %s(%s) {\n        return await(async().%s(%s));\n    }\n\n" % (sw, ret, m, params, m, ", ".join(param_names(params))))
    out[-1] = out[-1].rstrip("\n") + "\n"
    out.append("}\n")
    write(f"{ROOT}/internal/Sync{fam}CommandsImpl.java", "".join(out))

extra = ["MATCH", "COUNT", "BEFORE", "AFTER", "BIT", "BYTE", "WITHSCORES", "MULTI", "EXEC", "DISCARD", "WATCH", "UNWATCH", "SUBSCRIBE", "UNSUBSCRIBE", "PSUBSCRIBE", "PUNSUBSCRIBE", "SSUBSCRIBE", "SUNSUBSCRIBE", "SELECT"]
names.update(extra)
out = [HEADER, "package dev.spinel.client.internal;\n\nimport java.nio.charset.StandardCharsets;\n\n",
       "/** Command names as bytes, encoded once. Immutable (never modify the arrays). */\n",
       "public final class Names {\n    private Names() {\n    }\n\n"]
for n in sorted(names):
    out.append('    public static final byte[] %s = "%s".getBytes(StandardCharsets.US_ASCII);\n' % (n, n))
out.append("}\n")
write(f"{ROOT}/internal/Names.java", "".join(out))

fams = list(FAMILIES)
write(f"{ROOT}/AsyncCommands.java", HEADER + "package dev.spinel.client;\n\nimport dev.spinel.protocol.RespValue;\n\nimport java.util.concurrent.CompletableFuture;\n\n"
      "/**\n * Every command, asynchronous. Commands from all threads share one connection and are written in\n"
      " * coalesced batches; futures complete in the order the server answers, on the client's event loop\n"
      " * (callbacks must not block: hand blocking work to another executor). Thread-safe.\n */\n"
      "public interface AsyncCommands<K, V> extends " + ", ".join("Async%sCommands<K, V>" % f for f in fams) + " {\n"
      "    /**\n     * Any command, by name, with arguments of type {@code byte[]}, {@code String} (sent as UTF-8)\n"
      "     * or a number; the reply comes back as a raw {@link RespValue} (server errors still fail the future).\n"
      "     * Runs on the shared connection: send blocking commands (BLPOP...) through the typed methods or a\n"
      "     * {@link SpinelClient#dedicated()} connection, or they stall every other caller until they return.\n     */\n"
      "    CompletableFuture<RespValue> execute(String command, Object... args);\n}\n")
write(f"{ROOT}/SyncCommands.java", HEADER + "package dev.spinel.client;\n\nimport dev.spinel.protocol.RespValue;\n\n"
      "/** Every command, blocking; see {@link AsyncCommands}. Thread-safe. */\n"
      "public interface SyncCommands<K, V> extends " + ", ".join("Sync%sCommands<K, V>" % f for f in fams) + " {\n"
      "    /** Any command, by name; see {@link AsyncCommands#execute}. */\n"
      "    RespValue execute(String command, Object... args);\n}\n")
write(f"{ROOT}/internal/AllCommandsImpl.java", HEADER + "package dev.spinel.client.internal;\n\nimport dev.spinel.client.AsyncCommands;\nimport dev.spinel.protocol.RespValue;\n\nimport java.util.concurrent.CompletableFuture;\n\n"
      "/** All typed families on one {@link Dispatcher}, plus the raw {@code execute}. Thread-safe. */\n"
      "public interface AllCommandsImpl<K, V> extends AsyncCommands<K, V>, " + ", ".join("%sCommandsImpl<K, V>" % f for f in fams) + " {\n"
      "    @Override\n    default CompletableFuture<RespValue> execute(String command, Object... args) {\n"
      "        return dispatch(new Command<>(Replies.RAW, rawArgs(command, args)));\n    }\n}\n")
write(f"{ROOT}/internal/AllSyncCommandsImpl.java", HEADER + "package dev.spinel.client.internal;\n\nimport dev.spinel.client.SyncCommands;\nimport dev.spinel.protocol.RespValue;\n\n"
      "/** All typed families, blocking. Thread-safe. */\n"
      "public interface AllSyncCommandsImpl<K, V> extends SyncCommands<K, V>, " + ", ".join("Sync%sCommandsImpl<K, V>" % f for f in fams) + " {\n"
      "    @Override\n    default RespValue execute(String command, Object... args) {\n"
      "        return await(async().execute(command, args));\n    }\n}\n")
print("generated", sum(len(r) for _, r in FAMILIES.values()), "commands")
