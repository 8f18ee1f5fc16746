package io.github.once.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.awaitility.Awaitility.await;

/** A private Redis Cluster of three masters on spare local ports, made with {@code redis-cli --cluster create}. */
final class RedisClusterNodes implements AutoCloseable {

    private final List<RedisServer> nodes;

    private RedisClusterNodes(List<RedisServer> nodes) {
        this.nodes = nodes;
    }

    static RedisClusterNodes start() {
        List<RedisServer> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                nodes.add(RedisServer.start(RedisServer.spareRedisPort(true), "--cluster-enabled", "yes",
                        "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000"));
            }
            List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
            for (RedisServer node : nodes) {
                create.add("127.0.0.1:" + node.port());
            }
            create.addAll(List.of("--cluster-replicas", "0", "--cluster-yes"));
            RedisServer.run(create);
            await("cluster state ok on every node").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                    .until(() -> nodes.stream().allMatch(n -> n.cli("cluster", "info").contains("cluster_state:ok")));
            return new RedisClusterNodes(nodes);
        } catch (RuntimeException e) {
            nodes.forEach(RedisServer::close);
            throw e;
        }
    }

    List<RedisServer> nodes() {
        return nodes;
    }

    String[] uris() {
        return nodes.stream().map(RedisServer::uri).toArray(String[]::new);
    }

    @Override
    public void close() {
        nodes.forEach(RedisServer::close);
    }
}
