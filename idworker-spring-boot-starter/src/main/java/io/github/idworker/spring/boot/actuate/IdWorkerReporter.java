package io.github.idworker.spring.boot.actuate;

import io.github.idworker.lease.WorkerLease;
import io.github.idworker.pool.IdPools;
import io.github.idworker.pool.PoolSnapshot;
import io.github.idworker.segment.Segment;
import io.github.idworker.segment.SegmentStatus;
import io.github.idworker.segment.redis.RedisSegmentIdGenerator;
import io.github.idworker.segment.redis.SequenceStatus;
import io.github.idworker.serial.SerialNumbers;
import io.github.idworker.serial.SerialRuleStatus;
import io.github.idworker.snowflake.AbstractIdWorker;
import io.github.idworker.snowflake.DBIdWorker;
import io.github.idworker.snowflake.RedisIdWorker;
import io.github.idworker.snowflake.WorkerStatus;
import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Builds the {@link IdWorkerReport} of the context's generators, for the {@code idworker} endpoint and the
 * health indicators, from memory only: it never calls Redis or the database, so it answers at once while a store
 * is down. Every entry is what this node saw last; the shared stores may have moved on. A failure is published as
 * its class name, time and {@code errorId} only ({@link PublishedFailures}); its message is in the log.
 */
public class IdWorkerReporter {

    private final IdWorkerSources sources;

    /** @param sources the generators of the context */
    public IdWorkerReporter(IdWorkerSources sources) {
        this.sources = sources;
    }

    /** The whole report; every array present, empty when the mode is absent. */
    public IdWorkerReport report() {
        return new IdWorkerReport(workers(), segments(), sequences(), serialRules(), pools());
    }

    /** The entries of the array {@code workers}. */
    public List<IdWorkerReport.Worker> workers() {
        List<IdWorkerReport.Worker> out = new ArrayList<>();
        for (Map.Entry<String, AbstractIdWorker> e : sources.workers().entrySet()) {
            AbstractIdWorker w = e.getValue();
            WorkerStatus s = w.status();
            WorkerLease lease = s.lease();
            out.add(new IdWorkerReport.Worker(e.getKey(), modeOf(w), s.namespace(), s.state(),
                    lease == null ? null : lease.workerId(),
                    lease == null ? null : Instant.ofEpochMilli(lease.floorMillis()).toString(),
                    lease == null ? null : Instant.ofEpochMilli(lease.highWaterMillis()).toString(),
                    lease == null ? null : s.millisToHighWater(), w.options().leaseTtl().toMillis(),
                    w.options().heartbeatInterval().toMillis(), w.layout().endOfLife().toString(), w.holder(), s.leaseSwitches(), s.fenceTrips(),
                    w.issuedCount(), PublishedFailures.publishRenewal("worker " + e.getKey(), s.lastRenewalFailure())));
        }
        return out;
    }

    /** {@code REDIS} or {@code DB} for idworker's own centres; the class name for a worker of another kind. */
    static String modeOf(AbstractIdWorker worker) {
        if (worker instanceof RedisIdWorker) {
            return "REDIS";
        }
        if (worker instanceof DBIdWorker) {
            return "DB";
        }
        return worker.getClass().getSimpleName();
    }

    /** The entries of the array {@code segments}. */
    public List<IdWorkerReport.SegmentTag> segments() {
        List<IdWorkerReport.SegmentTag> out = new ArrayList<>();
        sources.segments().values().forEach(g -> {
            SegmentStatus s = g.status();
            Segment c = s.current();
            out.add(new IdWorkerReport.SegmentTag(s.tag(),
                    c == null ? null : new IdWorkerReport.Range(c.firstId(), c.lastId(), s.next()),
                    s.prefetched() != null, s.step(), s.remaining(), s.loading(), s.issued(), s.refills(),
                    millis(s.refillNanos()), s.failedRefills(), s.waits(),
                    PublishedFailures.publish("segment " + s.tag(), s.lastFailure(), s.lastFailureAt()),
                    text(s.lastFailureAt())));
        });
        return out;
    }

    /** The entries of the array {@code sequences}. */
    public List<IdWorkerReport.Sequence> sequences() {
        List<IdWorkerReport.Sequence> out = new ArrayList<>();
        for (RedisSegmentIdGenerator g : sources.sequences().values()) {
            SequenceStatus s = g.status();
            Segment r = s.lastRange();
            out.add(new IdWorkerReport.Sequence(s.tag(), s.lastIssued(),
                    r == null ? null : new IdWorkerReport.Range(r.firstId(), r.lastId(), null), s.issued(),
                    s.scriptCalls(), s.coalescedCalls(), s.installedAhead(), s.refills(), millis(s.refillNanos()), s.discardedRanges(), s.waits(), s.failing(),
                    PublishedFailures.publish("sequence " + s.tag(), s.lastFailure(), s.lastFailureAt()),
                    text(s.lastFailureAt())));
        }
        return out;
    }

    /** The entries of the array {@code serialRules}. */
    public List<IdWorkerReport.SerialRule> serialRules() {
        List<IdWorkerReport.SerialRule> out = new ArrayList<>();
        for (Map.Entry<String, SerialNumbers> e : sources.serials().entrySet()) {
            for (SerialRuleStatus s : e.getValue().ruleStatuses()) {
                out.add(new IdWorkerReport.SerialRule(s.rule(), e.getKey(), s.store(), s.period(), s.stock(),
                        s.start(), s.max(), s.periodRemaining(), s.issued(), s.refills(), millis(s.refillNanos()), s.lastRefillSize(), s.waits(), s.failing(),
                        PublishedFailures.publish("serial rule " + s.rule(), s.lastFailure(), s.lastFailureAt()),
                        text(s.lastFailureAt())));
            }
        }
        return out;
    }

    /** The entries of the array {@code pools}. */
    public List<IdWorkerReport.Pool> pools() {
        List<IdWorkerReport.Pool> out = new ArrayList<>();
        for (IdPools pools : sources.pools().values()) {
            for (PoolSnapshot p : pools.snapshots()) {
                out.add(new IdWorkerReport.Pool(p.entity(), p.level(), text(p.levelAt()), p.thresholdLevel(),
                        p.maxPoolSize(), p.checkInterval().toMillis(), text(p.checkedAt()), p.lastCheckOk(),
                        PublishedFailures.publish("pool " + p.entity() + " refill check", p.lastCheckFailure(),
                                p.checkedAt()),
                        p.stale(), p.takeFailing(),
                        PublishedFailures.publish("pool " + p.entity() + " take", p.lastTakeFailure(), null),
                        p.issued(), p.refills(),
                        millis(p.refillNanos()), p.emptyRefusals(), p.rateLimited()));
            }
        }
        return out;
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    private static @Nullable String text(@Nullable Instant at) {
        return at == null ? null : at.toString();
    }
}
