package io.github.idworker.redis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The text of one Lua script shipped with idworker and its SHA-1, computed once so executors can call it by
 * {@code EVALSHA}.
 */
public final class LuaScript {

    /**
     * {@code redis-identity.lua}: {@code identity_and_time()}, this Redis's {@code master_replid} and {@code TIME},
     * read on every call; composed in front of the scripts that check the identity on every call.
     */
    public static final LuaScript IDENTITY = load(LuaScript.class, "redis-identity");

    private final String name;
    private final String source;
    private final String sha1;

    private LuaScript(String name, String source) {
        this.name = name;
        this.source = source;
        this.sha1 = sha1Hex(source);
    }

    /**
     * Reads {@code <package of owner>/lua/<name>.lua} from the class path, so each store's scripts sit beside
     * its classes (e.g. {@code io/github/idworker/lease/redis/lua/lease-borrow.lua}).
     */
    public static LuaScript load(Class<?> owner, String name) {
        String path = owner.getPackageName().replace('.', '/') + "/lua/" + name + ".lua";
        try (InputStream in = owner.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + path + " is missing from the class path");
            }
            return new LuaScript(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read Lua script " + path, e);
        }
    }

    /**
     * One script made of {@code parts} in their order, e.g. a library of steps ({@code request-gate.lua}) in front
     * of the part that calls them: the text Redis runs and hashes is their concatenation.
     */
    public static LuaScript compose(String name, LuaScript... parts) {
        StringBuilder source = new StringBuilder();
        for (LuaScript part : parts) {
            source.append(part.source).append('\n');
        }
        return new LuaScript(Objects.requireNonNull(name), source.toString());
    }

    /** A script from text, for scripts that are not shipped as resources. */
    public static LuaScript of(String name, String source) {
        return new LuaScript(Objects.requireNonNull(name), Objects.requireNonNull(source));
    }

    public String name() {
        return name;
    }

    public String source() {
        return source;
    }

    public String sha1() {
        return sha1;
    }

    private static String sha1Hex(String text) {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-1");
            return HexFormat.of().formatHex(md.digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is not available", e);
        }
    }

    @Override
    public String toString() {
        return "LuaScript[" + name + ", sha1=" + sha1 + "]";
    }
}
