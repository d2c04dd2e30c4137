package io.github.idworker.lease.zookeeper;

import io.github.idworker.CenterUnavailableException;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One call of the ZooKeeper centre (a borrow, a renewal, a return) with its deadline. Every request goes out on
 * ZooKeeper's asynchronous API and is awaited only until the deadline, so no call outlives its budget, whatever
 * the connection does; Curator's own retry policy is not used, because an application's client may retry for
 * ever. No request is sent once the deadline has passed. A request sent before it but answered after it may
 * still be applied by the server: every write is a compare-and-set on the version of the record read and on the
 * existence of that record's incarnation marker, so a late one changes nothing if the record changed or was
 * recreated meanwhile.
 */
final class ZkCall {

    /** A znode's data and stat, as read. */
    record Node(byte[] data, Stat stat) {
    }

    /** What a multi-operation transaction did: {@code failedOp} is {@code -1} when it committed. */
    record MultiOutcome(int failedOp, Code code, List<OpResult> results) {
        boolean committed() {
            return failedOp < 0;
        }
    }

    private final CuratorFramework client;
    private final ACLProvider acl;
    private final String what;
    private final Duration timeout;
    private final long deadlineNanos;

    ZkCall(CuratorFramework client, ACLProvider acl, String what, Duration timeout) {
        this.client = client;
        this.acl = acl;
        this.what = what;
        this.timeout = timeout;
        this.deadlineNanos = System.nanoTime() + timeout.toNanos();
    }

