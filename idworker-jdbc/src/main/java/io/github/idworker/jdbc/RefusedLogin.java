package io.github.idworker.jdbc;

import io.github.idworker.StoreLocations;
import org.jspecify.annotations.Nullable;

import javax.sql.DataSource;
import java.lang.reflect.Method;
import java.sql.SQLException;

/**
 * Tells a database that refused a login from one that could not be reached, and names the refused account the way
 * MySQL does: {@code user 'app' (using password: YES)}. It reads the data source's user name and whether it has a
 * password; the password itself goes into no string.
 *
 * <p>A refusal is, anywhere in the cause chain, an {@link SQLException} with SQLSTATE class {@code 28} (invalid
 * authorization: {@code 28000} from H2, MySQL and MariaDB, {@code 28P01} from PostgreSQL) or MySQL's and MariaDB's
 * error {@code 1045} (access denied), {@code 1044} (no access to the database) or {@code 1698} (authentication
 * plugin refused).
 */
final class RefusedLogin {

    /** A getter the data source does not have (or that failed): nothing to say about it. */
    private static final Object ABSENT = new Object();

    private RefusedLogin() {
    }

    static boolean isRefusedLogin(Throwable failure) {
        for (Throwable t = failure; t != null && t != t.getCause(); t = t.getCause()) {
            if (t instanceof SQLException s) {
                String state = s.getSQLState();
                int code = s.getErrorCode();
                if ((state != null && state.startsWith("28")) || code == 1045 || code == 1044 || code == 1698) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * {@code user 'app' (using password: YES)}; what the data source does not tell is left out. A password in
     * {@code url} ({@code ?password=}, {@code ;PASSWORD=}, {@code //user:password@}) counts as one sent, as the
     * driver sends it: the data source's own is then usually unset.
     */
    static String account(DataSource dataSource, @Nullable String url) {
        Object user = property(dataSource, "getUsername", "getUser");
        Object password = property(dataSource, "getPassword");
        String who = user != null && user != ABSENT ? "user '" + user + "'" : "the configured user";
        // a URL that redaction changes holds a credential
        boolean inUrl = url != null && !StoreLocations.redact(url).equals(url);
        if (password == ABSENT && !inUrl) {
            return who;
        }
        // only whether one is set: the value is neither kept nor printed
        boolean set = inUrl || (password != null && password != ABSENT && !password.toString().isEmpty());
        return who + " (using password: " + (set ? "YES" : "NO") + ")";
    }

    /** The first of {@code getters} the data source has, called; {@link #ABSENT} when it has none of them. */
    private static @Nullable Object property(DataSource dataSource, String... getters) {
        for (String getter : getters) {
            Method m;
            try {
                m = dataSource.getClass().getMethod(getter);
            } catch (NoSuchMethodException | RuntimeException e) {
                continue;
            }
            try {
                return m.invoke(dataSource);
            } catch (ReflectiveOperationException | RuntimeException e) {
                return ABSENT;
            }
        }
        return ABSENT;
    }
}
