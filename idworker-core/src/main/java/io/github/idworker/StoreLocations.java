package io.github.idworker;

import java.util.Locale;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Names a store in messages and log lines without its credentials. Every place that prints a JDBC URL, a Redis
 * URI or a driver's message about either passes it through {@link #redact(String)}, so no password, token or
 * other secret reaches an exception message, a log line or an HTTP response.
 *
 * <p>What is replaced by {@value #MASK}:
 * <ul>
 *   <li>the user information of an authority, {@code //user:password@host} (also a lone {@code //password@host},
 *       which Redis clients read as a password);</li>
 *   <li>the value of every parameter whose name contains {@code password}, {@code passwd}, {@code pwd},
 *       {@code secret}, {@code token}, {@code credential}, {@code apikey}, {@code accesskey} or
 *       {@code privatekey}, in any case, in H2's {@code ;name=value} form, in query strings
 *       ({@code ?name=value&…}), in bracketed values ({@code {…}}) and in free text, also quoted or written
 *       {@code name: value}. A value ends at {@code ;}, {@code &}, white space or a quote.</li>
 * </ul>
 * User names ({@code user=}, {@code username=}) are kept: they are no secret and tell an operator which account
 * a database refused. So is MySQL's and MariaDB's {@code (using password: YES)} / {@code (using password: NO)}: it
 * says whether a password was sent, not what it was, and tells a wrong password from a missing one.
 */
public final class StoreLocations {

    /** What a secret is replaced by. */
    public static final String MASK = "***";

    /** {@code //userinfo@}: the greedy run stops at the authority's end, so a password holding '@' goes too. */
    private static final Pattern USER_INFO = Pattern.compile("//[^/?#\\s\"']*@");

    private static final Pattern SECRET_PARAMETER = Pattern.compile(
            "(?<![\\w.\\-])([\\w.\\-]*(?:password|passwd|pwd|secret|token|credential|api[_\\-]?key|access[_\\-]?key"
                    + "|private[_\\-]?key)[\\w.\\-]*[\"']?\\s*[=:]\\s*[\"']?)(\\{[^}]*}?|[^;&\\s\"']*)",
            Pattern.CASE_INSENSITIVE);

    /** What precedes {@code password: YES|NO} in MySQL's and MariaDB's refusal of a login. */
    private static final Pattern USING_PASSWORD = Pattern.compile("(?i)\\(using\\s$");
    private static final Pattern USING_PASSWORD_VALUE = Pattern.compile("(YES|NO)\\)[,.;:]?");

    private StoreLocations() {
    }

    /**
     * {@code text} with every credential replaced by {@value #MASK}; {@code null} stays {@code null}. Safe on
     * a bare location ({@code jdbc:h2:mem:x;PASSWORD=s} becomes {@code jdbc:h2:mem:x;PASSWORD=***}) and on a
     * message that quotes one.
     */
    public static String redact(String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        String withoutUserInfo = USER_INFO.matcher(text).replaceAll("//" + Matcher.quoteReplacement(MASK) + "@");
        return SECRET_PARAMETER.matcher(withoutUserInfo).replaceAll(m -> Matcher.quoteReplacement(
                isUsingPassword(withoutUserInfo, m) ? m.group() : m.group(1) + MASK));
    }

    /** {@code (using password: YES)}: whether a password was sent, which is no secret. */
    private static boolean isUsingPassword(String text, MatchResult m) {
        // the value runs to the next space or quote, so it takes the closing parenthesis (and a comma) along
        return USING_PASSWORD_VALUE.matcher(m.group(2)).matches()
                && m.group(1).toLowerCase(Locale.ROOT).startsWith("password") && USING_PASSWORD.matcher(text.substring(Math.max(0, m.start() - 7), m.start())).find();
    }
}
