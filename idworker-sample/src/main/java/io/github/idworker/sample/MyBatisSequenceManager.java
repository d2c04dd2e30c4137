package io.github.idworker.sample;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.LeaseLostException;
import io.github.idworker.WorkerIdExhaustedException;
import io.github.idworker.jdbc.JdbcDialect;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;

/**
 * An {@link ISequenceManager} of this application's own, written with a MyBatis mapper ({@link WorkerSlotMapper})
 * over table {@code idworker_worker_slot}: the same lease algorithm as idworker's {@code JdbcSequenceManager}, to
 * show how a centre of your own plugs in as the bean named {@code dbSequenceManager}. Each mapper call runs in its
 * own committed transaction and judges expiry by the database's clock.
 *
 * <p>Borrow:
 * <ol>
 *   <li>Read the namespace's rows: slot, stored high-water, and whether the database clock finds it claimable
 *       (no owner, or {@code expires_at} passed).</li>
 *   <li>Order candidates: claimable rows whose high-water is before the borrower's clock (lowest slot first),
 *       then slot ids without a row, then the other claimable rows by ascending high-water.</li>
 *   <li>Claim a row with one conditional {@code UPDATE} that also matches the high-water read in step 1; one row
 *       updated means it is ours and that high-water is the floor. Claim an unused slot id with an
 *       {@code INSERT}; a duplicate key means another borrower was first. The claim stores the first high-water
 *       ({@link LeaseRequest#firstHighWater(long)}) in the same statement.</li>
 *   <li>A lost race moves on to the next candidate; no candidate at all is {@link WorkerIdExhaustedException}.</li>
 * </ol>
 * Renew: owner-checked {@code UPDATE} extending the lease and raising the high-water with {@code GREATEST}; no
 * row means the lease is lost. Return: owner-checked {@code UPDATE} freeing the slot and storing the last issued
 * timestamp as its high-water.
 */
public class MyBatisSequenceManager implements ISequenceManager {

    private static final int MAX_ROUNDS = 64;

    private final WorkerSlotMapper mapper;
    private final String now;

    /**
     * @param mapper the MyBatis mapper (a thread-safe proxy from mybatis-spring)
     * @param dialect the database, for its clock expression
     */
    public MyBatisSequenceManager(WorkerSlotMapper mapper, JdbcDialect dialect) {
        this.mapper = mapper;
        this.now = dialect.nowMillis();
    }

    @Override
    public WorkerLease borrow(LeaseRequest request) {
        for (int round = 0; round < MAX_ROUNDS; round++) {
            List<Candidate> candidates = candidates(request);
            if (candidates.isEmpty()) {
                throw new WorkerIdExhaustedException(request.namespace(), request.slotCount());
            }
            for (Candidate candidate : candidates) {
                WorkerLease lease = candidate.existing() ? claimRow(request, candidate) : claimNewSlot(request, candidate.slot());
                if (lease != null) {
                    return lease;
                }
            }
        }
        throw new IdWorkerException("Could not claim a worker id of namespace '" + request.namespace() + "' after "
                + MAX_ROUNDS + " rounds: every claim lost a race against another borrower");
    }

    private record Candidate(int slot, long highWater, boolean existing) {
    }

    private List<Candidate> candidates(LeaseRequest request) {
        List<WorkerSlotMapper.SlotRow> rows = call("read worker ids", () -> mapper.findSlots(now, request.namespace()));
        List<Candidate> past = new ArrayList<>();
        List<Candidate> future = new ArrayList<>();
        BitSet present = new BitSet(request.slotCount());
        for (WorkerSlotMapper.SlotRow row : rows) {
            if (row.getSlotId() < 0 || row.getSlotId() >= request.slotCount()) {
                continue;
            }
            present.set(row.getSlotId());
            if (row.isClaimable()) {
                Candidate c = new Candidate(row.getSlotId(), row.getHighWater(), true);
                (c.highWater() < request.workerNowMillis() ? past : future).add(c);
            }
        }
        List<Candidate> all = new ArrayList<>(past);
        all.sort(Comparator.comparingInt(Candidate::slot));
        for (int slot = present.nextClearBit(0); slot < request.slotCount(); slot = present.nextClearBit(slot + 1)) {
            all.add(new Candidate(slot, 0, false));
        }
        future.sort(Comparator.comparingLong(Candidate::highWater).thenComparingInt(Candidate::slot));
        all.addAll(future);
        return all;
    }

    private WorkerLease claimRow(LeaseRequest r, Candidate c) {
        long highWater = r.firstHighWater(c.highWater());
        int updated = call("claim a worker id", () -> mapper.claim(now, r.namespace(), c.slot(), c.highWater(),
                r.owner(), r.ttl().toMillis(), highWater, host(r), r.pid(), r.workerNowMillis()));
        return updated == 1 ? WorkerLease.of(r, c.slot(), c.highWater(), highWater, "") : null;
    }

    private WorkerLease claimNewSlot(LeaseRequest r, int slot) {
        long highWater = r.firstHighWater(0);
        try {
            call("claim a new worker id", () -> mapper.insert(now, r.namespace(), slot, r.owner(), r.ttl().toMillis(),
                    highWater, host(r), r.pid(), r.workerNowMillis()));
        } catch (CenterUnavailableException e) {
            if (e.getCause() instanceof DuplicateKeyException) {
                return null;
            }
            throw e;
        }
        return WorkerLease.of(r, slot, 0, highWater, "");
    }

    @Override
    public WorkerLease renew(WorkerLease lease, long highWaterMillis) {
        int updated = call("renew worker id " + lease.workerId(), () -> mapper.renew(now, lease.namespace(),
                lease.workerId(), lease.owner(), lease.ttl().toMillis(), highWaterMillis));
        if (updated != 1) {
            throw new LeaseLostException("Worker id " + lease.workerId() + " of namespace '" + lease.namespace()
                    + "' is no longer owned by this worker in table idworker_worker_slot");
        }
        return lease.withHighWater(Math.max(highWaterMillis, lease.highWaterMillis()));
    }

    @Override
    public void giveBack(WorkerLease lease, long lastIssuedMillis) {
        call("return worker id " + lease.workerId(),
                () -> mapper.giveBack(lease.namespace(), lease.workerId(), lease.owner(), lastIssuedMillis));
    }

    private static <T> T call(String what, Supplier<T> statement) {
        try {
            return statement.get();
        } catch (DataAccessException e) {
            throw new CenterUnavailableException("Could not " + what + " in table idworker_worker_slot: "
                    + e.getMostSpecificCause().getMessage(), e);
        }
    }

    private static String host(LeaseRequest r) {
        return r.host().length() <= 255 ? r.host() : r.host().substring(0, 255);
    }
}
