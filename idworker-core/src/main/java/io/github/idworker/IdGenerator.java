package io.github.idworker;

/**
 * Hands out {@code long} identifiers, none of which it ever hands out twice within its namespace.
 *
 * <p>Implementations are thread-safe. When an implementation cannot prove that the next identifier
 * is unique it throws an {@link IdWorkerException} instead of returning one.
 */
public interface IdGenerator {

    /**
     * Returns the next identifier.
     *
     * @throws IdWorkerException when no identifier can be issued safely
     */
    long nextId();

    /**
     * Returns {@code count} identifiers in the order they were issued.
     *
     * @param count how many identifiers, at least 1
     * @throws IllegalArgumentException when {@code count} is below 1 or above the implementation's limit
     * @throws IdWorkerException when no identifier can be issued safely
     */
    default long[] nextIds(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be at least 1, was " + count);
        }
        long[] ids = new long[count];
        for (int i = 0; i < count; i++) {
            ids[i] = nextId();
        }
        return ids;
    }
}
