package io.github.once.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.util.Map;
import java.util.TreeMap;

/**
 * Reads a private server's counters over a connection of its own: commands by name ({@code INFO commandstats}) and
 * socket read events ({@code total_reads_processed}: how many times the server read from a client socket, so a
 * pipelined batch that arrives in one write shows as one read).
 */
final class ServerStats implements AutoCloseable {

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;

    ServerStats(RedisServer server) {
        client = RedisClient.create(SharedRedis.RESOURCES, server.uri());
        connection = client.connect();
        redis = connection.sync();
    }

    RedisCommands<String, String> redis() {
        return redis;
    }

    void reset() {
        redis.configResetstat();
    }

    /** Calls per command since the last reset, e.g. {@code evalsha=50}. */
    Map<String, Long> commandCalls() {
        Map<String, Long> calls = new TreeMap<>();
        for (String line : redis.info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_")) {
                String name = line.substring("cmdstat_".length(), line.indexOf(':'));
                String fields = line.substring(line.indexOf(':') + 1);
                for (String field : fields.split(",")) {
                    if (field.startsWith("calls=")) {
                        calls.put(name, Long.parseLong(field.substring("calls=".length())));
                    }
                }
            }
        }
        return calls;
    }

    /** Socket reads the server has processed since the last reset (this connection's own included). */
    long reads() {
        for (String line : redis.info("stats").split("\r?\n")) {
            if (line.startsWith("total_reads_processed:")) {
                return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        throw new IllegalStateException("no total_reads_processed in INFO stats");
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
