package io.github.once.redis.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * One Lua script of this store: its text and the SHA-1 that EVALSHA names it by, both computed once. Each
 * resource file defines one local function taking a key and its arguments; a script is {@code clock.lua} (one
 * {@code TIME} call), that function and a call of it, either on {@code KEYS[1]} or on every key of a batch. So a
 * batch script runs exactly the per-key logic of the single one, in key order, and the text exists once.
 */
public final class LuaScript {

    public static final LuaScript CLAIM = single("claim", 3);
    public static final LuaScript CLAIM_ALL = batch("claim", 3);
    public static final LuaScript COMPLETE = single("complete", 4);
    public static final LuaScript COMPLETE_ALL = batch("complete", 4);
    public static final LuaScript RELEASE = single("release", 1);
    public static final LuaScript RENEW = single("renew", 2);
    public static final LuaScript FIND = single("find", 0);
    public static final LuaScript FIND_ALL = readBatch("find");
    /** Operators' reads (RedisStoreInspector); not preloaded, they load on first use. */
    static final LuaScript INSPECT = single("inspect", 1);
    static final LuaScript INSPECT_ALL = batch("inspect", 1);

    public static final LuaScript[] ALL = {CLAIM, CLAIM_ALL, COMPLETE, COMPLETE_ALL, RELEASE, RENEW, FIND, FIND_ALL};

    private final String name;
    private final int argsPerKey;
    private final byte[] body;
    private final String sha1;

    private LuaScript(String name, int argsPerKey, String body) {
        this.name = name;
        this.argsPerKey = argsPerKey;
        this.body = body.getBytes(StandardCharsets.UTF_8);
        this.sha1 = sha1Hex(this.body);
    }

    String name() {
        return name;
    }

    /** How many ARGV entries each key takes; a batch script takes them key after key. */
    public int argsPerKey() {
        return argsPerKey;
    }

    /** The script text; callers must not modify it. */
    public byte[] body() {
        return body;
    }

    String sha1() {
        return sha1;
    }

    /** {@code function(KEYS[1], ARGV[1], ..., ARGV[n])}: replies what the function returns. */
    private static LuaScript single(String function, int argsPerKey) {
        return new LuaScript(function, argsPerKey, prelude(function) + "return " + function + "(KEYS[1]"
                + arguments("", argsPerKey) + ")\n");
    }

    /**
     * The function on every key in order, {@code argsPerKey} ARGV entries per key: replies an array of what each
     * call returns. A key repeated in the batch sees the effect of its earlier calls, as single calls would.
     */
    private static LuaScript batch(String function, int argsPerKey) {
        return new LuaScript(function + "_all", argsPerKey, prelude(function) + eachKey(function, argsPerKey));
    }

    /**
     * As {@link #batch} for a read without arguments that answers {} for a key that does not exist: when none of
     * the batch's keys exists (new keys, the usual case of a front read ahead of their claims), one {@code EXISTS}
     * answers them all instead of a read per key: a key Redis does not hold reads as absent either way.
     */
    private static LuaScript readBatch(String function) {
        return new LuaScript(function + "_all", 0, prelude(function)
                + "if redis.call('EXISTS', unpack(KEYS)) == 0 then\n"
                + "  local none = {}\n"
                + "  for i = 1, #KEYS do\n"
                + "    none[i] = {}\n"
                + "  end\n"
                + "  return none\n"
                + "end\n"
                + eachKey(function, 0));
    }

    /** The function on every key in order, replying an array of what each call returns. */
    private static String eachKey(String function, int argsPerKey) {
        return "if #ARGV ~= #KEYS * " + argsPerKey + " then\n"
                + "  return redis.error_reply('" + function + "_all takes " + argsPerKey + " arguments per key')\n"
                + "end\n"
                + "local replies = {}\n"
                + "for i = 1, #KEYS do\n"
                + "  local a = (i - 1) * " + argsPerKey + "\n"
                + "  replies[i] = " + function + "(KEYS[i]" + arguments("a + ", argsPerKey) + ")\n"
                + "end\n"
                + "return replies\n";
    }

    private static String prelude(String function) {
        return resource("clock") + resource(function);
    }

    private static String arguments(String offset, int count) {
        StringBuilder list = new StringBuilder();
        for (int i = 1; i <= count; i++) {
            list.append(", ARGV[").append(offset).append(i).append(']');
        }
        return list.toString();
    }

    private static String resource(String name) {
        String resource = name + ".lua";
        try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing script resource " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
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
        return name + " script";
    }
}
