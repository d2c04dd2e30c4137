package io.github.idworker.lease.zookeeper;

import static io.github.idworker.lease.zookeeper.ZnodeTree.EMPTY;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.LayoutMismatchException;
import io.github.idworker.lease.LeaseRequest;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Steps 2 and 3 of a borrow round (see {@link ZookeeperSequenceManager}): a round gets past it only with a
 * namespace record that exists, is readable, pins the request's layout, carries a live generation marker and a loss
 * guard no smaller than the request's, under a base path whose {@code guard} is no smaller either; its result names
 * the floor below which no slot of the namespace is used. Each step that has to change something writes it and
 * sends the round back to read again, so every round that goes on read one consistent state:
 * <ol>
 *   <li>No record: create it with its {@code slots}, {@code live} and {@code inc} parents and its generation marker
 *       in one transaction (a concurrent creator wins harmlessly).</li>
 *   <li>An unreadable record: {@link CenterUnavailableException}; another pinned layout:
 *       {@link LayoutMismatchException}; a record guard above the request's:
 *       {@link io.github.idworker.LossGuardLoweredException}. Nothing is claimed.</li>
 *   <li>No generation, or its marker gone: a new generation and marker, the old markers deleted.</li>
 *   <li>A request guard above the base path's {@code guard} or the record's: raise it (compare-and-set).</li>
 *   <li>A round whose centre clock is not past the record's creation millisecond waits for the next one, so a first
 *       high-water of {@code floor + 1} never exceeds {@code now + guard}.</li>
 *   <li>Generation floor: the record's creation time + {@code max(guard0, <base>/guard)} (DESIGN rule 7): the
 *       namespace may have been lost and recreated while holders with a longer ttl were still issuing.</li>
 * </ol>
 */
final class NamespaceGuard {

    /** Under the manager's name: the lines are the centre's, whichever class writes them. */
    private static final Logger log = LoggerFactory.getLogger(ZookeeperSequenceManager.class);

    /**
     * A namespace a round may borrow from.
     *
     * @param record the namespace record read
     * @param stat its stat, whose version a claim of a fresh slot id writes at
     * @param markers the names of the incarnation markers read with it
     * @param guard the largest loss guard ever used under the base path, the namespace and the request included
     * @param generationFloor no slot of this generation of the namespace is used at or below this timestamp
     */
    record Namespace(NamespaceRecord record, Stat stat, Set<String> markers, long guard, long generationFloor) {
    }

    private final ZnodeTree tree;

    NamespaceGuard(ZnodeTree tree) {
        this.tree = tree;
    }

