package dev.spinel.junit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RMap;
import org.redisson.api.RMapCache;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RSemaphore;
import org.redisson.api.RStream;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.api.StreamMessageId;
import org.redisson.api.stream.StreamAddArgs;
import org.redisson.api.stream.StreamCreateGroupArgs;
import org.redisson.api.stream.StreamReadGroupArgs;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What Redisson's most used objects do, run against Spinel ({@link RedissonSpinelTest}) and against redis-server
 * ({@link RedissonRedisTest}) alike: a difference between the two fails one of them only.
 */
@Timeout(120)
abstract class RedissonContract {
    RedissonClient redisson;

    abstract int port();

    @BeforeEach
    void connect() {
        Config config = new Config();
        config.setThreads(2).setNettyThreads(4).setCodec(StringCodec.INSTANCE);
        config.useSingleServer().setAddress("redis://127.0.0.1:" + port()).setConnectionMinimumIdleSize(1)
                .setConnectionPoolSize(4).setSubscriptionConnectionMinimumIdleSize(1).setSubscriptionConnectionPoolSize(2)
                .setTimeout(10_000);
        redisson = Redisson.create(config);
    }

    @AfterEach
    void disconnect() {
        redisson.shutdown(0, 2, TimeUnit.SECONDS);
    }

    /** Runs {@code task} on another thread (Redisson's locks belong to threads) and returns its result. */
    static <T> T elsewhere(java.util.concurrent.Callable<T> task) throws Exception {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(task.call());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        });
        t.start();
        return f.get(60, TimeUnit.SECONDS);
    }

    @Test
    void lockIsReentrantAndExclusive() throws Exception {
        RLock lock = redisson.getLock("lock:reentrant");
        lock.lock();
        lock.lock();
        assertEquals(2, lock.getHoldCount());
        assertTrue(lock.isHeldByCurrentThread());
        assertFalse(elsewhere(() -> lock.tryLock(100, TimeUnit.MILLISECONDS)), "another thread waits");
        lock.unlock();
        assertTrue(lock.isLocked());
        lock.unlock();
        assertFalse(lock.isLocked());
        assertTrue(elsewhere(() -> {
            boolean got = lock.tryLock(1, TimeUnit.SECONDS);
            lock.unlock();
            return got;
        }));
    }

    @Test
    void lockLeaseTimeExpires() throws Exception {
        RLock lock = redisson.getLock("lock:lease");
        lock.lock(500, TimeUnit.MILLISECONDS);
        assertTrue(lock.isLocked());
        long ttl = lock.remainTimeToLive();
        assertTrue(ttl > 0 && ttl <= 500, "ttl " + ttl);
        // another thread waits for the lease to end, then gets the lock (woken by the expiry, not an unlock)
        assertTrue(elsewhere(() -> {
            boolean got = lock.tryLock(10, 1, TimeUnit.SECONDS);
            return got;
        }));
    }

    @Test
    void fairLockServesWaitersInOrder() throws Exception {
        RLock fair = redisson.getFairLock("lock:fair");
        fair.lock();
        List<String> order = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(2);
        Thread first = waiter(fair, "first", order, done);
        Thread.sleep(300);
        Thread second = waiter(fair, "second", order, done);
        Thread.sleep(300);
        fair.unlock();
        assertTrue(done.await(30, TimeUnit.SECONDS));
        first.join();
        second.join();
        assertEquals(List.of("first", "second"), order);
    }

    private static Thread waiter(RLock fair, String name, List<String> order, CountDownLatch done) {
        Thread t = new Thread(() -> {
            try {
                if (fair.tryLock(20, 10, TimeUnit.SECONDS)) {
                    order.add(name);
                    Thread.sleep(50);
                    fair.unlock();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                done.countDown();
            }
        });
        t.start();
        return t;
    }

    @Test
    void readWriteLock() throws Exception {
        RReadWriteLock rw = redisson.getReadWriteLock("lock:rw");
        rw.readLock().lock();
        assertTrue(elsewhere(() -> {
            boolean got = rw.readLock().tryLock(1, TimeUnit.SECONDS);
            rw.readLock().unlock();
            return got;
        }), "readers share");
        assertFalse(elsewhere(() -> rw.writeLock().tryLock(100, TimeUnit.MILLISECONDS)), "a writer waits for readers");
        rw.readLock().unlock();
        assertTrue(elsewhere(() -> {
            boolean got = rw.writeLock().tryLock(1, TimeUnit.SECONDS);
            rw.writeLock().unlock();
            return got;
        }));
    }

    @Test
    void semaphore() throws Exception {
        RSemaphore s = redisson.getSemaphore("semaphore");
        assertTrue(s.trySetPermits(2));
        s.acquire(2);
        assertEquals(0, s.availablePermits());
        assertFalse(s.tryAcquire(100, TimeUnit.MILLISECONDS));
        CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return s.tryAcquire(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                return false;
            }
        });
        Thread.sleep(200);
        s.release();
        assertTrue(waiting.get(20, TimeUnit.SECONDS), "a release wakes a waiter");
        s.release();
        assertEquals(1, s.availablePermits());
    }

    @Test
    void mapAndMapCacheExpiry() throws Exception {
        RMap<String, String> map = redisson.getMap("map");
        map.put("a", "1");
        assertTrue(map.fastPut("b", "2"));
        assertEquals("1", map.get("a"));
        assertEquals(Map.of("a", "1", "b", "2"), map.readAllMap());
        assertEquals("2", map.remove("b"));
        assertEquals(1, map.size());

        RMapCache<String, String> cache = redisson.getMapCache("cache");
        cache.put("short", "v", 300, TimeUnit.MILLISECONDS);
        cache.put("long", "v", 1, TimeUnit.HOURS);
        cache.put("idle", "v", 0, TimeUnit.SECONDS, 300, TimeUnit.MILLISECONDS);
        assertEquals("v", cache.get("short"));
        Thread.sleep(700);
        assertNull(cache.get("short"), "past its TTL");
        assertNull(cache.get("idle"), "past its max idle time");
        assertEquals("v", cache.get("long"));
        assertTrue(cache.remainTimeToLive("long") > 3_000_000L);
    }

    @Test
    void topic() throws Exception {
        RTopic topic = redisson.getTopic("topic");
        List<String> got = new CopyOnWriteArrayList<>();
        CountDownLatch two = new CountDownLatch(2);
        topic.addListener(String.class, (channel, msg) -> {
            got.add(msg);
            two.countDown();
        });
        assertEquals(1, topic.publish("hello"));
        topic.publish("world");
        assertTrue(two.await(10, TimeUnit.SECONDS));
        assertEquals(List.of("hello", "world"), got);
        assertEquals(1, topic.countSubscribers());
    }

    @Test
    void stream() {
        RStream<String, String> stream = redisson.getStream("stream");
        StreamMessageId first = stream.add(StreamAddArgs.entry("k", "1"));
        stream.add(StreamAddArgs.entry("k", "2"));
        assertEquals(2, stream.size());
        assertEquals(Map.of("k", "1"), stream.range(first, first).get(first));
        stream.createGroup(StreamCreateGroupArgs.name("g").id(StreamMessageId.ALL));
        Map<StreamMessageId, Map<String, String>> read = stream.readGroup("g", "c1", StreamReadGroupArgs.neverDelivered().count(10));
        assertEquals(2, read.size());
        assertEquals(2, stream.getPendingInfo("g").getTotal());
        assertEquals(2, stream.ack("g", read.keySet().toArray(new StreamMessageId[0])));
        assertEquals(0, stream.getPendingInfo("g").getTotal());
    }
}
