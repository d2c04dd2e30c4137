package io.github.idworker.lease.zookeeper;

import static io.github.idworker.lease.zookeeper.ZnodeTree.EMPTY;

import io.github.idworker.WorkerIdExhaustedException;
import io.github.idworker.WorkerIdTakenException;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The borrow of {@link ZookeeperSequenceManager} (its Javadoc gives every step and why it is safe): claims one slot
 * that is free, expired or whose holder's session ended, by a transaction that no other claim of the same slot and
 * incarnation can also pass, with a first high-water above every timestamp a past holder may still issue. Rounds
 * until a claim succeeds or the call's deadline passes; each round:
 * <ol>
 *   <li>writes the clock and, in the same round trip, reads the namespace record, its {@code live} and {@code inc}
 *       listings, {@code <base>/guard} and the slot records this manager last saw plus {@value #HINT_MARGIN};
 *       refuses a borrower whose clock is ahead of the centre's by more than max-skew;</li>
 *   <li>lets {@link NamespaceGuard} check the namespace and name the generation floor;</li>
 *   <li>reads the slot records beyond the hint and sorts the claimable ones; lost records go to
 *       {@link SlotRepair} and the round starts again;</li>
 *   <li>a slot whose record carries this request's owner token and this session is this request's own claim,
 *       committed in an earlier round whose answer the connection lost: it is the lease (with the floor the claim
 *       stored beside its owner), and nothing else is claimed;</li>
 *   <li>claims, first that succeeds: claimable slots whose effective high-water is below the borrower's clock, lowest
 *       id first; then a fresh id; then the other claimable slots by ascending effective high-water;</li>
 *   <li>with no claimable slot and no fresh id left: {@link WorkerIdExhaustedException}.</li>
 * </ol>
 * A borrow of a preferred slot ({@link LeaseRequest#preferredSlot()}) has that one candidate only, after the same
 * reads, checks and repairs: an existing slot is claimed by the same transaction when it is claimable, and is
 * {@link WorkerIdTakenException} (naming its holder) when not; a slot {@code p} at or above the namespace's count is
 * claimed by one transaction that sets the count to {@code p + 1} at the version read, creates the ids between
 * free with the generation floor (a never-created slot's effective high-water, so they stay as good as never used
 * and are not taken for lost), each with its incarnation marker, and creates {@code p} claimed. A lost race starts
 * the round again, which then finds the slot held.
 */
final class SlotBorrow {

    /** Read-only transactions of this many znodes, all sent at once: well below ZooKeeper's 1 MB per packet. */
    private static final int READ_CHUNK = 256;
    /** Slot records read beyond the count last seen, so a borrow that creates a slot needs no second read. */
    private static final int HINT_MARGIN = 8;

    /** A candidate slot of one round; {@code fresh} for the next id never used, which has no record yet. */
    private record Candidate(int slot, long effective, @Nullable SlotRecord record, Stat stat, boolean live,
                             boolean fresh) {
    }

    private final ZnodeTree tree;
    private final NamespaceGuard namespaceGuard;
    private final SlotRepair repair;
    /**
     * How many slots each namespace had at this manager's last borrow: how many records the next borrow reads
     * along with the namespace record. A hint for speed only; a namespace with more slots is read in full.
     */
    private final Map<String, Integer> createdHint = new ConcurrentHashMap<>();

    SlotBorrow(ZnodeTree tree) {
        this.tree = tree;
        this.namespaceGuard = new NamespaceGuard(tree);
        this.repair = new SlotRepair(tree);
    }

    /** Borrows a slot of the request's (checked) namespace within {@code call}'s deadline. */
    WorkerLease borrow(ZkCall call, LeaseRequest request) {
        int rounds = 0;
        while (true) {
            rounds++;
            try {
                WorkerLease lease = round(call, call.connected(), request);
                if (lease != null) {
                    return lease;
                }
            } catch (KeeperException e) {
                call.retryAfter(e);
                continue;
            }
            if (call.expired()) {
                throw call.timedOut("every claim lost a race against another borrower (" + rounds + " rounds)");
            }
            call.pause(4);
        }
    }

    /** One borrow round; {@code null} when the round has to start again. */
    @Nullable
    private WorkerLease round(ZkCall call, ZooKeeper zk, LeaseRequest r) throws KeeperException {
        String ns = r.namespace();
        // one round trip for the clock and the reads: the session's requests are answered in order
        CompletableFuture<Stat> clock = call.setAsync(zk, tree.clock(), EMPTY, -1);
        int guess = Math.min(r.slotCount(), createdHint.getOrDefault(ns, 0) + HINT_MARGIN);
        List<Op> reads = new ArrayList<>(guess + 4);
        reads.add(Op.getData(tree.namespace(ns)));
        reads.add(Op.getChildren(tree.lives(ns)));
        reads.add(Op.getChildren(tree.incarnations(ns)));
        reads.add(Op.getData(tree.guard()));
        for (int slot = 0; slot < guess; slot++) {
            reads.add(Op.getData(tree.slot(ns, slot)));
        }
        List<OpResult> read = call.read(zk, reads, READ_CHUNK);
        long now;
        try {
            now = call.await(clock).getMtime();
        } catch (KeeperException.NoNodeException e) {
            call.createPath(zk, tree.clock());
            return null;
        }
        r.refuseIfAheadOf(now);
        NamespaceGuard.Namespace namespace = namespaceGuard.check(call, zk, r, now, read.get(0), read.get(2),
                read.get(3));
        if (namespace == null) {
            return null;
        }
        NamespaceRecord record = namespace.record();
        long generationFloor = namespace.generationFloor();

        int known = Math.min(record.slotsCreated(), r.slotCount());
        createdHint.put(ns, known);
        if (!(read.get(1) instanceof OpResult.GetChildrenResult liveChildren)) {
            call.refuseUnlessMissing(read.get(1), tree.lives(ns));
            call.createPath(zk, tree.lives(ns));
            return null;
        }
        Set<Integer> live = slotIds(liveChildren.getChildren());
        List<OpResult> results = new ArrayList<>(read.subList(4, read.size()));
        if (known > guess) {
            // more slots than the hint said: read the rest. Records are never deleted by the centre, so one
            // counted in the namespace record read above is there in a later read unless it was lost.
            List<Op> more = new ArrayList<>(known - guess);
            for (int slot = guess; slot < known; slot++) {
                more.add(Op.getData(tree.slot(ns, slot)));
            }
            results.addAll(call.read(zk, more, READ_CHUNK));
        }

        List<Candidate> past = new ArrayList<>();
        List<Candidate> future = new ArrayList<>();
        TreeMap<Integer, @Nullable Stat> lost = new TreeMap<>();
        String heldBy = null;
        String session = ZkCall.sessionOf(zk);
        WorkerLease own = null;
        for (int slot = 0; slot < known; slot++) {
            OpResult result = results.get(slot);
            // a missing record is a loss to repair; any other error (NOAUTH under a hand-set ACL) is the caller's
            call.refuseUnlessMissing(result, tree.slot(ns, slot));
            SlotRecord slotRecord = null;
            Stat stat = null;
            if (result instanceof OpResult.GetDataResult data) {
                stat = data.getStat();
                slotRecord = SlotRecord.parse(data.getData());
            }
            if (slotRecord == null || stat == null || slotRecord.incarnation().isEmpty()
                    || !namespace.markers().contains(slot + "-" + slotRecord.incarnation())) {
                // missing, unreadable, or its incarnation marker is gone: treated as lost (rule 9)
                lost.put(slot, stat);
                continue;
            }
            boolean claimable = slotRecord.free() || !live.contains(slot)
                    || slotRecord.expired(stat.getMtime(), now);
            if (!claimable && ownClaim(r, slotRecord, session)) {
                // this request's claim, committed in an earlier round whose answer a lost connection kept from us:
                // the owner token is new per request, so no other claim wrote it; the session still holds the slot
                own = WorkerLease.of(r, slot, slotRecord.floor() == SlotRecord.NO_FLOOR ? slotRecord.highWater()
                        : slotRecord.floor(), slotRecord.highWater(), session);
            } else if (!claimable && slot == r.preferredSlot()) {
                heldBy = "host " + slotRecord.host() + " pid " + slotRecord.pid();
            }
            if (claimable) {
                long effective = Math.max(slotRecord.highWater(), generationFloor);
                Candidate c = new Candidate(slot, effective, slotRecord, stat, live.contains(slot), false);
                (effective < r.workerNowMillis() ? past : future).add(c);
            }
        }
        if (!lost.isEmpty()) {
            repair.repair(call, zk, ns, lost, namespace.markers(), namespace.guard());
            return null;
        }
        if (own != null) {
            return own;
        }
        if (r.hasPreferredSlot()) {
            return claimPreferred(call, zk, r, namespace, past, future, live, heldBy, session);
        }
        boolean freshLeft = record.slotsCreated() < r.slotCount();
        if (past.isEmpty() && future.isEmpty() && !freshLeft) {
            throw new WorkerIdExhaustedException(ns, r.slotCount());
        }
        if (freshLeft) {
            int id = record.slotsCreated();
            Candidate fresh = new Candidate(id, generationFloor, null, namespace.stat(), live.contains(id), true);
            // the namespace record's version restarts if it is recreated: the claim also checks its marker
            (generationFloor < r.workerNowMillis() ? past : future).add(fresh);
        }
        past.sort(Comparator.comparingInt(Candidate::slot));
        future.sort(Comparator.comparingLong(Candidate::effective).thenComparingInt(Candidate::slot));
        List<Candidate> order = new ArrayList<>(past);
        order.addAll(future);
        for (Candidate c : order) {
            if (c.fresh()) {
                return claimFresh(call, zk, r, record, c, session);
            }
            WorkerLease lease = claim(call, zk, r, c, session);
            if (lease != null) {
                return lease;
            }
        }
        return null;
    }

    /** The preferred slot or nothing; {@code null} when the round has to start again. */
    @Nullable
    private WorkerLease claimPreferred(ZkCall call, ZooKeeper zk, LeaseRequest r, NamespaceGuard.Namespace namespace,
                                       List<Candidate> past, List<Candidate> future, Set<Integer> live,
                                       @Nullable String heldBy, String session) throws KeeperException {
        int p = r.preferredSlot();
        NamespaceRecord record = namespace.record();
        if (p < record.slotsCreated()) {
            for (List<Candidate> candidates : List.of(past, future)) {
                for (Candidate c : candidates) {
                    if (c.slot() == p) {
                        return claim(call, zk, r, c, session);
                    }
                }
            }
            throw new WorkerIdTakenException(r.namespace(), p, heldBy);
        }
        return claimFreshAt(call, zk, r, namespace, live.contains(p), session);
    }

    /**
     * Claims fresh slot id {@code p = r.preferredSlot()} at or above the namespace's count in one transaction, the
     * ids between created free with the generation floor; {@code null} to read again.
     */
    @Nullable
    private WorkerLease claimFreshAt(ZkCall call, ZooKeeper zk, LeaseRequest r, NamespaceGuard.Namespace namespace,
                                     boolean liveFound, String session) throws KeeperException {
        String ns = r.namespace();
        NamespaceRecord record = namespace.record();
        long generationFloor = namespace.generationFloor();
        int p = r.preferredSlot();
        int created = record.slotsCreated();
        long highWater = r.firstHighWater(generationFloor);
        Stat nsStat = namespace.stat();
        List<Op> ops = new ArrayList<>(2 * (p - created) + 6);
        ops.add(Op.setData(tree.namespace(ns), record.withSlotsCreated(p + 1).encode(), nsStat.getVersion()));
        ops.add(Op.check(tree.namespaceMarker(ns, record.generation()), -1));
        for (int slot = created; slot <= p; slot++) {
            String incarnation = ZnodeTree.newIncarnation();
            SlotRecord data = slot < p ? SlotRecord.neverHeld(generationFloor, incarnation)
                    : SlotRecord.claimed(r, generationFloor, highWater, session, incarnation);
            ops.add(call.createOp(tree.slot(ns, slot), data.encode(), CreateMode.PERSISTENT));
            ops.add(call.createOp(tree.slotMarker(ns, slot, incarnation), EMPTY, CreateMode.PERSISTENT));
        }
        String livePath = tree.live(ns, p);
        if (liveFound) {
            ops.add(Op.delete(livePath, -1));
        }
        ops.add(call.createOp(livePath, r.owner().getBytes(StandardCharsets.UTF_8), CreateMode.EPHEMERAL));
        ZkCall.MultiOutcome outcome = call.multi(zk, ops);
        if (outcome.committed()) {
            return WorkerLease.of(r, p, generationFloor, highWater, session);
        }
        int failed = outcome.failedOp();
        if (failed >= 2 && failed < 2 + 2 * (p - created + 1) && outcome.code() == Code.NODEEXISTS) {
            // a record beyond the count (written by hand): count up to it; ids below it without a record are then
            // lost ones, which the next round repairs
            int existing = created + (failed - 2) / 2;
            call.multiUnlessLostRace(zk, List.of(
                    Op.setData(tree.namespace(ns), record.withSlotsCreated(existing + 1).encode(), nsStat.getVersion()),
                    Op.check(tree.namespaceMarker(ns, record.generation()), -1)), tree.namespace(ns));
            return null;
        }
        if (failed == 2 && outcome.code() == Code.NONODE) {
            call.createPath(zk, tree.slots(ns));
            return null;
        }
        if (ZkCall.lostRace(outcome.code())) {
            return null;
        }
        throw call.refused(outcome, tree.slot(ns, p));
    }

    /** Claims an existing slot in one transaction; {@code null} when another writer changed it first. */
    @Nullable
    private WorkerLease claim(ZkCall call, ZooKeeper zk, LeaseRequest r, Candidate c, String session)
            throws KeeperException {
        SlotRecord current = Objects.requireNonNull(c.record(), "an existing slot's record");
        boolean guardOfThisRound = current.repaired() && current.highWater() == c.effective();
        long highWater = guardOfThisRound
                ? Math.max(c.effective(), r.workerNowMillis() + r.ttl().toMillis())
                : r.firstHighWater(c.effective());
        SlotRecord claimed = SlotRecord.claimed(r, c.effective(), highWater, session, current.incarnation());
        List<Op> ops = new ArrayList<>(4);
        ops.add(Op.setData(tree.slot(r.namespace(), c.slot()), claimed.encode(), c.stat().getVersion()));
        // the version alone would also match a recreated record that climbed back to it: check the incarnation
        ops.add(Op.check(tree.slotMarker(r.namespace(), c.slot(), current.incarnation()), -1));
        String livePath = tree.live(r.namespace(), c.slot());
        if (c.live()) {
            ops.add(Op.delete(livePath, -1));
        }
        ops.add(call.createOp(livePath, r.owner().getBytes(StandardCharsets.UTF_8), CreateMode.EPHEMERAL));
        ZkCall.MultiOutcome outcome = call.multi(zk, ops);
        if (outcome.committed()) {
            return WorkerLease.of(r, c.slot(), c.effective(), highWater, session);
        }
        if (ZkCall.lostRace(outcome.code())) {
            return null;
        }
        throw call.refused(outcome, tree.slot(r.namespace(), c.slot()));
    }

    /** Claims the next fresh slot id with the namespace record's counter; {@code null} to read again. */
    @Nullable
    private WorkerLease claimFresh(ZkCall call, ZooKeeper zk, LeaseRequest r, NamespaceRecord record, Candidate c,
                                   String session) throws KeeperException {
        String ns = r.namespace();
        int slot = c.slot();
        long highWater = r.firstHighWater(c.effective());
        String incarnation = ZnodeTree.newIncarnation();
        SlotRecord claimed = SlotRecord.claimed(r, c.effective(), highWater, session, incarnation);
        List<Op> ops = new ArrayList<>(6);
        ops.add(Op.setData(tree.namespace(ns), record.withSlotsCreated(slot + 1).encode(), c.stat().getVersion()));
        // the version alone would also match a recreated namespace record that climbed back to it
        ops.add(Op.check(tree.namespaceMarker(ns, record.generation()), -1));
        ops.add(call.createOp(tree.slot(ns, slot), claimed.encode(), CreateMode.PERSISTENT));
        ops.add(call.createOp(tree.slotMarker(ns, slot, incarnation), EMPTY, CreateMode.PERSISTENT));
        String livePath = tree.live(ns, slot);
        if (c.live()) {
            ops.add(Op.delete(livePath, -1));
        }
        ops.add(call.createOp(livePath, r.owner().getBytes(StandardCharsets.UTF_8), CreateMode.EPHEMERAL));
        ZkCall.MultiOutcome outcome = call.multi(zk, ops);
        if (outcome.committed()) {
            return WorkerLease.of(r, slot, c.effective(), highWater, session);
        }
        if (outcome.failedOp() == 2 && outcome.code() == Code.NODEEXISTS) {
            // a record beyond the counter (written by hand): count it as created; the next round reads it
            call.multiUnlessLostRace(zk, List.of(
                    Op.setData(tree.namespace(ns), record.withSlotsCreated(slot + 1).encode(), c.stat().getVersion()),
                    Op.check(tree.namespaceMarker(ns, record.generation()), -1)), tree.namespace(ns));
            return null;
        }
        if (outcome.failedOp() == 2 && outcome.code() == Code.NONODE) {
            call.createPath(zk, tree.slots(ns));
            return null;
        }
        if (ZkCall.lostRace(outcome.code())) {
            return null;
        }
        throw call.refused(outcome, tree.slot(ns, slot));
    }

    /**
     * Whether {@code record} is the claim of request {@code r} itself, still held by this {@code session} (its
     * {@code live} znode, which the caller found, is then this session's).
     */
    private static boolean ownClaim(LeaseRequest r, SlotRecord record, String session) {
        return record.owner().equals(r.owner()) && record.session().equals(session);
    }

    /** The slot ids among the names of a listing; other names are not the centre's and are left out. */
    private static Set<Integer> slotIds(List<String> names) {
        Set<Integer> ids = new HashSet<>();
        for (String name : names) {
            try {
                ids.add(Integer.parseInt(name));
            } catch (NumberFormatException ignored) {
                // not ours: only slot ids live here
            }
        }
        return ids;
    }
}
