package io.github.idworker.client;

import java.util.List;

/**
 * The check that the environments of one client hand out disjoint IDs, from the split each reports in
 * {@value EnvironmentSplit#HEADER} on every {@code 200}. Invariant: the splits accepted — one per environment, fixed
 * at its first accepted answer — are pairwise different, share one {@code E}, and {@code E = 1} only when the
 * client has a single environment; every ID handed on was checked against its environment's split. Thread-safe.
 *
 * <p>Steps of {@link #check} for one {@code 200}, refusing the whole answer at the first step that fails:
 * <ol>
 *   <li>the header is there once and reads {@code e/E} with {@code 0 ≤ e < E};</li>
 *   <li>every ID has {@code id mod E = e};</li>
 *   <li>when the environment has an accepted split: the same one again is accepted, any other is refused (IDs
 *       taken under the old split may be another environment's under the new one);</li>
 *   <li>{@code E = 1} is refused when the client has more than one environment: that is the default split of every
 *       deployment, so a second one left on it would hand out the same IDs;</li>
 *   <li>under the lock, against every other environment's accepted split: a different {@code E} is refused (their
 *       IDs may collide), the same {@code e/E} is refused (they would hand out the same IDs); then the split is
 *       accepted for this environment.</li>
 * </ol>
 * A refused answer is a failure of its environment: its circuit counts it and its IDs are never handed out.
 */
final class EnvironmentSplits {

    private static final String CONFIGURE = "configure idworker.pool.environment/environments on the servers";

    private final List<Endpoint> endpoints;

    EnvironmentSplits(List<Endpoint> endpoints) {
        this.endpoints = endpoints;
    }

    /** Thrown for an answer whose IDs must not be used; the message says why and what to configure. */
    static final class RefusedSplitException extends RuntimeException {
        RefusedSplitException(String message) {
            super(message);
        }
    }

    /**
     * @param headers every value of {@value EnvironmentSplit#HEADER} in the answer
     * @param ids the answer's IDs
     * @throws RefusedSplitException when the IDs must not be used
     */
    void check(Endpoint endpoint, List<String> headers, long[] ids) {
        if (headers.isEmpty()) {
            throw new RefusedSplitException("no header " + EnvironmentSplit.HEADER + " (e/E), so which environment "
                    + "split issued the IDs cannot be checked");
        }
        EnvironmentSplit split = headers.size() == 1 ? EnvironmentSplit.parse(headers.get(0)) : null;
        if (split == null) {
            throw new RefusedSplitException(EnvironmentSplit.HEADER + " " + (headers.size() == 1
                    ? "'" + FailoverFetcher.clean(headers.get(0)) + "'" : "sent " + headers.size() + " times")
                    + " is not e/E with 0 ≤ e < E");
        }
        for (long id : ids) {
            if (!split.issues(id)) {
                throw new RefusedSplitException("ID " + id + " is not of the split " + split + " it reports (" + id
                        + " mod " + split.environments() + " = " + id % split.environments() + ")");
            }
        }
        if (accepted(endpoint, split)) {
            return;
        }
        if (split.environments() == 1 && endpoints.size() > 1) {
            throw new RefusedSplitException("it reports split " + split + ", the whole ID space, while this client has "
                    + endpoints.size() + " environments: two environments both on split 0/1 would hand out the same "
                    + "IDs; " + CONFIGURE);
        }
        synchronized (this) {
            if (accepted(endpoint, split)) {
                return;
            }
            for (Endpoint other : endpoints) {
                EnvironmentSplit theirs = other == endpoint ? null : other.split();
                if (theirs == null) {
                    continue;
                }
                if (theirs.environments() != split.environments()) {
                    throw new RefusedSplitException("it reports split " + split + " but " + other + " reported "
                            + theirs + ": the environments disagree on how many they are, so their IDs may collide; "
                            + "configure the same idworker.pool.environments on every server");
                }
                if (theirs.equals(split)) {
                    throw new RefusedSplitException("it and " + other + " both report split " + split + ": they would "
                            + "hand out the same IDs; " + CONFIGURE);
                }
            }
            endpoint.acceptSplit(split);
        }
    }

    /**
     * @return whether {@code split} is the environment's accepted split; false when it has none yet
     * @throws RefusedSplitException when it has another
     */
    private static boolean accepted(Endpoint endpoint, EnvironmentSplit split) {
        EnvironmentSplit before = endpoint.split();
        if (before == null) {
            return false;
        }
        if (!before.equals(split)) {
            throw new RefusedSplitException("it reports split " + split + " but reported " + before + " before: IDs "
                    + "taken under the old split may be another environment's under the new one; restart this client "
                    + "after changing idworker.pool.environment/environments");
        }
        return true;
    }
}
