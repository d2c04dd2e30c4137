package io.github.idworker.lease.zookeeper;

import static io.github.idworker.lease.zookeeper.ZnodeTree.EMPTY;

import io.github.idworker.LeaseLostException;
import io.github.idworker.lease.WorkerLease;

import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The renewal and the return of a lease of {@link ZookeeperSequenceManager} (its Javadoc says why they are safe):
 * neither ever writes a record that is not the lease's own incarnation, held by its owner; a renewal either
 * stores its high-water or says the lease is lost. Renew:
 * <ol>
 *   <li>The client must still be in the session that claimed the slot; otherwise the lease is lost.</li>
 *   <li>Write {@code <base>/clock} and, in the same round trip, read the slot's record; it must exist, name the
 *       lease's owner and carry an incarnation, or the lease is lost.</li>
 *   <li>Refuse a high-water above the stored one and above the centre's clock + ttl + max-skew, writing nothing.</li>
 *   <li>One transaction: check the session's {@code live} znode, set {@code hw = max(stored, requested)} at the
 *       version read (the ttl restarts), check the record's incarnation marker. A missing {@code live} znode or
 *       marker: the lease is lost; a lost version race reads again.</li>
 * </ol>
 * Return: only while the record is the lease's (owner, incarnation, session), one transaction sets {@code hw} to the
 * last issued timestamp, frees the record, checks its incarnation marker and deletes the {@code live} znode (or,
 * once that is found gone, the transaction without it). Anything else is left as it is.
 */
final class LeaseKeeping {

    private final ZnodeTree tree;

    LeaseKeeping(ZnodeTree tree) {
        this.tree = tree;
    }

    /** Renews {@code lease} (of a checked namespace) to {@code highWaterMillis} within {@code call}'s deadline. */
    WorkerLease renew(ZkCall call, WorkerLease lease, long highWaterMillis) {
        String ns = lease.namespace();
        String path = tree.slot(ns, lease.workerId());
        while (true) {
            try {
                ZooKeeper zk = call.connected();
                String session = ZkCall.sessionOf(zk);
                if (!session.equals(lease.generation())) {
                    throw lost(lease, "the ZooKeeper session that held it (0x" + lease.generation() + ") ended; "
                            + "this client is now in session 0x" + session + ", and a successor may already hold the slot");
                }
                // one round trip for the clock and the read: the session's requests are answered in order
                CompletableFuture<Stat> clock = call.setAsync(zk, tree.clock(), EMPTY, -1);
                ZkCall.Node node = call.get(zk, path);
                long centreNow;
                try {
                    centreNow = call.await(clock).getMtime();
                } catch (KeeperException.NoNodeException e) {
                    call.createPath(zk, tree.clock());
                    continue;
                }
                SlotRecord record = node == null ? null : SlotRecord.parse(node.data());
                if (node == null || record == null) {
                    throw lost(lease, "its record " + path + " is gone (deleted), so another worker may hold the slot");
                }
                if (!record.owner().equals(lease.owner())) {
                    throw lost(lease, record.free() ? "the slot was freed" : "another worker holds the slot");
                }
                if (record.incarnation().isEmpty()) {
                    throw lost(lease, "its record " + path + " was rewritten without an incarnation (by hand?), so "
                            + "another worker may hold the slot");
                }
                lease.refuseRenewalIfAhead(highWaterMillis, record.highWater(), centreNow);
                long highWater = Math.max(record.highWater(), highWaterMillis);
                ZkCall.MultiOutcome outcome = call.multi(zk, List.of(
                        Op.check(tree.live(ns, lease.workerId()), -1),
                        Op.setData(path, record.withHighWater(highWater, lease.ttl().toMillis()).encode(),
                                node.stat().getVersion()),
                        // the version alone would also match a recreated record that climbed back to it
                        Op.check(tree.slotMarker(ns, lease.workerId(), record.incarnation()), -1)));
                if (outcome.committed()) {
                    return lease.withHighWater(highWater);
                }
                if (outcome.failedOp() == 0 && outcome.code() == Code.NONODE) {
                    throw lost(lease, "the ephemeral node " + tree.live(ns, lease.workerId()) + " of its session is "
                            + "gone: the session expired or the slot was taken");
                }
                if (outcome.failedOp() == 2 && outcome.code() == Code.NONODE) {
                    throw lost(lease, "its record " + path + " was lost and recreated after it was read, so another "
                            + "worker may hold the slot");
                }
                if (!ZkCall.lostRace(outcome.code())) {
                    throw call.refused(outcome, path);
                }
            } catch (KeeperException e) {
                call.retryAfter(e);
                continue;
            }
            if (call.expired()) {
                throw call.timedOut("the record kept changing under the renewal");
            }
        }
    }

    /** Returns {@code lease} (of a checked namespace), storing {@code lastIssuedMillis}, within {@code call}'s deadline. */
    void giveBack(ZkCall call, WorkerLease lease, long lastIssuedMillis) {
        String ns = lease.namespace();
        String path = tree.slot(ns, lease.workerId());
        String livePath = tree.live(ns, lease.workerId());
        // the holder's ephemeral node is normally there: delete it in the same transaction, and only when that
        // fails for want of it (its session ended) free the record alone; a shutdown waits for two round trips
        boolean liveGone = false;
        while (true) {
            try {
                ZooKeeper zk = call.connected();
                ZkCall.Node node = call.get(zk, path);
                SlotRecord record = node == null ? null : SlotRecord.parse(node.data());
                if (node == null || record == null || !record.owner().equals(lease.owner())
                        || record.incarnation().isEmpty() || !record.session().equals(lease.generation())) {
                    return; // not this lease's record: a stale lease must not free, or lower, a newer one
                }
                List<Op> ops = new ArrayList<>(3);
                ops.add(Op.setData(path, record.returned(lastIssuedMillis).encode(), node.stat().getVersion()));
                // the version alone would also match a recreated record that climbed back to it
                ops.add(Op.check(tree.slotMarker(ns, lease.workerId(), record.incarnation()), -1));
                if (!liveGone) {
                    ops.add(Op.delete(livePath, -1));
                }
                ZkCall.MultiOutcome outcome = call.multi(zk, ops);
                if (outcome.committed()) {
                    return;
                }
                if (outcome.failedOp() == 1 && outcome.code() == Code.NONODE) {
                    return; // the record was lost and recreated after it was read: not ours to free
                }
                if (outcome.failedOp() == 2 && outcome.code() == Code.NONODE) {
                    liveGone = true;
                    continue;
                }
                if (!ZkCall.lostRace(outcome.code())) {
                    throw call.refused(outcome, path);
                }
            } catch (KeeperException e) {
                call.retryAfter(e);
                continue;
            }
            if (call.expired()) {
                throw call.timedOut("the record kept changing under the return");
            }
        }
    }

    private static LeaseLostException lost(WorkerLease lease, String reason) {
        return new LeaseLostException("Worker id " + lease.workerId() + " of namespace '" + lease.namespace()
                + "' is no longer leased to owner " + lease.owner() + ": " + reason + ". Borrow another worker id.");
    }
}
