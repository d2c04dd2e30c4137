package io.github.idworker.sample;

import io.github.idworker.CenterUnavailableException;
import io.github.idworker.ClockAheadOfCentreException;
import io.github.idworker.IdWorkerException;
import io.github.idworker.LayoutMismatchException;
import io.github.idworker.LeaseLostException;
import io.github.idworker.WorkerIdExhaustedException;
import io.github.idworker.jdbc.JdbcDialect;
import io.github.idworker.lease.ISequenceManager;
import io.github.idworker.lease.LeaseRequest;
import io.github.idworker.lease.WorkerLease;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.ConcurrencyFailureException;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.TransactionException;
import org.springframework.transaction.support.TransactionTemplate;

import javax.sql.DataSource;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * An {@link ISequenceManager} of this application's own, written with a MyBatis mapper ({@link WorkerSlotMapper})
 * over tables {@code idworker_worker_slot} and {@code idworker_worker_slot_ns}: the same lease algorithm and tables
 * as idworker's {@code JdbcSequenceManager}, to show how a centre of your own plugs in as the bean named
 * {@code dbSequenceManager}. It keeps every rule of {@link ISequenceManager}: the namespace is pinned to the layout
 * of its first borrow, a lost slot row is detected by itself and restored with a floor no earlier holder can have
 * reached, and expiry is judged by the database's clock.
 *
 * <p>Borrow:
 * <ol>
 *   <li>Clock: read the database clock; a worker clock more than max-skew ahead of it is refused with
 *       {@link ClockAheadOfCentreException} before anything is written (DESIGN rule 13).</li>
 *   <li>Pin: read the namespace record. Without one, insert it with the request's layout and loss guard
 *       ({@code idworker.lease.loss-guard}; a smaller one than the stored is refused) and {@code slots_created} 0, or the slot count when the namespace already has
 *       slot rows (written before the record existed: any of them may have been lost); a duplicate key means
 *       another borrower pinned it, so read again. Another layout is a {@link LayoutMismatchException}, and
 *       nothing is claimed. A larger guard raises the stored one; the larger of the two is the guard.</li>
 *   <li>Restore lost rows: every slot id below {@code slots_created} without a row gets a free row whose
 *       high-water is the database clock plus the guard, logged as a warning; a duplicate key means another
 *       borrower restored it.</li>
 *   <li>Order candidates: claimable rows (free, or expired by the database clock) whose high-water is before the
 *       borrower's clock, lowest slot first; then a fresh slot id, {@code slots_created}; then the other claimable
 *       rows by ascending high-water. Slot ids from the slot count up are never candidates; no candidate at all is
 *       {@link WorkerIdExhaustedException}.</li>
 *   <li>Claim a row with one conditional {@code UPDATE} that also matches the high-water read in step 3; one row
 *       updated means it is ours and that high-water is the floor. Claim a fresh slot id by moving
 *       {@code slots_created} past it with a compare-and-set that also matches the record's {@code created_at} as
 *       read, and inserting its row (floor: that {@code created_at} + guard, so the first borrows of a namespace
 *       wait about the loss guard; the floor is the record's as it stands in the claim's transaction, and a record
 *       deleted and written again meanwhile claims nothing, as a lost race) in the same transaction, so no
 *       borrower sees the counter past an id whose row is not there yet; a lost
 *       compare-and-set retries with the counter's new value. Every claim stores the first high-water
 *       ({@link LeaseRequest#firstHighWater(long)}).</li>
 *   <li>A lost race moves on to the next candidate, and a round that lost them all reads again.</li>
 * </ol>
 * Renew: owner-checked {@code UPDATE} extending the lease and raising the high-water with {@code GREATEST}, never
 * above the database clock + ttl + max-skew; no row while the slot is still ours means the holder's clock runs
 * ahead ({@link ClockAheadOfCentreException}), otherwise (taken, or deleted) the lease is lost. Return: owner-checked {@code UPDATE} freeing the slot and
 * storing the last issued timestamp as its high-water.
 *
 * <p>Every mapper call runs in a transaction of its own at READ COMMITTED, whatever the pool's default level
 * and apart from any transaction of the caller, so the compare-and-set statements see the rows other borrowers
 * committed instead of failing to serialize. A serialization failure or deadlock is retried a few times after a
 * random pause, within the call's time budget of {@link WorkerSlotMapper#TIMEOUT_SECONDS}. Each statement is
 * bounded by that timeout and each transaction by what is left of the budget, so a locked row or a stalled
 * database makes the call fail with {@link CenterUnavailableException} after about that long (at most a second
 * more, as timeouts count whole seconds) instead of hanging.
 */
public class MyBatisSequenceManager implements ISequenceManager {

    private static final Logger log = LoggerFactory.getLogger(MyBatisSequenceManager.class);
    private static final String TABLE = "idworker_worker_slot";
    private static final int MAX_ROUNDS = 64;
    private static final int MAX_ATTEMPTS = 5;
    private static final long BUDGET_NANOS = TimeUnit.SECONDS.toNanos(WorkerSlotMapper.TIMEOUT_SECONDS);
    /** Less budget than this left: a retry could not finish a statement, so the call fails instead. */
    private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private final WorkerSlotMapper mapper;
    /** By timeout in whole seconds: a retry gets only what is left of the call's budget. */
    private final TransactionTemplate[] transactions = new TransactionTemplate[WorkerSlotMapper.TIMEOUT_SECONDS + 1];
    private final String now;

    /**
     * @param mapper the MyBatis mapper (a thread-safe proxy from mybatis-spring) of a session factory over
     *        {@code dataSource} that takes part in Spring transactions
     * @param dataSource the database the mapper works on; each call gets a transaction on it of its own
     * @param dialect the database, for its clock expression
     */
    public MyBatisSequenceManager(WorkerSlotMapper mapper, DataSource dataSource, JdbcDialect dialect) {
        this.mapper = mapper;
        this.now = dialect.nowMillis();
        JdbcTransactionManager transactionManager = new JdbcTransactionManager(dataSource);
        for (int seconds = 1; seconds < transactions.length; seconds++) {
            TransactionTemplate template = new TransactionTemplate(transactionManager);
            template.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
            template.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
            template.setTimeout(seconds);
            transactions[seconds] = template;
        }
    }

    @Override
    public WorkerLease borrow(LeaseRequest request) {
        request.refuseIfAheadOf(call("read the database clock", () -> mapper.centreNow(now)));
        long guard = pin(request);
        for (int round = 0; round < MAX_ROUNDS; round++) {
            WorkerSlotMapper.NamespaceRow record =
                    call("read namespace", () -> mapper.findNamespace(request.namespace()));
            if (record == null) {
                // deleted by hand while we borrowed: pin it again rather than create slot ids without a record
                guard = pin(request);
                continue;
            }
            guard = Math.max(guard, record.getGuardMs());
            List<WorkerSlotMapper.SlotRow> rows = slots(request);
            if (restoreLost(request, record, rows, guard)) {
                rows = slots(request);
            }
            List<Candidate> candidates = candidates(request, record, rows);
            if (candidates.isEmpty()) {
                throw new WorkerIdExhaustedException(request.namespace(), request.slotCount());
            }
            for (Candidate candidate : candidates) {
                // a record written after the namespace was lost whole, while a worker held a slot, looks new: a
                // fresh id starts above anything such a holder can have stored (its clock + ttl, within max-skew)
                WorkerLease lease = candidate.fresh()
                        ? claimFreshSlot(request, candidate.slot(), record.getCreatedAt(), guard)
                        : claimRow(request, candidate);
                if (lease != null) {
                    return lease;
                }
            }
        }
        throw new IdWorkerException("Could not claim a worker id of namespace '" + request.namespace() + "' after "
                + MAX_ROUNDS + " rounds: every claim lost a race against another borrower");
    }

    /** Step 1: the namespace's record, created or checked against the request; returns the guard to use. */
    private long pin(LeaseRequest r) {
        String ns = r.namespace();
        long guard = r.lossGuardMillis();
        for (int attempt = 0; attempt < 3; attempt++) {
            WorkerSlotMapper.NamespaceRow record = call("read namespace", () -> mapper.findNamespace(ns));
            if (record == null) {
                int created = call("count worker ids", () -> mapper.countSlots(ns)) == 0 ? 0 : r.slotCount();
                try {
                    call("pin namespace", () -> mapper.insertNamespace(now, ns, r.layout(), guard, created));
                    return guard;
                } catch (DuplicateKeyException e) {
                    continue;
                }
            }
            if (!record.getLayout().equals(r.layout())) {
                throw new LayoutMismatchException(ns, record.getLayout(), r.layout());
            }
            r.refuseIfBelow(record.getGuardMs());
            if (guard > record.getGuardMs()) {
                call("raise the loss guard", () -> mapper.raiseGuard(ns, guard));
            }
            return Math.max(guard, record.getGuardMs());
        }
        throw new IdWorkerException("The record of namespace '" + ns + "' in table " + TABLE
                + "_ns was created and deleted again three times while a worker id was borrowed");
    }

    private List<WorkerSlotMapper.SlotRow> slots(LeaseRequest r) {
        return call("read worker ids", () -> mapper.findSlots(now, r.namespace()));
    }

    /** Step 2: gives every slot id the namespace created but has no row for a free row above the guard. */
    private boolean restoreLost(LeaseRequest r, WorkerSlotMapper.NamespaceRow record,
                                List<WorkerSlotMapper.SlotRow> rows, long guard) {
        int created = Math.min(record.getSlotsCreated(), r.slotCount());
        BitSet present = new BitSet(created);
        for (WorkerSlotMapper.SlotRow row : rows) {
            if (row.getSlotId() >= 0 && row.getSlotId() < created) {
                present.set(row.getSlotId());
            }
        }
        boolean restored = false;
        for (int slot = present.nextClearBit(0); slot < created; slot = present.nextClearBit(slot + 1)) {
            int lost = slot;
            try {
                call("restore worker id " + lost, () -> mapper.restore(now, r.namespace(), lost, guard));
                log.warn("Worker id {} of namespace '{}' had lost its row in table {}; restored it free with a "
                                + "high-water {} ms (the loss guard) after the database clock, above anything its "
                                + "last holder may have issued", lost, r.namespace(), TABLE, guard);
            } catch (DuplicateKeyException e) {
                // another borrower restored it first
            }
            restored = true;
        }
        return restored;
    }

    private record Candidate(int slot, long highWater, boolean fresh) {
    }

    /** Step 3. */
    private static List<Candidate> candidates(LeaseRequest request, WorkerSlotMapper.NamespaceRow record,
                                              List<WorkerSlotMapper.SlotRow> rows) {
        List<Candidate> past = new ArrayList<>();
        List<Candidate> future = new ArrayList<>();
        for (WorkerSlotMapper.SlotRow row : rows) {
            if (row.getSlotId() < 0 || row.getSlotId() >= request.slotCount() || !row.isClaimable()) {
                continue;
            }
            Candidate c = new Candidate(row.getSlotId(), row.getHighWater(), false);
            (c.highWater() < request.workerNowMillis() ? past : future).add(c);
        }
        List<Candidate> all = new ArrayList<>(past);
        all.sort(Comparator.comparingInt(Candidate::slot));
        if (record.getSlotsCreated() < request.slotCount()) {
            all.add(new Candidate(record.getSlotsCreated(), 0, true));
        }
        future.sort(Comparator.comparingLong(Candidate::highWater).thenComparingInt(Candidate::slot));
        all.addAll(future);
        return all;
    }

    private @Nullable WorkerLease claimRow(LeaseRequest r, Candidate c) {
        long highWater = r.firstHighWater(c.highWater());
        int updated = call("claim a worker id", () -> mapper.claim(now, r.namespace(), c.slot(), c.highWater(),
                r.owner(), r.ttl().toMillis(), highWater, host(r), r.pid(), r.workerNowMillis()));
        return updated == 1 ? WorkerLease.of(r, c.slot(), c.highWater(), highWater, "") : null;
    }

    /**
     * Claims slot id {@code slot} or, when another borrower took it first, the next fresh one still free, with the
     * floor {@code createdAt + guard} of the record as read; every compare-and-set of the counter also matches that
     * {@code createdAt}, so the floor is the record's as it stands in the claim's transaction. A record written
     * again meanwhile (the namespace lost whole and recreated) claims nothing: the round reads again.
     */
    private @Nullable WorkerLease claimFreshSlot(LeaseRequest r, int slot, long createdAt, long guard) {
        long floor = createdAt + guard;
        long highWater = r.firstHighWater(floor);
        int next = slot;
        while (next < r.slotCount()) {
            int candidate = next;
            try {
                Boolean taken = call("claim a new worker id", () -> {
                    if (mapper.takeSlotId(r.namespace(), candidate, createdAt) != 1) {
                        return false;
                    }
                    mapper.insert(now, r.namespace(), candidate, r.owner(), r.ttl().toMillis(), highWater, host(r),
                            r.pid(), r.workerNowMillis());
                    return true;
                });
                if (taken) {
                    return WorkerLease.of(r, candidate, floor, highWater, "");
                }
            } catch (DuplicateKeyException e) {
                // a row the counter had not reached, written by hand: step over its id, it is a row like any other
                call("step over worker id " + candidate,
                        () -> mapper.takeSlotId(r.namespace(), candidate, createdAt));
                return null;
            }
            WorkerSlotMapper.NamespaceRow record = call("read namespace", () -> mapper.findNamespace(r.namespace()));
            if (record == null || record.getCreatedAt() != createdAt || record.getSlotsCreated() <= candidate) {
                return null;
            }
            next = record.getSlotsCreated();
        }
        return null;
    }

    @Override
    public WorkerLease renew(WorkerLease lease, long highWaterMillis) {
        int updated = call("renew worker id " + lease.workerId(), () -> mapper.renew(now, lease.namespace(),
                lease.workerId(), lease.owner(), lease.ttl().toMillis(), highWaterMillis,
                lease.ttl().toMillis() + lease.maxSkew().toMillis()));
        if (updated != 1) {
            Long centreNow = call("read worker id " + lease.workerId(), () -> mapper.centreNowIfOwned(now,
                    lease.namespace(), lease.workerId(), lease.owner()));
            if (centreNow != null) {
                throw new ClockAheadOfCentreException(lease.namespace(), "renewal of worker id " + lease.workerId(),
                        lease.workerMillisOf(highWaterMillis), centreNow, lease.maxSkew().toMillis());
            }
            throw new LeaseLostException("Worker id " + lease.workerId() + " of namespace '" + lease.namespace()
                    + "' is no longer owned by this worker in table " + TABLE);
        }
        return lease.withHighWater(Math.max(highWaterMillis, lease.highWaterMillis()));
    }

    @Override
    public void giveBack(WorkerLease lease, long lastIssuedMillis) {
        call("return worker id " + lease.workerId(),
                () -> mapper.giveBack(lease.namespace(), lease.workerId(), lease.owner(), lastIssuedMillis));
    }

    /**
     * Runs {@code work} in a READ COMMITTED transaction of its own. A serialization failure or deadlock
     * ({@link ConcurrencyFailureException}) is run again after a random pause while attempts and the time budget
     * last, each attempt in a transaction whose timeout is what is left of the budget, rounded up to a second, so
     * a lock wait that timed out is never waited for a whole timeout again. A duplicate key goes to the caller as
     * a lost race; anything else is {@link CenterUnavailableException}.
     */
    private <T> T call(String what, Supplier<T> work) {
        long deadline = System.nanoTime() + BUDGET_NANOS;
        for (int attempt = 1; ; attempt++) {
            long left = deadline - System.nanoTime();
            int seconds = (int) Math.max(1, Math.min(WorkerSlotMapper.TIMEOUT_SECONDS,
                    (left + TimeUnit.SECONDS.toNanos(1) - 1) / TimeUnit.SECONDS.toNanos(1)));
            try {
                return transactions[seconds].execute(status -> work.get());
            } catch (DuplicateKeyException e) {
                throw e;
            } catch (ConcurrencyFailureException e) {
                if (attempt >= MAX_ATTEMPTS || deadline - System.nanoTime() < MIN_RETRY_NANOS) {
                    throw unavailable(what, e);
                }
                pause(what, attempt, e);
            } catch (DataAccessException | TransactionException e) {
                throw unavailable(what, e);
            }
        }
    }

    private static void pause(String what, int attempt, RuntimeException failure) {
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(1, 10L * attempt + 1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw unavailable(what, failure);
        }
    }

    private static CenterUnavailableException unavailable(String what, RuntimeException e) {
        Throwable cause = e instanceof DataAccessException d ? d.getMostSpecificCause() : e;
        return new CenterUnavailableException("Could not " + what + " in table " + TABLE + ": " + cause.getMessage(),
                e);
    }

    private static String host(LeaseRequest r) {
        return r.host().length() <= 255 ? r.host() : r.host().substring(0, 255);
    }
}
