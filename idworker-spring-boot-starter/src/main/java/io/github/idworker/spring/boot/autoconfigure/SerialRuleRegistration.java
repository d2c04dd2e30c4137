package io.github.idworker.spring.boot.autoconfigure;

import io.github.idworker.serial.SerialRule;
import io.github.idworker.serial.SerialRules;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * Registers the rules configured under {@code idworker.serial.rules} in the rule table, once, before any serial
 * is handed out. Every rule is built and checked first ({@link SerialRule.Builder#build()}), so one bad rule
 * fails the startup naming its property ({@code idworker.serial.rules.<name>.<field>}) before anything is
 * written. Registration is idempotent: a rule the table holds keeps the table's values (the table is the source
 * of truth), and one whose shape (prefix, date pattern, width, reset, zone) differs fails the startup naming the
 * property, because it could print a string handed out before.
 */
final class SerialRuleRegistration {

    private static final Logger log = LoggerFactory.getLogger(SerialRuleRegistration.class);

    private final List<SerialRule> registered;

    SerialRuleRegistration(SerialRules rules, SerialProperties properties) {
        List<SerialRule> configured = new ArrayList<>();
        for (Map.Entry<String, SerialRuleProperties> entry : properties.getRules().entrySet()) {
            configured.add(build(entry.getKey(), entry.getValue()));
        }
        List<SerialRule> held = new ArrayList<>(configured.size());
        for (SerialRule rule : configured) {
            held.add(rules.register(rule));
        }
        this.registered = Collections.unmodifiableList(held);
        if (!held.isEmpty()) {
            log.info("Serial rules {} registered", held.stream().map(SerialRule::name).toList());
        }
    }

    /**
     * The rule {@code name} as configured; unset values take the rule's defaults.
     *
     * @throws io.github.idworker.IdWorkerConfigurationException naming {@code idworker.serial.rules.<name>.<field>}
     */
    static SerialRule build(String name, SerialRuleProperties settings) {
        SerialRuleProperties s = (settings != null) ? settings : new SerialRuleProperties();
        SerialRule.Builder builder = SerialRule.builder(name).prefix(s.getPrefix()).datePattern(s.getDatePattern())
                .zone(s.getZone());
        if (s.getWidth() != null) {
            builder.width(s.getWidth());
        }
        if (s.getStart() != null) {
            builder.start(s.getStart());
        }
        if (s.getMax() != null) {
            builder.max(s.getMax());
        }
        if (s.getReset() != null) {
            builder.reset(s.getReset());
        }
        if (s.getCritical() != null) {
            builder.critical(s.getCritical());
        }
        if (s.getMinBatch() != null) {
            builder.minBatch(s.getMinBatch());
        }
        if (s.getMaxBatch() != null) {
            builder.maxBatch(s.getMaxBatch());
        }
        return builder.build();
    }

    /** Every configured rule as the table holds it, in the order configured. */
    List<SerialRule> registered() {
        return this.registered;
    }
}
