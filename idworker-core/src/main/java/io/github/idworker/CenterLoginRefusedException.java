package io.github.idworker;

import org.jspecify.annotations.Nullable;

/**
 * The centre answered and refused to log in the configured user (a wrong user name or password, or a user that may
 * not connect from this host or to this database): the centre is running and reachable, so the settings that name
 * the account are at fault, not the network. The message names the user and whether a password was sent, never the
 * password.
 */
public class CenterLoginRefusedException extends CenterUnavailableException {

    public CenterLoginRefusedException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
