package io.github.idworker.lease.zookeeper;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.ClockAheadOfCentreException;
import io.github.idworker.IdWorkerConfigurationException;
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
import org.apache.zookeeper.common.PathUtils;
import org.apache.zookeeper.data.ACL;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

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
 *       {@code started}, {@code inc} (a random id of this incarnation of the record), {@code floor} (the lease floor
 *       of the claim that wrote it, until a renewal or return rewrites it). The lease ends at the znode's
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
 *   <li><b>Own claim.</b> A claim whose transaction committed but whose answer the connection lost is found by
 *       the next round: a held slot whose record names this request's owner token (new per request) and this
 *       session is the lease, with the floor its claim stored, so a retry never claims a second slot nor reports
 *       its own preferred slot taken.</li>
 *   <li>No claimable slot and no fresh id: {@link WorkerIdExhaustedException}.</li>
 *   <li>A borrow of a preferred slot ({@link LeaseRequest#preferredSlot()}) claims that slot only, by the same
 *       transactions, or throws {@link io.github.idworker.WorkerIdTakenException} while a live lease holds it; an id
 *       above the count is claimed with the ids below it created free with the generation floor ({@code SlotBorrow}
 *       gives the steps).</li>
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

    private final CuratorFramework client;
    private final String basePath;
    /** The paths under the base path as the server sees it: below the client's Curator namespace, if it has one. */
    private final ZnodeTree tree;
    private final Duration operationTimeout;
    private final ACLProvider acl;
    private final SlotBorrow slotBorrow;
    private final LeaseKeeping leaseKeeping;

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
        this.tree = new ZnodeTree(curatorNamespace == null || curatorNamespace.isEmpty()
                ? this.basePath : ZKPaths.fixForNamespace(curatorNamespace, this.basePath));
        this.operationTimeout = Objects.requireNonNull(operationTimeout, "operationTimeout");
        if (operationTimeout.toMillis() < 1) {
            throw new IllegalArgumentException("operationTimeout must be at least 1 ms, was " + operationTimeout);
        }
        this.slotBorrow = new SlotBorrow(tree);
        this.leaseKeeping = new LeaseKeeping(tree);
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
        return tree.clock();
    }

    /** The znode of a namespace's record; its children hold the slots. */
    public String namespacePath(String namespace) {
        return tree.namespace(namespace);
    }

    /** The persistent znode of one slot's record. */
    public String slotPath(String namespace, int workerId) {
        return tree.slot(namespace, workerId);
    }

    /** The znode whose increasing data keeps the largest loss guard any borrower under the base used. */
    public String guardPath() {
        return tree.guard();
    }

    /** The parent of a namespace's incarnation markers. */
    public String incarnationsPath(String namespace) {
        return tree.incarnations(namespace);
    }

    /** The ephemeral znode the holder's session keeps while it holds the slot. */
    public String livePath(String namespace, int workerId) {
        return tree.live(namespace, workerId);
    }

    // ---- the three calls: each checks its arguments, gives the call its deadline and leaves the rest to
    // SlotBorrow (with NamespaceGuard and SlotRepair) or LeaseKeeping

    @Override
    public WorkerLease borrow(LeaseRequest request) {
        String ns = checkNamespace(request.namespace());
        if (request.owner().isEmpty() || request.owner().indexOf('\n') >= 0 || request.owner().indexOf('\r') >= 0) {
            throw new IllegalArgumentException("owner token must be non-empty and on one line for the ZooKeeper "
                    + "centre, was '" + request.owner() + "'");
        }
        return slotBorrow.borrow(call("borrow a worker id of namespace '" + ns + "' under " + basePath), request);
    }

    @Override
    public WorkerLease renew(WorkerLease lease, long highWaterMillis) {
        String ns = checkNamespace(lease.namespace());
        return leaseKeeping.renew(call("renew worker id " + lease.workerId() + " of namespace '" + ns + "'"), lease,
                highWaterMillis);
    }

    @Override
    public void giveBack(WorkerLease lease, long lastIssuedMillis) {
        String ns = checkNamespace(lease.namespace());
        leaseKeeping.giveBack(call("return worker id " + lease.workerId() + " of namespace '" + ns + "'"), lease,
                lastIssuedMillis);
    }

    /** A new call, bounded by the operation timeout from now; {@code what} completes "could not ..." in errors. */
    private ZkCall call(String what) {
        return new ZkCall(client, acl, what, operationTimeout);
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
