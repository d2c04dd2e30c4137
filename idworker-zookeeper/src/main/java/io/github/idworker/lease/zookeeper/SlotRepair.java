package io.github.idworker.lease.zookeeper;

import static io.github.idworker.lease.zookeeper.ZnodeTree.EMPTY;

import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;

/**
 * Step 5 of a borrow round (see {@link ZookeeperSequenceManager}), loss per record (DESIGN rule 9): a slot record
 * that the namespace record counts but that is missing, unreadable or of an incarnation whose marker is gone is
 * recreated free with a high-water above anything its last holders can have issued, as a new incarnation that no
 * write of an earlier holder can pass. Steps:
 * <ol>
 *   <li>Write {@code <base>/clock}, after the reads that found the records missing; its modification time
 *       {@code now'} + the largest loss guard is the floor.</li>
 *   <li>Per slot, one transaction: create the record (or set it at the version read) free with {@code hw = floor},
 *       marked repaired, with a new incarnation; create that incarnation's marker; delete the markers of every
 *       earlier incarnation, so a holder that read one fails its marker check.</li>
 *   <li>A lost race leaves the slot to the next round; a missing {@code slots} parent is created; what was
 *       repaired is logged as a warning.</li>
 * </ol>
 */
final class SlotRepair {

    /** Under the manager's name: the lines are the centre's, whichever class writes them. */
    private static final Logger log = LoggerFactory.getLogger(ZookeeperSequenceManager.class);

    private final ZnodeTree tree;

    SlotRepair(ZnodeTree tree) {
        this.tree = tree;
    }

    /**
     * Recreates the lost records of namespace {@code ns}.
     *
     * @param lost the lost slot ids, each with the stat of its unreadable record, or {@code null} when it had none
     * @param markers the names of the namespace's incarnation markers read in the round
     * @param guard the largest loss guard ever used under the base path
     */
    void repair(ZkCall call, ZooKeeper zk, String ns, SortedMap<Integer, @Nullable Stat> lost, Set<String> markers,
                long guard) throws KeeperException {
        // the floor comes from a clock written after the reads that found the records missing: a holder that
        // renewed before they were lost stored at most its clock + ttl <= that clock + guard
        long floor = call.set(zk, tree.clock(), EMPTY, -1).getMtime() + guard;
        List<Integer> repaired = new ArrayList<>();
        for (Map.Entry<Integer, @Nullable Stat> e : lost.entrySet()) {
            int slot = e.getKey();
            Stat stat = e.getValue();
            String path = tree.slot(ns, slot);
            String incarnation = ZnodeTree.newIncarnation();
            byte[] data = SlotRecord.lost(floor, incarnation).encode();
            List<Op> ops = new ArrayList<>();
            ops.add(stat == null
                    ? call.createOp(path, data, CreateMode.PERSISTENT)
                    : Op.setData(path, data, stat.getVersion()));
            ops.add(call.createOp(tree.slotMarker(ns, slot, incarnation), EMPTY, CreateMode.PERSISTENT));
            for (String name : markers) {
                if (name.startsWith(slot + "-")) {
                    ops.add(Op.delete(tree.marker(ns, name), -1));
                }
            }
            ZkCall.MultiOutcome outcome = call.multi(zk, ops);
            if (outcome.committed()) {
                repaired.add(slot);
            } else if (outcome.failedOp() == 0 && outcome.code() == Code.NONODE) {
                call.createPath(zk, tree.slots(ns));
            } else if (!ZkCall.lostRace(outcome.code())) {
                throw call.refused(outcome, path);
            }
        }
        if (!repaired.isEmpty()) {
            log.warn("Worker ids {} of namespace '{}' had no readable record under {} though they were used before "
                            + "(deleted or damaged): recreated them free with high-water {} (centre clock + loss guard), "
                            + "above anything their last holders can have issued", repaired, ns,
                    tree.slots(ns), floor);
        }
    }
}
