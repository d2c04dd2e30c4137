package io.github.idworker.spring.boot.autoconfigure;

/**
 * Micrometer meters of the generators: how many generators of one mode get meters.
 * Bound to {@code idworker.metrics.*}.
 */
public class MetricsProperties {

    /**
     * Most segment tags, sequences, serial rules and pools (each mode counted on its own) that get meters;
     * further ones get none and one warning names this property. Tags come from callers (with
     * auto-create, any string), so the cap bounds the meters a registry holds. Must be greater than 0.
     */
    private int maxTags = 100;

    public int getMaxTags() {
        return this.maxTags;
    }

    public void setMaxTags(int maxTags) {
        this.maxTags = maxTags;
    }
}
