"""redis-py RedisCluster against a 3 primaries + 3 replicas cluster (tools/cluster-clients.sh runs it).

Usage: cluster_clients.py BASEPORT KEYS. Exits 1 on the first mismatch, printing what differed.
"""
import sys
import time

import redis
from redis.cluster import RedisCluster

base, total = int(sys.argv[1]), int(sys.argv[2])
ports = range(base, base + 6)
BATCH = 10_000


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def wait(what, pred, seconds=120):
    deadline = time.time() + seconds
    while not pred():
        if time.time() > deadline:
            fail(what)
        time.sleep(0.1)


def node(port):
    return redis.Redis(port=port, decode_responses=True)


# the cluster is whole and every replica's link is up
wait("cluster_state never became ok on every node",
     lambda: all(node(p).cluster("info")["cluster_state"] == "ok" for p in ports))
primary_of = {}  # replica port -> primary port
for p in ports:
    info = node(p).info("replication")
    if info["role"] == "slave":
        primary_of[p] = int(info["master_port"])
if len(primary_of) != 3:
    fail("expected 3 replicas, found %s" % primary_of)
wait("a replica never synced", lambda: all(node(p).info("replication")["master_link_status"] == "up" for p in primary_of))

rc = RedisCluster(host="127.0.0.1", port=base, decode_responses=True)

t0 = time.time()
for start in range(0, total, BATCH):
    pipe = rc.pipeline()
    for i in range(start, min(start + BATCH, total)):
        pipe.set("key:%d" % i, "value:%d" % i)
    if not all(pipe.execute()):
        fail("a SET in the pipeline of keys %d.. did not answer OK" % start)
t_write = time.time() - t0
print("wrote %d keys through cluster pipelines in %.1f s (%.0f/s)" % (total, t_write, total / t_write))

t0 = time.time()
for start in range(0, total, BATCH):
    pipe = rc.pipeline()
    for i in range(start, min(start + BATCH, total)):
        pipe.get("key:%d" % i)
    for i, v in zip(range(start, total), pipe.execute()):
        if v != "value:%d" % i:
            fail("key:%d read back %r" % (i, v))
t_read = time.time() - t0
print("read every key back in %.1f s (%.0f/s)" % (t_read, total / t_read))

sizes = {p: node(p).dbsize() for p in set(primary_of.values())}
if sum(sizes.values()) != total:
    fail("the primaries hold %s keys, %d in all, not %d" % (sizes, sum(sizes.values()), total))
t0 = time.time()
wait("a replica does not hold its primary's keys: %s" % sizes,
     lambda: all(node(r).dbsize() == sizes[p] for r, p in primary_of.items()), 300)
print("primaries hold %s keys (sum %d); each replica as many as its primary (%.1f s after the reads)"
      % (sorted(sizes.values()), total, time.time() - t0))

# reads from replicas: READONLY connections to the replicas, routed by slot
ro = RedisCluster(host="127.0.0.1", port=base, decode_responses=True, read_from_replicas=True)
pipe = ro.pipeline()
for i in range(0, total, max(1, total // 10_000)):
    pipe.get("key:%d" % i)
sample = pipe.execute()
for n, (i, v) in enumerate(zip(range(0, total, max(1, total // 10_000)), sample)):
    if v != "value:%d" % i:
        fail("read_from_replicas: key:%d read %r" % (i, v))
print("read_from_replicas: %d keys read back" % len(sample))

# hash-tag MSET / MGET: one slot per tag
for u in range(1000):
    keys = {"{user:%d}f%d" % (u, f): "%d.%d" % (u, f) for f in range(10)}
    rc.mset(keys)
    if rc.mget(list(keys)) != list(keys.values()):
        fail("MGET of {user:%d} differs" % u)
try:
    rc.mset({"{a}x": "1", "{b}y": "2"})
    fail("MSET across slots was accepted")
except redis.exceptions.RedisClusterException:
    pass
print("hash-tag MSET/MGET: 1000 tags of 10 keys")

# MULTI/EXEC in one slot, on the node serving it
owner = rc.get_node_from_key("{acct}from").redis_connection
for _ in range(100):
    with owner.pipeline(transaction=True) as tx:
        tx.incrby("{acct}from", -5).incrby("{acct}to", 5)
        tx.execute()
if (rc.get("{acct}from"), rc.get("{acct}to")) != ("-500", "500"):
    fail("MULTI: {acct} holds %s %s" % (rc.get("{acct}from"), rc.get("{acct}to")))
try:
    with owner.pipeline(transaction=True) as tx:
        tx.set("{acct}from", "1").set("{other}k", "1")
        tx.execute()
    fail("a MULTI across slots was executed")
except redis.exceptions.ResponseError:  # MOVED or CROSSSLOT for the second key: EXEC aborts the transaction
    if rc.get("{acct}from") != "-500" or rc.exists("{other}k"):
        fail("a MULTI across slots was partly executed")
print("MULTI/EXEC in one slot: 100 transactions")

# sharded pub/sub: SSUBSCRIBE on the channel's shard, SPUBLISH reaches it
ps = rc.pubsub()
channels = ["{news%d}ch" % i for i in range(30)]  # spread over the three shards
for ch in channels:
    ps.ssubscribe(ch)
confirmed = 0
deadline = time.time() + 20
while confirmed < len(channels):
    if time.time() > deadline:
        fail("%d of %d SSUBSCRIBEs confirmed" % (confirmed, len(channels)))
    m = ps.get_sharded_message()
    if m is None:
        time.sleep(0.01)
    elif m["type"] == "ssubscribe":
        confirmed += 1
for ch in channels:
    if rc.spublish(ch, "hello " + ch) != 1:
        fail("SPUBLISH %s did not reach its one subscriber" % ch)
got = set()
deadline = time.time() + 20
while len(got) < len(channels) and time.time() < deadline:
    m = ps.get_sharded_message()
    if m is None:
        time.sleep(0.01)
    elif m["type"] == "smessage":
        got.add((m["channel"], m["data"]))
if got != {(ch, "hello " + ch) for ch in channels}:
    fail("sharded pub/sub received %d of %d messages" % (len(got), len(channels)))
ps.close()
print("sharded pub/sub: %d channels over %d shards, every message received"
      % (len(channels), len({rc.get_node_from_key(ch).name for ch in channels})))
print("OK")