    /** The current ZooKeeper handle once the client is connected, waiting at most until the deadline. */
    ZooKeeper connected() {
        if (client.getState() != CuratorFrameworkState.STARTED) {
            throw new CenterUnavailableException("ZooKeeper centre could not " + what + ": the CuratorFramework is "
                    + client.getState() + ", not started", null);
        }
        try {
            if (!client.getZookeeperClient().isConnected()) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
                if (left < 1 || !client.blockUntilConnected((int) Math.min(left, Integer.MAX_VALUE), TimeUnit.MILLISECONDS)) {
                    throw timedOut("no connection to ZooKeeper");
                }
            }
            return client.getZookeeperClient().getZooKeeper();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CenterUnavailableException("interrupted while waiting to " + what, e);
        } catch (CenterUnavailableException e) {
            throw e;
        } catch (Exception e) {
            throw new CenterUnavailableException("ZooKeeper centre could not " + what + ": " + e, e);
        }
    }

    /**
     * Refuses to send a request once the deadline has passed: the caller has given up (or is about to), so a
     * write sent now could only reach the server after the call reported its outcome.
     */
    private void beforeSend() {
        if (expired()) {
            throw timedOut("the deadline passed before the next request was sent");
        }
    }

    boolean expired() {
        return System.nanoTime() - deadlineNanos >= 0;
    }

    /** Waits a little before another attempt: a few milliseconds with jitter, never past the deadline. */
    void pause(int upToMillis) {
        long left = deadlineNanos - System.nanoTime();
        long nanos = Math.min(left, TimeUnit.MILLISECONDS.toNanos(1 + ThreadLocalRandom.current().nextInt(upToMillis)));
        if (nanos > 0) {
            try {
                Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CenterUnavailableException("interrupted while waiting to " + what, e);
            }
        }
    }

    /** Whether {@code e} says the connection or session failed, so the same step may succeed on another try. */
    static boolean transientFailure(KeeperException e) {
        return switch (e.code()) {
            case CONNECTIONLOSS, SESSIONEXPIRED, OPERATIONTIMEOUT, SESSIONMOVED, REQUESTTIMEOUT -> true;
            default -> false;
        };
    }

    /**
     * Decides what a failed step means for a retrying loop: throws when {@code e} is no connection or session
     * failure, or when the deadline has passed; otherwise waits a little so the caller can try the step again.
     */
    void retryAfter(KeeperException e) {
        if (!transientFailure(e)) {
            throw failed(e);
        }
        if (expired()) {
            throw timedOut(e.getMessage());
        }
        pause(50);
    }

    CenterUnavailableException timedOut(@Nullable String reason) {
        return new CenterUnavailableException("ZooKeeper centre could not " + what + " within " + timeout.toMillis()
                + " ms: " + reason, null);
    }

    CenterUnavailableException failed(KeeperException e) {
        return new CenterUnavailableException("ZooKeeper centre could not " + what + ": " + e.getMessage(), e);
    }

    /** The znode at {@code path}, or {@code null} when there is none. */
    Node get(ZooKeeper zk, String path) throws KeeperException {
        beforeSend();
        CompletableFuture<Node> f = new CompletableFuture<>();
        zk.getData(path, false, (rc, p, ctx, data, stat) -> {
            if (rc == Code.NONODE.intValue()) {
                f.complete(null);
            } else {
                settle(f, rc, p, new Node(data, stat));
            }
        }, null);
        return await(f);
    }

    /** Writes {@code data} at {@code path} if its version is {@code version} ({@code -1}: any); the new stat. */
    Stat set(ZooKeeper zk, String path, byte[] data, int version) throws KeeperException {
        return await(setAsync(zk, path, data, version));
    }

    /**
     * Sends the write of {@link #set} without waiting; {@link #await} it later. ZooKeeper answers one session's
     * requests in order, so requests sent after it see its effect and share its round trip.
     */
    CompletableFuture<Stat> setAsync(ZooKeeper zk, String path, byte[] data, int version) {
        beforeSend();
        CompletableFuture<Stat> f = new CompletableFuture<>();
        zk.setData(path, data, version, (rc, p, ctx, stat) -> settle(f, rc, p, stat), null);
        return f;
    }

    /** Creates {@code path}; {@code false} when it exists already. */
    boolean create(ZooKeeper zk, String path, byte[] data, CreateMode mode) throws KeeperException {
        beforeSend();
        CompletableFuture<Boolean> f = new CompletableFuture<>();
        zk.create(path, data, acl.getAclForPath(path), mode, (rc, p, ctx, name) -> {
            if (rc == Code.NODEEXISTS.intValue()) {
                f.complete(false);
            } else {
                settle(f, rc, p, true);
            }
        }, null);
        return await(f);
    }

    /** Creates {@code path} and every missing parent as persistent, empty znodes. */
    void createPath(ZooKeeper zk, String path) throws KeeperException {
        int from = 1;
        while (from > 0) {
            int slash = path.indexOf('/', from);
            String prefix = slash < 0 ? path : path.substring(0, slash);
            create(zk, prefix, new byte[0], CreateMode.PERSISTENT);
            from = slash < 0 ? -1 : slash + 1;
        }
    }

    /** The ACL of the client for a znode at {@code path}, for {@link Op#create}. */
    Op createOp(String path, byte[] data, CreateMode mode) {
        return Op.create(path, data, acl.getAclForPath(path), mode);
    }

    /**
     * Runs {@code ops} as one transaction. A transaction the server refused reports which operation failed and
     * why; a failed connection or session throws.
     */
    MultiOutcome multi(ZooKeeper zk, List<Op> ops) throws KeeperException {
        beforeSend();
        CompletableFuture<MultiOutcome> f = new CompletableFuture<>();
        zk.multi(ops, (rc, p, ctx, results) -> {
            if (rc == Code.OK.intValue()) {
                f.complete(new MultiOutcome(-1, Code.OK, results));
                return;
            }
            if (results == null || results.isEmpty()) {
                f.completeExceptionally(KeeperException.create(Code.get(rc)));
                return;
            }
            for (int i = 0; i < results.size(); i++) {
                if (results.get(i) instanceof OpResult.ErrorResult error
                        && error.getErr() != Code.OK.intValue()
                        && error.getErr() != Code.RUNTIMEINCONSISTENCY.intValue()) {
                    f.complete(new MultiOutcome(i, Code.get(error.getErr()), results));
                    return;
                }
            }
            f.complete(new MultiOutcome(0, Code.get(rc), results));
        }, null);
        MultiOutcome outcome = await(f);
        if (!outcome.committed() && isConnectionCode(outcome.code())) {
            throw KeeperException.create(outcome.code());
        }
        return outcome;
    }

    /** Whether a refused transaction only lost a race against another writer (so reading again may succeed). */
    static boolean lostRace(Code code) {
        return code == Code.BADVERSION || code == Code.NONODE || code == Code.NODEEXISTS || code == Code.NOTEMPTY;
    }

    /** The failure of a transaction the server refused for another reason than a lost race, naming {@code path}. */
    CenterUnavailableException refused(MultiOutcome outcome, String path) {
        return failed(KeeperException.create(outcome.code(), path));
    }

    /** Runs a transaction whose refusal for a lost race means only "read again"; any other refusal fails the call. */
    void multiUnlessLostRace(ZooKeeper zk, List<Op> ops, String path) throws KeeperException {
        MultiOutcome outcome = multi(zk, ops);
        if (!outcome.committed() && !lostRace(outcome.code())) {
            throw refused(outcome, path);
        }
    }

    /** Writes at a version; {@code false} when the znode changed or vanished meanwhile. */
    boolean setQuietly(ZooKeeper zk, String path, byte[] data, int version) throws KeeperException {
        try {
            set(zk, path, data, version);
            return true;
        } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
            return false;
        }
    }

    /** A read that failed for another reason than a missing znode (no permission, say) fails the call. */
    void refuseUnlessMissing(OpResult result, String path) {
        if (result instanceof OpResult.ErrorResult error && error.getErr() != Code.NONODE.intValue()) {
            throw failed(KeeperException.create(Code.get(error.getErr()), path));
        }
    }

    /** The id of {@code zk}'s session in hex, as slot records and leases name it. */
    static String sessionOf(ZooKeeper zk) {
        return Long.toHexString(zk.getSessionId());
    }

    /**
     * Reads many znodes in few round trips: read-only transactions of at most {@code chunk} operations, all sent
     * before the first answer is awaited. One result per operation, in order; a missing znode gives an
     * {@link OpResult.ErrorResult}.
     */
    List<OpResult> read(ZooKeeper zk, List<Op> ops, int chunk) throws KeeperException {
        beforeSend();
        List<CompletableFuture<List<OpResult>>> pending = new ArrayList<>();
        for (int from = 0; from < ops.size(); from += chunk) {
            CompletableFuture<List<OpResult>> f = new CompletableFuture<>();
            List<Op> part = ops.subList(from, Math.min(ops.size(), from + chunk));
            zk.multi(part, (rc, p, ctx, results) -> {
                // a read-only transaction answers every operation; its code is the first failed one's
                if (results != null && results.size() == part.size()) {
                    f.complete(results);
                } else {
                    f.completeExceptionally(KeeperException.create(Code.get(rc)));
                }
            }, null);
            pending.add(f);
        }
        List<OpResult> all = new ArrayList<>(ops.size());
        for (CompletableFuture<List<OpResult>> f : pending) {
            all.addAll(await(f));
        }
        return all;
    }

    private static boolean isConnectionCode(Code code) {
        return code == Code.CONNECTIONLOSS || code == Code.SESSIONEXPIRED || code == Code.OPERATIONTIMEOUT
                || code == Code.SESSIONMOVED || code == Code.REQUESTTIMEOUT;
    }

    private static <T> void settle(CompletableFuture<T> f, int rc, String path, T value) {
        if (rc == Code.OK.intValue()) {
            f.complete(value);
        } else {
            f.completeExceptionally(KeeperException.create(Code.get(rc), path));
        }
    }

    /** The outcome of a request sent earlier, awaited until the call's deadline at most. */
    <T> T await(CompletableFuture<T> f) throws KeeperException {
        long left = deadlineNanos - System.nanoTime();
        try {
            return f.get(Math.max(0, left), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw timedOut("ZooKeeper did not answer");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CenterUnavailableException("interrupted while waiting to " + what, e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof KeeperException ke) {
                throw ke;
            }
            throw new CenterUnavailableException("ZooKeeper centre could not " + what + ": " + e.getCause(), e.getCause());
        }
    }
}
