package io.github.idworker.server;

import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when some family is served to signed applications: pools (always signed while enabled) or any family
 * with {@code idworker.server.families.<family>.signed=true}. Without one, the server needs no application table
 * and no nonce store.
 */
class SigningNeeded implements Condition {

    @Override
    public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
        Environment env = context.getEnvironment();
        if (flag(env, "pool.enabled", true)) {
            return true;
        }
        for (String family : new String[] {"snowflake", "segment", "sequence", "serial"}) {
            if (flag(env, family + ".enabled", true) && flag(env, family + ".signed", false)) {
                return true;
            }
        }
        return false;
    }

    private static boolean flag(Environment env, String key, boolean missing) {
        // an unparsable value counts as the default here; binding IdServerProperties then fails naming the key
        String value = env.getProperty(IdServerProperties.FAMILIES + "." + key);
        return value == null ? missing : Boolean.parseBoolean(value.trim()) || (!"false".equalsIgnoreCase(value.trim())
                && missing);
    }
}
