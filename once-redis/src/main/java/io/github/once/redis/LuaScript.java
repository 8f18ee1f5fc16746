package io.github.once.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** One Lua script of this store: its text and the SHA-1 that EVALSHA names it by, both computed once. */
final class LuaScript {

    static final LuaScript CLAIM = load("claim");
    static final LuaScript COMPLETE = load("complete");
    static final LuaScript RELEASE = load("release");
    static final LuaScript RENEW = load("renew");
    static final LuaScript FIND = load("find");

    static final LuaScript[] ALL = {CLAIM, COMPLETE, RELEASE, RENEW, FIND};

    private final String name;
    private final byte[] body;
    private final String sha1;

    private LuaScript(String name, byte[] body) {
        this.name = name;
        this.body = body;
        this.sha1 = sha1Hex(body);
    }

    String name() {
        return name;
    }

    /** The script text; callers must not modify it. */
    byte[] body() {
        return body;
    }

    String sha1() {
        return sha1;
    }

    private static LuaScript load(String name) {
        String resource = name + ".lua";
        try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing script resource " + resource);
            }
            return new LuaScript(name, in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read script resource " + resource, e);
        }
    }

    private static String sha1Hex(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required by the Java platform", e);
        }
    }

    @Override
    public String toString() {
        return name + ".lua";
    }
}
