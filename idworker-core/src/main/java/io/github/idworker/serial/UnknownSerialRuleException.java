package io.github.idworker.serial;

import io.github.idworker.IdWorkerException;

/** No serial rule of the name is registered; nothing was handed out. */
public class UnknownSerialRuleException extends IdWorkerException {

    private final String rule;

    /**
     * @param rule the name asked for
     * @param where the store that was asked, e.g. {@code table idworker_serial_rule at jdbc:h2:mem:test}
     */
    public UnknownSerialRuleException(String rule, String where) {
        super("Serial rule '" + rule + "' is not registered in " + where + ". Configure it under "
                + SerialRule.PROPERTY_PREFIX + rule + ".* or insert it into the rule table.");
        this.rule = rule;
    }

    public String getRule() {
        return rule;
    }
}
