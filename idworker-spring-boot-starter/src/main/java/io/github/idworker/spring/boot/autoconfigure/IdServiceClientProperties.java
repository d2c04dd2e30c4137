package io.github.idworker.spring.boot.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Configuration properties of the ID service client {@link IdServiceClientAutoConfiguration} registers when
 * idworker-client is on the class path and "idworker.client.environments" is set. Values are checked when the
 * client is built; a value it cannot run with fails the startup with a message naming the property. The secret is
 * never part of a message.
 */
@ConfigurationProperties(prefix = IdServiceClientProperties.PREFIX)
public class IdServiceClientProperties {

    public static final String PREFIX = "idworker.client";

    /**
     * Key of this application at the ID service, sent with every request; printable ASCII without spaces.
     */
    private @Nullable String appKey;

    /**
     * Secret of this application at the ID service: signs every request, is never sent, logged or part of a message.
     */
    private @Nullable String secret;

    /**
     * Base URLs of the ID service's independent environments, "http(s)://host:port" without a path, most preferred
     * first. The client is registered only when this is set.
     */
    // strings, parsed by the auto-configuration: a conversion failure here would be reported with the value, and a
    // URL may hold user:password
    private List<String> environments = new ArrayList<>();

    /**
     * Number of IDs one request fetches into an entity's local buffer, 1 to 100000; also the most one nextIds call
     * may take.
     */
    private int batchSize = 1000;

    /**
     * Level of an entity's buffer below which a take starts a background refill, 0 to "batch-size". Defaults to half
     * of "batch-size".
     */
    private @Nullable Integer refillThreshold;

    /**
     * Longest wait for a connection to an environment.
     */
    private Duration connectTimeout = Duration.ofSeconds(1);

    /**
     * Longest wait for one environment's whole answer, connecting included, before the next environment is tried.
     */
    private Duration requestTimeout = Duration.ofSeconds(2);

    /**
     * Number of consecutive failures (connection errors, timeouts, 5xx, malformed answers) that open an environment's
     * circuit, at least 1.
     */
    private int failureThreshold = 3;

    /**
     * How long an open circuit skips its environment before one trial request.
     */
    private Duration openDuration = Duration.ofSeconds(5);

    /**
     * Longest a caller waits for a refill when an entity's buffer holds too few IDs, and longest a direct fetch
     * takes across all environments. Defaults to "request-timeout" times the number of environments plus 1s.
     */
    private @Nullable Duration maxWait;

    public @Nullable String getAppKey() {
        return this.appKey;
    }

    public void setAppKey(@Nullable String appKey) {
        this.appKey = appKey;
    }

    public @Nullable String getSecret() {
        return this.secret;
    }

    public void setSecret(@Nullable String secret) {
        this.secret = secret;
    }

    public List<String> getEnvironments() {
        return this.environments;
    }

    public void setEnvironments(List<String> environments) {
        this.environments = environments;
    }

    public int getBatchSize() {
        return this.batchSize;
    }

    public void setBatchSize(int batchSize) {
        this.batchSize = batchSize;
    }

    public @Nullable Integer getRefillThreshold() {
        return this.refillThreshold;
    }

    public void setRefillThreshold(@Nullable Integer refillThreshold) {
        this.refillThreshold = refillThreshold;
    }

    public Duration getConnectTimeout() {
        return this.connectTimeout;
    }

    public void setConnectTimeout(Duration connectTimeout) {
        this.connectTimeout = connectTimeout;
    }

    public Duration getRequestTimeout() {
        return this.requestTimeout;
    }

    public void setRequestTimeout(Duration requestTimeout) {
        this.requestTimeout = requestTimeout;
    }

    public int getFailureThreshold() {
        return this.failureThreshold;
    }

    public void setFailureThreshold(int failureThreshold) {
        this.failureThreshold = failureThreshold;
    }

    public Duration getOpenDuration() {
        return this.openDuration;
    }

    public void setOpenDuration(Duration openDuration) {
        this.openDuration = openDuration;
    }

    public @Nullable Duration getMaxWait() {
        return this.maxWait;
    }

    public void setMaxWait(@Nullable Duration maxWait) {
        this.maxWait = maxWait;
    }
}
