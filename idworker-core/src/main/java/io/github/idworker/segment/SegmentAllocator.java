package io.github.idworker.segment;

/**
 * Hands out ranges of numbers per business tag from a durable store: the SPI behind segment mode.
 *
 * <p>The contract, checked by {@code AbstractSegmentAllocatorContractTest} in idworker-test-support:
 * <ul>
 *   <li>Ranges of one tag never overlap, whichever allocator instance (in whichever process) handed them out,
 *       and they follow each other without holes: together they cover {@code (startAfter, current max]}.</li>
 *   <li>Each range lies above every range of the same tag whose allocation completed before this one began,
 *       so a generator that always asks for a fresh range at start numbers above everything issued before.</li>
 *   <li>A tag that is not registered gives {@link UnknownSegmentTagException} naming it, unless the allocator
 *       creates tags on first use; creation tolerates concurrent creators.</li>
 *   <li>A tag whose next range would pass {@link Long#MAX_VALUE} gives {@link SegmentExhaustedException}.</li>
 *   <li>A tag whose stored high-water was moved back by hand (below the end of a range already handed out) gives
 *       a {@link StaleSegmentException} — {@link SegmentRowMovedBackException} naming the tag, where it is stored
 *       and both values — from every allocator, a new one included, and changes nothing, until the high-water is
 *       raised again. A store restored as a whole from an older backup cannot be told apart from its past.</li>
 * </ul>
 * Implementations are thread-safe. Failures to reach the store surface as
 * {@link io.github.idworker.CenterUnavailableException} and allocate nothing.
 */
public interface SegmentAllocator {

    /**
     * Takes the next {@code step} numbers of {@code bizTag}: the range {@code (max − step, max]} where {@code max}
     * is the tag's new high-water.
     *
     * @param bizTag the business tag, 1 to 128 characters
     * @param step how many numbers, at least 1
     * @throws IllegalArgumentException when the tag is blank or too long, or the step is below 1
     * @throws UnknownSegmentTagException when the tag is not registered and the allocator does not create tags
     * @throws SegmentExhaustedException when the range would pass {@link Long#MAX_VALUE}
     * @throws StaleSegmentException when the tag's stored high-water was moved back below numbers already handed out
     */
    Segment allocate(String bizTag, int step);

    /**
     * Registers {@code bizTag} so its first range starts at {@code startAfter + 1}. Idempotent: a tag that already
     * exists is left exactly as it is, whatever its numbers, and concurrent registrations of one tag all succeed.
     *
     * @param startAfter the tag's initial high-water, zero or more; the first number handed out is one above it
     * @param defaultStep the step recorded for the tag, at least 1 (for operators; generators ask for their own)
     * @return whether this call created the tag
     * @throws IllegalArgumentException when an argument is out of range
     */
    boolean register(String bizTag, long startAfter, int defaultStep);
}