    /**
     * Checks the namespace of a round from its reads; {@code null} when something had to be written first and the
     * round has to start again.
     *
     * @param now the centre's clock of the round
     * @param recordRead the read of the namespace record
     * @param markersRead the listing of its incarnation markers
     * @param guardRead the read of the base path's {@code guard}
     */
    @Nullable
    Namespace check(ZkCall call, ZooKeeper zk, LeaseRequest r, long now, OpResult recordRead, OpResult markersRead,
                    OpResult guardRead) throws KeeperException {
        String ns = r.namespace();
        String nsPath = tree.namespace(ns);
        if (!(recordRead instanceof OpResult.GetDataResult nsData)) {
            call.refuseUnlessMissing(recordRead, nsPath);
            create(call, zk, r);
            return null;
        }
        byte @Nullable [] data = nsData.getData();
        Stat stat = nsData.getStat();
        NamespaceRecord record = NamespaceRecord.parse(data);
        if (record == null) {
            throw new CenterUnavailableException("The ZooKeeper centre cannot read the record of namespace '" + ns
                    + "' in " + nsPath + " (was it written by hand?): '"
                    + new String(data == null ? EMPTY : data, StandardCharsets.UTF_8)
                    + "'. Restore it, or use a new idworker.namespace.", null);
        }
        if (!record.layout().equals(r.layout())) {
            throw new LayoutMismatchException(ns, record.layout(), r.layout());
        }
        // the namespace's own guard, not the base path's: namespaces under one base may use different ones
        r.refuseIfBelow(record.guardMillis());
        if (!(markersRead instanceof OpResult.GetChildrenResult incChildren)) {
            call.refuseUnlessMissing(markersRead, tree.incarnations(ns));
            call.createPath(zk, tree.incarnations(ns));
            return null;
        }
        Set<String> markers = new HashSet<>(incChildren.getChildren());
        if (record.generation().isEmpty() || !markers.contains("ns-" + record.generation())) {
            // written by an older version, or its marker was deleted: give the record a new generation
            String generation = ZnodeTree.newIncarnation();
            List<Op> ops = new ArrayList<>();
            ops.add(Op.setData(nsPath, record.withGeneration(generation).encode(), stat.getVersion()));
            ops.add(call.createOp(tree.namespaceMarker(ns, generation), EMPTY, CreateMode.PERSISTENT));
            for (String name : markers) {
                if (name.startsWith("ns-")) {
                    ops.add(Op.delete(tree.marker(ns, name), -1));
                }
            }
            call.multiUnlessLostRace(zk, ops, nsPath); // a lost race: another borrower did it; read again
            return null;
        }
        long baseGuard;
        if (guardRead instanceof OpResult.GetDataResult guardData) {
            Long stored = ZnodeText.number(ZnodeText.decode(guardData.getData()), "guard");
            baseGuard = stored == null ? 0 : stored;
            if (r.lossGuardMillis() > baseGuard) {
                call.setQuietly(zk, tree.guard(), guardText(r.lossGuardMillis()), guardData.getStat().getVersion());
                return null;
            }
        } else {
            call.refuseUnlessMissing(guardRead, tree.guard());
            call.create(zk, tree.guard(), guardText(Math.max(r.lossGuardMillis(), record.guardMillis())),
                    CreateMode.PERSISTENT);
            return null;
        }
        if (r.lossGuardMillis() > record.guardMillis()) {
            // a lost version race only means another borrower changed the record: read again either way
            call.multiUnlessLostRace(zk, List.of(
                    Op.setData(nsPath, record.withGuard(r.lossGuardMillis()).encode(), stat.getVersion()),
                    Op.check(tree.namespaceMarker(ns, record.generation()), -1)), nsPath);
            return null;
        }
        long generationMillis = stat.getCtime();
        if (now <= generationMillis) {
            return null;
        }
        // the largest guard ever used under the base path: a lost namespace may have had holders with a longer ttl
        long guard = Math.max(baseGuard, Math.max(record.guardMillis(), r.lossGuardMillis()));
        long generationFloor = generationMillis + Math.max(record.firstGuardMillis(), baseGuard);
        return new Namespace(record, stat, markers, guard, generationFloor);
    }

    private void create(ZkCall call, ZooKeeper zk, LeaseRequest r) throws KeeperException {
        String nsPath = tree.namespace(r.namespace());
        String generation = ZnodeTree.newIncarnation();
        List<Op> ops = List.of(
                call.createOp(nsPath, NamespaceRecord.first(r.layout(), r.lossGuardMillis(), generation).encode(),
                        CreateMode.PERSISTENT),
                call.createOp(tree.slots(r.namespace()), EMPTY, CreateMode.PERSISTENT),
                call.createOp(tree.lives(r.namespace()), EMPTY, CreateMode.PERSISTENT),
                call.createOp(tree.incarnations(r.namespace()), EMPTY, CreateMode.PERSISTENT),
                call.createOp(tree.namespaceMarker(r.namespace(), generation), EMPTY, CreateMode.PERSISTENT));
        ZkCall.MultiOutcome outcome = call.multi(zk, ops);
        if (outcome.committed()) {
            log.info("ZooKeeper centre created namespace '{}' in {} with layout [{}]; its worker ids are first used "
                            + "{} ms (the loss guard) after now, since a namespace found missing may have been lost while "
                            + "holders were still issuing", r.namespace(), nsPath, r.layout(), r.lossGuardMillis());
        } else if (outcome.code() == Code.NONODE) {
            call.createPath(zk, tree.namespaces());
        } else if (outcome.code() != Code.NODEEXISTS) {
            throw call.refused(outcome, nsPath);
        }
    }

    private static byte[] guardText(long guardMillis) {
        return ZnodeText.encode(Map.of("guard", Long.toString(guardMillis)));
    }
}
