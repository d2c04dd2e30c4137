package io.github.idworker.lease.zookeeper;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.ClockAheadOfCentreException;
import io.github.idworker.IdWorkerConfigurationException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.LayoutMismatchException;
import io.github.idworker.LeaseLostException;
import io.github.idworker.WorkerIdExhaustedException;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.curator.framework.imps.DefaultACLProvider;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.common.PathUtils;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Leases worker ids from ZooKeeper through an application's {@link CuratorFramework}, keeping every rule of
 * {@link ISequenceManager}. A ZooKeeper session is not a fence: a paused process whose session expired does not
 * know it yet and keeps issuing, so, as in every centre, only the high-water stored in the slot's znode decides
 * what a holder may issue and where a successor starts.
 *
 * <p>Layout under the base path (default {@value #DEFAULT_BASE_PATH}), every data znode text of
 * {@code key=value} lines:
 * <ul>
 *   <li>{@code <base>/clock}: written (empty) by every borrow, to read the centre's clock: the modification time
 *       ZooKeeper stamps on a write is the leader's clock.</li>
 *   <li>{@code <base>/guard}: {@code guard}, the largest loss guard ({@code idworker.lease.loss-guard}) any borrower under the base path
 *       used; it only grows, and it outlives a lost namespace.</li>
 *   <li>{@code <base>/namespaces/<ns>}: the namespace record ({@code layout} pinned at the first borrow,
 *       {@code guard0} and {@code guard}: the loss guard of its first and the largest of all borrowers,
 *       {@code slots}: slot ids below it have had a record, {@code gen}: a random id of this incarnation). Its
 *       creation time starts the namespace's generation.</li>
 *   <li>{@code <base>/namespaces/<ns>/slots/<id>}: persistent, one per slot: {@code hw} (stored high-water),
 *       {@code ttl}, {@code owner} (empty while free), {@code session}, {@code host}, {@code pid},
 *       {@code started}, {@code inc} (a random id of this incarnation of the record). The lease ends at the znode's
 *       modification time + {@code ttl}, by the centre's clock.</li>
 *   <li>{@code <base>/namespaces/<ns>/inc/<id>-<inc>} and {@code .../inc/ns-<gen>}: empty incarnation markers,
 *       created in the transaction that creates (or repairs) the record, deleted when it is repaired again.</li>
 *   <li>{@code <base>/namespaces/<ns>/live/<id>}: ephemeral, created by the holder's session in the transaction
 *       that claims the slot; ZooKeeper deletes it when that session ends.</li>
 * </ul>
 *
 * <p>Invariant: the effective high-water of a slot is never below a timestamp a past holder may still issue.
 * Every write is a compare-and-set on the znode's version and, in the same transaction, a check that the marker
 * of the incarnation read still exists, so no two claims of one slot both succeed and a renewal or return never
 * overwrites a successor. The version alone is not enough: a deleted and recreated znode restarts at version 0,
 * so a writer held up between its read and its write could otherwise pass against a successor's record once its
 * version climbed back to the one read (ABA); the marker of the incarnation it read is gone by then.
 *
 * <p>Borrow, in rounds until a claim succeeds or the operation timeout passes:
 * <ol>
 *   <li><b>Clock and reads, one round trip.</b> Write {@code <base>/clock} (its new modification time is the
 *       centre's {@code now}) and, without waiting (ZooKeeper answers a session's requests in order), read the
 *       namespace record, the children of {@code live} and the slot records up to the count this manager last saw
 *       plus eight, in read-only transactions. A borrower whose clock is more than {@code max-skew} ahead of
 *       {@code now} is refused with {@link ClockAheadOfCentreException} before anything else is written (DESIGN
 *       rule 13); every claim commits after {@code now}, so its first high-water stays within the centre's clock
 *       + ttl + max-skew.</li>
 *   <li><b>Namespace.</b> Read the record. Missing: create it with its {@code slots}, {@code live} and
 *       {@code inc} parents and its generation marker in one transaction (a concurrent creator wins the race
 *       harmlessly) and start the round again. A record without a generation or whose marker is gone gets a new
 *       one (and marker) and the round starts again. A namespace found missing may have been lost with holders
 *       still issuing, so its generation floor is its creation time + {@code max(guard0, <base>/guard)}: no slot
 *       of it is used at or below that (DESIGN rule 7), whatever ttl the borrower that recreated it has. A round whose {@code now}
 *       is not past the creation millisecond waits a millisecond and starts again, so a first high-water of
 *       {@code floor + 1} never exceeds {@code now + guard}.</li>
 *   <li><b>Layout.</b> A pinned layout other than the request's: {@link LayoutMismatchException}, nothing claimed.
 *       A request guard below the record's: {@link io.github.idworker.LossGuardLoweredException}, nothing
 *       claimed (across a loss of the record it cannot be told). A request guard above the one stored in
 *       {@code <base>/guard} or in the record raises it (compare-and-set) and starts the round again.</li>
 *   <li><b>Slots.</b> Records of slot ids below {@code slots} beyond those read are read now (records are
 *       never deleted by the centre, so a later read finds every one the namespace record counts unless it was
 *       lost). Effective high-water of a slot: {@code max(hw, generation floor)}; of one never
 *       created: the generation floor. A slot is claimable when it has no owner, its lease ended before
 *       {@code now}, or its {@code live} znode is gone (the holder's session ended).</li>
 *   <li><b>Loss per record</b> (rule 9). A slot id below {@code slots} without a readable record, or whose
 *       incarnation marker is gone (or which has none: written by an older version), was lost: a new clock write,
 *       sent after the reads that found it missing, gives {@code now'}; the record is recreated free as a new
 *       incarnation with {@code hw = now' + guard} (marked repaired), in one transaction that creates its marker
 *       and deletes the markers of earlier incarnations; a warning is logged and the round starts again. A
 *       holder that renewed before its record was lost stored at most its clock + ttl, below that floor.</li>
 *   <li><b>Claim</b>, first that succeeds: claimable slots whose effective high-water is below the borrower's
 *       clock, lowest id first (rule 5); then a fresh id; then the other claimable slots by ascending effective
 *       high-water. An existing slot is claimed by one transaction: set its record (owner, session, ttl,
 *       {@code hw = max(effective + 1, workerNow + ttl)}, holder info) at the version read, check the record's
 *       incarnation marker, delete the old {@code live} znode if one was read, create this session's ephemeral
 *       {@code live} znode. For a repaired record the first high-water is {@code max(effective, workerNow + ttl)}:
 *       its floor is a loss guard of the centre's clock read after the record was found missing, and the holder
 *       renews before it issues. A fresh id {@code n = slots} is claimed by one transaction: set the namespace
 *       record to {@code slots = n + 1} at the version read, check its generation marker, create {@code slots/n}
 *       with a new incarnation, its marker and {@code live/n}. A lost race moves to the next existing candidate,
 *       or, for a fresh id,
 *       starts the round again; a record already at the fresh id (written by hand) is counted and skipped.</li>
 *   <li>No claimable slot and no fresh id: {@link WorkerIdExhaustedException}.</li>
 * </ol>
 * The lease's floor is the effective high-water; its generation names the session that holds it.
 *
 * <p>Renew: the client must still be in the session that claimed the slot, and the slot's record must name the
 * lease's owner. The same round trip writes {@code <base>/clock}: a requested high-water above the stored one and
 * above that write's modification time + ttl + max-skew is refused with {@link ClockAheadOfCentreException} and
 * nothing is written (the renewal commits later, when the centre's clock is further on). Then one transaction checks that the session's {@code live} znode exists and sets the record
 * ({@code hw = max(stored, requested)}, ttl restarted) at the version read and checks the record's incarnation
 * marker. A session that ended (expired while the process was paused or cut off, even if Curator has since opened
 * a new one), a missing or recreated record or another owner: {@link LeaseLostException}, nothing changed, and the worker borrows again. A lost version race reads
 * again.
 *
 * <p>Return: only while the record names the lease's owner, one transaction sets {@code hw} to the last issued
 * timestamp, empties owner and session (the holder info stays, to show who held it last) and deletes the
 * {@code live} znode, checking the record's incarnation marker. Anything else (a recreated record included) is left
 * as it is.
 *
 * <p>The centre's clock is the modification time ZooKeeper stamps on a write: the leader's wall clock when it
 * processed the write. Each server has its own clock; after a leader change the next leader's applies, so the
 * ensemble's clocks must agree within max-skew as well (NTP on every server).
 *
 * <p>Why the floors cover every old holder: every high-water stored at centre time {@code t} is at most
 * {@code t + G}, {@code G} the largest loss guard ({@code >= ttl + maxSkew} of its borrower) stored in {@code <base>/guard} before it (a renewal stores the holder's clock + ttl, a return the last issued timestamp, a
 * claim {@code max(floor + 1, workerNow + ttl)} with the floor never ahead of that bound, as argued for the
 * generation floor and the repaired record above). A namespace created, or a record repaired, at {@code t' >= t}
 * therefore has a floor at or above every high-water stored before it was lost. What ZooKeeper acknowledged is on
 * a quorum's disks, so a leader change loses nothing; an ensemble restored from an old snapshot is not detected
 * and must get a new base path.
 *
 * <p>Every call is bounded by the operation timeout: requests go out on ZooKeeper's asynchronous API and are awaited
 * only until then, and waiting for a connection counts against it; nothing is sent once it has passed. Failures of the connection or the session
 * within it are retried; what remains surfaces as {@link CenterUnavailableException}. Curator's retry policy is
 * not used. A lease belongs to the session of the manager that borrowed it: renew it through that manager.
 * Thread-safe; the manager keeps no state besides its settings, and never closes the client.
 */
public class ZookeeperSequenceManager implements ISequenceManager {

    /** The base path unless one is given. */
    public static final String DEFAULT_BASE_PATH = "/idworker";
    /** How long one borrow, renewal or return may take unless told otherwise. */
    public static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofSeconds(3);
    /** The property that bounds each call, quoted in configuration errors. */
    public static final String OPERATION_TIMEOUT_PROPERTY = "idworker.zookeeper.operation-timeout";
    /** The property that names the base path, quoted in configuration errors. */
    public static final String BASE_PATH_PROPERTY = "idworker.zookeeper.base-path";

    private static final Logger log = LoggerFactory.getLogger(ZookeeperSequenceManager.class);
    private static final byte[] EMPTY = new byte[0];
    /** Read-only transactions of this many znodes, all sent at once: well below ZooKeeper's 1 MB per packet. */
    private static final int READ_CHUNK = 256;
    /** Slot records read beyond the count last seen, so a borrow that creates a slot needs no second read. */
    private static final int HINT_MARGIN = 8;

    private final CuratorFramework client;
    private final String basePath;
    /** The base path as the server sees it: below the client's Curator namespace, if it has one. */
    private final String root;
    private final Duration operationTimeout;
    private final ACLProvider acl;
    /**
     * How many slots each namespace had at this manager's last borrow: how many records the next borrow reads
     * along with the namespace record. A hint for speed only; a namespace with more slots is read in full.
     */
    private final Map<String, Integer> createdHint = new ConcurrentHashMap<>();

    /** A centre under {@value #DEFAULT_BASE_PATH} with the default operation timeout. */
    public ZookeeperSequenceManager(CuratorFramework client) {
        this(client, DEFAULT_BASE_PATH, DEFAULT_OPERATION_TIMEOUT);
    }

    /**
     * @param client a started (or soon started) Curator client of the application; the manager does not close it
     * @param basePath absolute znode path under which all namespaces live, e.g. {@code /idworker}
     * @param operationTimeout how long one borrow, renewal or return may take in all, waiting for a connection included
     * @throws IdWorkerConfigurationException when the base path is not a valid absolute znode path
     */
    public ZookeeperSequenceManager(CuratorFramework client, String basePath, Duration operationTimeout) {
        this(client, basePath, operationTimeout, new DefaultACLProvider());
    }

    /**
     * @param acl the ACLs of the znodes the centre creates (Curator's default: open to every client); with
     *        creator-only ACLs every worker of a namespace must authenticate as the same identity, because a
     *        borrower deletes the ephemeral node of a holder whose lease ended
     */
    public ZookeeperSequenceManager(CuratorFramework client, String basePath, Duration operationTimeout, ACLProvider acl) {
        this.client = Objects.requireNonNull(client, "client");
        this.basePath = checkBasePath(basePath);
        this.acl = Objects.requireNonNull(acl, "acl");
        String curatorNamespace = client.getNamespace();
        this.root = curatorNamespace == null || curatorNamespace.isEmpty()
                ? this.basePath : ZKPaths.fixForNamespace(curatorNamespace, this.basePath);
        this.operationTimeout = Objects.requireNonNull(operationTimeout, "operationTimeout");
        if (operationTimeout.toMillis() < 1) {
            throw new IllegalArgumentException("operationTimeout must be at least 1 ms, was " + operationTimeout);
        }
    }

    /**
     * An {@link ACLProvider} that gives every znode the same ACLs, e.g.
     * {@code sameAclEverywhere(ZooDefs.Ids.CREATOR_ALL_ACL)} for creator-only znodes (every worker of a namespace
     * must then authenticate as that one identity).
     *
     * @throws IllegalArgumentException when {@code acls} is empty: ZooKeeper refuses a znode without an ACL
     */
    public static ACLProvider sameAclEverywhere(List<ACL> acls) {
        List<ACL> fixed = List.copyOf(Objects.requireNonNull(acls, "acls"));
        if (fixed.isEmpty()) {
            throw new IllegalArgumentException("acls must name at least one ACL: ZooKeeper refuses a znode without one");
        }
        return new ACLProvider() {
            @Override
            public List<ACL> getDefaultAcl() {
                return fixed;
            }

            @Override
            public List<ACL> getAclForPath(String path) {
                return fixed;
            }
        };
    }

    public String basePath() {
        return basePath;
    }

    /** The Curator client the centre talks through; the application's, so the manager never closes it. */
    public CuratorFramework client() {
        return client;
    }

    public Duration operationTimeout() {
        return operationTimeout;
    }

    /**
     * The znode written to read the centre's clock. Paths are as the server sees them: under the client's
     * Curator namespace, when it has one.
     */
    public String clockPath() {
        return root + "/clock";
    }

    /** The znode of a namespace's record; its children hold the slots. */
    public String namespacePath(String namespace) {
        return root + "/namespaces/" + namespace;
    }

    /** The persistent znode of one slot's record. */
    public String slotPath(String namespace, int workerId) {
        return namespacePath(namespace) + "/slots/" + workerId;
    }

    /** The znode whose increasing data keeps the largest loss guard any borrower under the base used. */
    public String guardPath() {
        return root + "/guard";
    }

    /** The parent of a namespace's incarnation markers. */
    public String incarnationsPath(String namespace) {
        return namespacePath(namespace) + "/inc";
    }

    /** The marker of one incarnation of a slot's record: it exists exactly while that incarnation does. */
    private String slotMarker(String namespace, int workerId, String incarnation) {
        return incarnationsPath(namespace) + "/" + workerId + "-" + incarnation;
    }

    /** The marker of one incarnation (generation) of a namespace record. */
    private String namespaceMarker(String namespace, String generation) {
        return incarnationsPath(namespace) + "/ns-" + generation;
    }

    private static String newIncarnation() {
        return UUID.randomUUID().toString();
    }

    /** The ephemeral znode the holder's session keeps while it holds the slot. */
    public String livePath(String namespace, int workerId) {
        return namespacePath(namespace) + "/live/" + workerId;
    }

    // ---- borrow ------------------------------------------------------------------------------------------------

    @Override
    public WorkerLease borrow(LeaseRequest request) {
        String ns = checkNamespace(request.namespace());
        if (request.owner().isEmpty() || request.owner().indexOf('\n') >= 0 || request.owner().indexOf('\r') >= 0) {
            throw new IllegalArgumentException("owner token must be non-empty and on one line for the ZooKeeper "
                    + "centre, was '" + request.owner() + "'");
        }
        ZkCall call = new ZkCall(client, acl, "borrow a worker id of namespace '" + ns + "' under " + basePath, operationTimeout);
        int rounds = 0;
        while (true) {
            rounds++;
            try {
                WorkerLease lease = borrowRound(call, call.connected(), request);
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

    /** A candidate slot of one round; {@code fresh} for the next id never used. */
    private record Candidate(int slot, long effective, SlotRecord record, Stat stat, boolean live, boolean fresh) {
    }

    /** One borrow round; {@code null} when the round has to start again. */
    private WorkerLease borrowRound(ZkCall call, ZooKeeper zk, LeaseRequest r) throws KeeperException {
        String ns = r.namespace();
        String nsPath = namespacePath(ns);
        // one round trip for the clock and the reads: the session's requests are answered in order
        CompletableFuture<Stat> clock = call.setAsync(zk, clockPath(), EMPTY, -1);
        int guess = Math.min(r.slotCount(), createdHint.getOrDefault(ns, 0) + HINT_MARGIN);
        List<Op> reads = new ArrayList<>(guess + 2);
        reads.add(Op.getData(nsPath));
        reads.add(Op.getChildren(nsPath + "/live"));
        reads.add(Op.getChildren(incarnationsPath(ns)));
        reads.add(Op.getData(guardPath()));
        for (int slot = 0; slot < guess; slot++) {
            reads.add(Op.getData(slotPath(ns, slot)));
        }
        List<OpResult> read = call.read(zk, reads, READ_CHUNK);
        long now;
        try {
            now = call.await(clock).getMtime();
        } catch (KeeperException.NoNodeException e) {
            call.createPath(zk, clockPath());
            return null;
        }
        r.refuseIfAheadOf(now);
        if (!(read.get(0) instanceof OpResult.GetDataResult nsData)) {
            refuseUnlessMissing(call, read.get(0), nsPath);
            createNamespace(call, zk, r);
            return null;
        }
        ZkCall.Node nsNode = new ZkCall.Node(nsData.getData(), nsData.getStat());
        NamespaceRecord record = NamespaceRecord.parse(nsNode.data());
        if (record == null) {
            throw new CenterUnavailableException("The ZooKeeper centre cannot read the record of namespace '" + ns
                    + "' in " + nsPath + " (was it written by hand?): '"
                    + new String(nsNode.data() == null ? EMPTY : nsNode.data(), StandardCharsets.UTF_8)
                    + "'. Restore it, or use a new idworker.namespace.", null);
        }
        if (!record.layout().equals(r.layout())) {
            throw new LayoutMismatchException(ns, record.layout(), r.layout());
        }
        // the namespace's own guard, not the base path's: namespaces under one base may use different ones
        r.refuseIfBelow(record.guardMillis());
        if (!(read.get(2) instanceof OpResult.GetChildrenResult incChildren)) {
            refuseUnlessMissing(call, read.get(2), incarnationsPath(ns));
            call.createPath(zk, incarnationsPath(ns));
            return null;
        }
        Set<String> markers = new HashSet<>(incChildren.getChildren());
        if (record.generation().isEmpty() || !markers.contains("ns-" + record.generation())) {
            // written by an older version, or its marker was deleted: give the record a new generation
            String generation = newIncarnation();
            List<Op> ops = new ArrayList<>();
            ops.add(Op.setData(nsPath, record.withGeneration(generation).encode(), nsNode.stat().getVersion()));
            ops.add(call.createOp(namespaceMarker(ns, generation), EMPTY, CreateMode.PERSISTENT));
            for (String name : markers) {
                if (name.startsWith("ns-")) {
                    ops.add(Op.delete(incarnationsPath(ns) + "/" + name, -1));
                }
            }
            multiUnlessLostRace(call, zk, ops, nsPath); // a lost race: another borrower did it; read again
            return null;
        }
        long baseGuard = 0;
        if (read.get(3) instanceof OpResult.GetDataResult guardData) {
            Long stored = ZnodeText.number(ZnodeText.decode(guardData.getData()), "guard");
            baseGuard = stored == null ? 0 : stored;
            if (r.lossGuardMillis() > baseGuard) {
                setQuietly(call, zk, guardPath(), guardText(r.lossGuardMillis()), guardData.getStat().getVersion());
                return null;
            }
        } else {
            refuseUnlessMissing(call, read.get(3), guardPath());
            call.create(zk, guardPath(), guardText(Math.max(r.lossGuardMillis(), record.guardMillis())),
                    CreateMode.PERSISTENT);
            return null;
        }
        if (r.lossGuardMillis() > record.guardMillis()) {
            // a lost version race only means another borrower changed the record: read again either way
            multiUnlessLostRace(call, zk, List.of(
                    Op.setData(nsPath, record.withGuard(r.lossGuardMillis()).encode(), nsNode.stat().getVersion()),
                    Op.check(namespaceMarker(ns, record.generation()), -1)), nsPath);
            return null;
        }
        long generationMillis = nsNode.stat().getCtime();
        if (now <= generationMillis) {
            return null;
        }
        // the largest guard ever used under the base path: a lost namespace may have had holders with a longer ttl
        long guard = Math.max(baseGuard, Math.max(record.guardMillis(), r.lossGuardMillis()));
        long generationFloor = generationMillis + Math.max(record.firstGuardMillis(), baseGuard);

        int known = Math.min(record.slotsCreated(), r.slotCount());
        createdHint.put(ns, known);
        if (!(read.get(1) instanceof OpResult.GetChildrenResult liveChildren)) {
            refuseUnlessMissing(call, read.get(1), nsPath + "/live");
            call.createPath(zk, nsPath + "/live");
            return null;
        }
        Set<Integer> live = slotIds(liveChildren.getChildren());
        List<OpResult> results = new ArrayList<>(read.subList(4, read.size()));
        if (known > guess) {
            // more slots than the hint said: read the rest. Records are never deleted by the centre, so one
            // counted in the namespace record read above is there in a later read unless it was lost.
            List<Op> more = new ArrayList<>(known - guess);
            for (int slot = guess; slot < known; slot++) {
                more.add(Op.getData(slotPath(ns, slot)));
            }
            results.addAll(call.read(zk, more, READ_CHUNK));
        }

        List<Candidate> past = new ArrayList<>();
        List<Candidate> future = new ArrayList<>();
        TreeMap<Integer, Stat> lost = new TreeMap<>();
        for (int slot = 0; slot < known; slot++) {
            OpResult result = results.get(slot);
            // a missing record is a loss to repair; any other error (NOAUTH under a hand-set ACL) is the caller's
            refuseUnlessMissing(call, result, slotPath(ns, slot));
            SlotRecord slotRecord = null;
            Stat stat = null;
            if (result instanceof OpResult.GetDataResult data) {
                stat = data.getStat();
                slotRecord = SlotRecord.parse(data.getData());
            }
            if (slotRecord == null || slotRecord.incarnation().isEmpty()
                    || !markers.contains(slot + "-" + slotRecord.incarnation())) {
                // missing, unreadable, or its incarnation marker is gone: treated as lost (rule 9)
                lost.put(slot, stat);
                continue;
            }
            boolean claimable = slotRecord.free() || !live.contains(slot)
                    || slotRecord.expired(stat.getMtime(), now);
            if (claimable) {
                long effective = Math.max(slotRecord.highWater(), generationFloor);
                Candidate c = new Candidate(slot, effective, slotRecord, stat, live.contains(slot), false);
                (effective < r.workerNowMillis() ? past : future).add(c);
            }
        }
        if (!lost.isEmpty()) {
            // the floor comes from a clock written after the reads that found the records missing: a holder that
            // renewed before they were lost stored at most its clock + ttl <= that clock + guard
            long repairNow = call.set(zk, clockPath(), EMPTY, -1).getMtime();
            repair(call, zk, ns, lost, markers, repairNow + guard);
            return null;
        }
        boolean freshLeft = record.slotsCreated() < r.slotCount();
        if (past.isEmpty() && future.isEmpty() && !freshLeft) {
            throw new WorkerIdExhaustedException(ns, r.slotCount());
        }
        if (freshLeft) {
            int id = record.slotsCreated();
            Candidate fresh = new Candidate(id, generationFloor, null, nsNode.stat(), live.contains(id), true);
            // the namespace record's version restarts if it is recreated: the claim also checks its marker
            (generationFloor < r.workerNowMillis() ? past : future).add(fresh);
        }
        past.sort(Comparator.comparingInt(Candidate::slot));
        future.sort(Comparator.comparingLong(Candidate::effective).thenComparingInt(Candidate::slot));
        List<Candidate> order = new ArrayList<>(past);
        order.addAll(future);
        String session = sessionOf(zk);
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

    private void createNamespace(ZkCall call, ZooKeeper zk, LeaseRequest r) throws KeeperException {
        String nsPath = namespacePath(r.namespace());
        String generation = newIncarnation();
        List<Op> ops = List.of(
                call.createOp(nsPath, NamespaceRecord.first(r.layout(), r.lossGuardMillis(), generation).encode(),
                        CreateMode.PERSISTENT),
                call.createOp(nsPath + "/slots", EMPTY, CreateMode.PERSISTENT),
                call.createOp(nsPath + "/live", EMPTY, CreateMode.PERSISTENT),
                call.createOp(incarnationsPath(r.namespace()), EMPTY, CreateMode.PERSISTENT),
                call.createOp(namespaceMarker(r.namespace(), generation), EMPTY, CreateMode.PERSISTENT));
        ZkCall.MultiOutcome outcome = call.multi(zk, ops);
        if (outcome.committed()) {
            log.info("ZooKeeper centre created namespace '{}' in {} with layout [{}]; its worker ids are first used "
                            + "{} ms (the loss guard) after now, since a namespace found missing may have been lost while "
                            + "holders were still issuing", r.namespace(), nsPath, r.layout(), r.lossGuardMillis());
        } else if (outcome.code() == Code.NONODE) {
            call.createPath(zk, root + "/namespaces");
        } else if (outcome.code() != Code.NODEEXISTS) {
            throw call.failed(KeeperException.create(outcome.code(), nsPath));
        }
    }

    /**
     * Recreates lost or unreadable slot records free, with a floor above anything their last holders issued, each
     * as a new incarnation: one transaction writes the record, creates its new marker and deletes the markers of
     * every earlier incarnation, so a write of a holder that read an earlier one fails its marker check.
     */
    private void repair(ZkCall call, ZooKeeper zk, String ns, TreeMap<Integer, Stat> lost, Set<String> markers,
                        long floor) throws KeeperException {
        List<Integer> repaired = new ArrayList<>();
        for (var e : lost.entrySet()) {
            int slot = e.getKey();
            String path = slotPath(ns, slot);
            String incarnation = newIncarnation();
            byte[] data = SlotRecord.lost(floor, incarnation).encode();
            List<Op> ops = new ArrayList<>();
            ops.add(e.getValue() == null
                    ? call.createOp(path, data, CreateMode.PERSISTENT)
                    : Op.setData(path, data, e.getValue().getVersion()));
            ops.add(call.createOp(slotMarker(ns, slot, incarnation), EMPTY, CreateMode.PERSISTENT));
            for (String name : markers) {
                if (name.startsWith(slot + "-")) {
                    ops.add(Op.delete(incarnationsPath(ns) + "/" + name, -1));
                }
            }
            ZkCall.MultiOutcome outcome = call.multi(zk, ops);
            if (outcome.committed()) {
                repaired.add(slot);
            } else if (outcome.failedOp() == 0 && outcome.code() == Code.NONODE) {
                call.createPath(zk, namespacePath(ns) + "/slots");
            } else if (!lostRace(outcome.code())) {
                throw call.failed(KeeperException.create(outcome.code(), path));
            }
        }
        if (!repaired.isEmpty()) {
            log.warn("Worker ids {} of namespace '{}' had no readable record under {} though they were used before "
                            + "(deleted or damaged): recreated them free with high-water {} (centre clock + loss guard), "
                            + "above anything their last holders can have issued", repaired, ns,
                    namespacePath(ns) + "/slots", floor);
        }
    }

    /** A read that failed for another reason than a missing znode (no permission, say) fails the call. */
    private static void refuseUnlessMissing(ZkCall call, OpResult result, String path) {
        if (result instanceof OpResult.ErrorResult error && error.getErr() != Code.NONODE.intValue()) {
            throw call.failed(KeeperException.create(Code.get(error.getErr()), path));
        }
    }

    /** Claims an existing slot in one transaction; {@code null} when another writer changed it first. */
    private WorkerLease claim(ZkCall call, ZooKeeper zk, LeaseRequest r, Candidate c, String session)
            throws KeeperException {
        boolean guardOfThisRound = c.record().repaired() && c.record().highWater() == c.effective();
        long highWater = guardOfThisRound
                ? Math.max(c.effective(), r.workerNowMillis() + r.ttl().toMillis())
                : r.firstHighWater(c.effective());
        SlotRecord claimed = new SlotRecord(highWater, r.ttl().toMillis(), r.owner(), session, r.host(), r.pid(),
                Instant.ofEpochMilli(r.workerNowMillis()).toString(), false, c.record().incarnation());
        List<Op> ops = new ArrayList<>(4);
        ops.add(Op.setData(slotPath(r.namespace(), c.slot()), claimed.encode(), c.stat().getVersion()));
        // the version alone would also match a recreated record that climbed back to it: check the incarnation
        ops.add(Op.check(slotMarker(r.namespace(), c.slot(), c.record().incarnation()), -1));
        String livePath = livePath(r.namespace(), c.slot());
        if (c.live()) {
            ops.add(Op.delete(livePath, -1));
        }
        ops.add(call.createOp(livePath, r.owner().getBytes(StandardCharsets.UTF_8), CreateMode.EPHEMERAL));
        ZkCall.MultiOutcome outcome = call.multi(zk, ops);
        if (outcome.committed()) {
            return WorkerLease.of(r, c.slot(), c.effective(), highWater, session);
        }
        if (lostRace(outcome.code())) {
            return null;
        }
        throw call.failed(KeeperException.create(outcome.code(), slotPath(r.namespace(), c.slot())));
    }

    /** Claims the next fresh slot id with the namespace record's counter; {@code null} to read again. */
    private WorkerLease claimFresh(ZkCall call, ZooKeeper zk, LeaseRequest r, NamespaceRecord record, Candidate c,
                                   String session) throws KeeperException {
        String ns = r.namespace();
        int slot = c.slot();
        long highWater = r.firstHighWater(c.effective());
        String incarnation = newIncarnation();
        SlotRecord claimed = new SlotRecord(highWater, r.ttl().toMillis(), r.owner(), session, r.host(), r.pid(),
                Instant.ofEpochMilli(r.workerNowMillis()).toString(), false, incarnation);
        List<Op> ops = new ArrayList<>(6);
        ops.add(Op.setData(namespacePath(ns), record.withSlotsCreated(slot + 1).encode(), c.stat().getVersion()));
        // the version alone would also match a recreated namespace record that climbed back to it
        ops.add(Op.check(namespaceMarker(ns, record.generation()), -1));
        ops.add(call.createOp(slotPath(ns, slot), claimed.encode(), CreateMode.PERSISTENT));
        ops.add(call.createOp(slotMarker(ns, slot, incarnation), EMPTY, CreateMode.PERSISTENT));
        String livePath = livePath(ns, slot);
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
            multiUnlessLostRace(call, zk, List.of(
                    Op.setData(namespacePath(ns), record.withSlotsCreated(slot + 1).encode(), c.stat().getVersion()),
                    Op.check(namespaceMarker(ns, record.generation()), -1)), namespacePath(ns));
            return null;
        }
        if (outcome.failedOp() == 2 && outcome.code() == Code.NONODE) {
            call.createPath(zk, namespacePath(ns) + "/slots");
            return null;
        }
        if (lostRace(outcome.code())) {
            return null;
        }
        throw call.failed(KeeperException.create(outcome.code(), slotPath(ns, slot)));
    }

    // ---- renew and return --------------------------------------------------------------------------------------

    @Override
    public WorkerLease renew(WorkerLease lease, long highWaterMillis) {
        String ns = checkNamespace(lease.namespace());
        String path = slotPath(ns, lease.workerId());
        ZkCall call = new ZkCall(client, acl, "renew worker id " + lease.workerId() + " of namespace '" + ns + "'",
                operationTimeout);
        while (true) {
            try {
                ZooKeeper zk = call.connected();
                String session = sessionOf(zk);
                if (!session.equals(lease.generation())) {
                    throw lost(lease, "the ZooKeeper session that held it (0x" + lease.generation() + ") ended; "
                            + "this client is now in session 0x" + session + ", and a successor may already hold the slot");
                }
                // one round trip for the clock and the read: the session's requests are answered in order
                CompletableFuture<Stat> clock = call.setAsync(zk, clockPath(), EMPTY, -1);
                ZkCall.Node node = call.get(zk, path);
                long centreNow;
                try {
                    centreNow = call.await(clock).getMtime();
                } catch (KeeperException.NoNodeException e) {
                    call.createPath(zk, clockPath());
                    continue;
                }
                SlotRecord record = node == null ? null : SlotRecord.parse(node.data());
                if (record == null) {
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
                        Op.check(livePath(ns, lease.workerId()), -1),
                        Op.setData(path, record.withHighWater(highWater, lease.ttl().toMillis()).encode(),
                                node.stat().getVersion()),
                        // the version alone would also match a recreated record that climbed back to it
                        Op.check(slotMarker(ns, lease.workerId(), record.incarnation()), -1)));
                if (outcome.committed()) {
                    return lease.withHighWater(highWater);
                }
                if (outcome.failedOp() == 0 && outcome.code() == Code.NONODE) {
                    throw lost(lease, "the ephemeral node " + livePath(ns, lease.workerId()) + " of its session is "
                            + "gone: the session expired or the slot was taken");
                }
                if (outcome.failedOp() == 2 && outcome.code() == Code.NONODE) {
                    throw lost(lease, "its record " + path + " was lost and recreated after it was read, so another "
                            + "worker may hold the slot");
                }
                if (!lostRace(outcome.code())) {
                    throw call.failed(KeeperException.create(outcome.code(), path));
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

    @Override
    public void giveBack(WorkerLease lease, long lastIssuedMillis) {
        String ns = checkNamespace(lease.namespace());
        String path = slotPath(ns, lease.workerId());
        String livePath = livePath(ns, lease.workerId());
        ZkCall call = new ZkCall(client, acl, "return worker id " + lease.workerId() + " of namespace '" + ns + "'",
                operationTimeout);
        // the holder's ephemeral node is normally there: delete it in the same transaction, and only when that
        // fails for want of it (its session ended) free the record alone; a shutdown waits for two round trips
        boolean liveGone = false;
        while (true) {
            try {
                ZooKeeper zk = call.connected();
                ZkCall.Node node = call.get(zk, path);
                SlotRecord record = node == null ? null : SlotRecord.parse(node.data());
                if (record == null || !record.owner().equals(lease.owner()) || record.incarnation().isEmpty()
                        || !record.session().equals(lease.generation())) {
                    return; // not this lease's record: a stale lease must not free, or lower, a newer one
                }
                List<Op> ops = new ArrayList<>(3);
                ops.add(Op.setData(path, record.returned(lastIssuedMillis).encode(), node.stat().getVersion()));
                // the version alone would also match a recreated record that climbed back to it
                ops.add(Op.check(slotMarker(ns, lease.workerId(), record.incarnation()), -1));
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
                if (!lostRace(outcome.code())) {
                    throw call.failed(KeeperException.create(outcome.code(), path));
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

    // ---- helpers -----------------------------------------------------------------------------------------------

    private static LeaseLostException lost(WorkerLease lease, String reason) {
        return new LeaseLostException("Worker id " + lease.workerId() + " of namespace '" + lease.namespace()
                + "' is no longer leased to owner " + lease.owner() + ": " + reason + ". Borrow another worker id.");
    }

    /** Whether a refused transaction only lost a race against another writer (so reading again may succeed). */
    private static boolean lostRace(Code code) {
        return code == Code.BADVERSION || code == Code.NONODE || code == Code.NODEEXISTS || code == Code.NOTEMPTY;
    }

    /** Runs a transaction whose refusal for a lost race means only "read again"; any other refusal fails the call. */
    private static void multiUnlessLostRace(ZkCall call, ZooKeeper zk, List<Op> ops, String path)
            throws KeeperException {
        ZkCall.MultiOutcome outcome = call.multi(zk, ops);
        if (!outcome.committed() && !lostRace(outcome.code())) {
            throw call.failed(KeeperException.create(outcome.code(), path));
        }
    }

    /** Writes at a version; {@code false} when the znode changed or vanished meanwhile. */
    private static boolean setQuietly(ZkCall call, ZooKeeper zk, String path, byte[] data, int version)
            throws KeeperException {
        try {
            call.set(zk, path, data, version);
            return true;
        } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
            return false;
        }
    }

    private static byte[] guardText(long guardMillis) {
        return ZnodeText.encode(Map.of("guard", Long.toString(guardMillis)));
    }

    private static String sessionOf(ZooKeeper zk) {
        return Long.toHexString(zk.getSessionId());
    }

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

    private String checkNamespace(String namespace) {
        if (namespace.indexOf('/') >= 0 || namespace.equals(".") || namespace.equals("..")) {
            throw new IdWorkerConfigurationException("idworker.namespace", "must be one znode name for the ZooKeeper "
                    + "centre (no '/', not '.' or '..'), was '" + namespace + "'");
        }
        try {
            PathUtils.validatePath(namespacePath(namespace));
        } catch (IllegalArgumentException e) {
            throw new IdWorkerConfigurationException("idworker.namespace", "must be a valid znode name for the "
                    + "ZooKeeper centre, was '" + namespace + "': " + e.getMessage());
        }
        return namespace;
    }

    private static String checkBasePath(String basePath) {
        if (basePath == null || basePath.isBlank()) {
            throw new IdWorkerConfigurationException(BASE_PATH_PROPERTY, "must be an absolute znode path such as "
                    + DEFAULT_BASE_PATH + ", was '" + basePath + "'");
        }
        try {
            PathUtils.validatePath(basePath);
        } catch (IllegalArgumentException e) {
            throw new IdWorkerConfigurationException(BASE_PATH_PROPERTY, "must be an absolute znode path such as "
                    + DEFAULT_BASE_PATH + " (starting with '/', no trailing '/', no empty or '.' parts), was '"
                    + basePath + "': " + e.getMessage());
        }
        if (basePath.equals("/")) {
            throw new IdWorkerConfigurationException(BASE_PATH_PROPERTY, "must not be the root '/': idworker needs a "
                    + "znode of its own, such as " + DEFAULT_BASE_PATH);
        }
        return basePath;
    }

    @Override
    public String toString() {
        return "ZookeeperSequenceManager[basePath=" + basePath + ", operationTimeout=" + operationTimeout + "]";
    }
}
