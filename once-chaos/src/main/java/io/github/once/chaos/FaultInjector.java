package io.github.once.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Carries out a {@link FaultPlan} against the run's processes and services, one fault after the other, each at
 * its planned time or as soon as the one before has recovered, and logs what it did.
 */
final class FaultInjector implements Runnable {

    private final FaultPlan plan;
    private final String queue;
    private final Services services;
    private final WorkerPool workers;
    private final WorkerPool relays;
    private final List<FaultEvent> events = new ArrayList<>();
    private volatile boolean stopped;

    /** @param relays the outbox relays, or null in a mode without them */
    FaultInjector(FaultPlan plan, String queue, Services services, WorkerPool workers, WorkerPool relays) {
        this.plan = plan;
        this.queue = queue;
        this.services = services;
        this.workers = workers;
        this.relays = relays;
    }

    void stop() {
        stopped = true;
    }

    synchronized List<FaultEvent> events() {
        return List.copyOf(events);
    }

    @Override
    public void run() {
        long origin = System.currentTimeMillis();
        for (FaultPlan.Fault fault : plan.faults()) {
            long wait = origin + fault.atMillis() - System.currentTimeMillis();
            if (wait > 0) {
                try {
                    Thread.sleep(wait);
                } catch (InterruptedException e) {
                    return;
                }
            }
            if (stopped) {
                return;
            }
            FaultEvent event = inject(fault);
            synchronized (this) {
                events.add(event);
            }
            System.out.printf("  fault %3d/%d %-40s %-27s %6d ms%s%n", fault.seq(), plan.faults().size(),
                    fault.kind().label(), event.target(), event.endMillis() - event.startMillis(),
                    event.injected() ? "" : "  NOT INJECTED: " + event.note());
        }
    }

    private FaultEvent inject(FaultPlan.Fault fault) {
        long start = System.currentTimeMillis();
        String target = "";
        try {
            switch (fault.kind()) {
                case CONSUMER_KILL:
                    target = workers.kill(fault.target(), fault.holdMillis());
                    break;
                case RELAY_KILL:
                    target = relays.kill(fault.target(), fault.holdMillis());
                    break;
                case CONNECTIONS_CLOSED: {
                    RabbitCluster.Node node = services.cluster().nodes().get(fault.target());
                    target = node.name();
                    services.cluster().closeAllConnections(node);
                    break;
                }
                case BROKER_RESTART: {
                    RabbitCluster.Node node = services.cluster().nodes().get(fault.target());
                    target = node.name();
                    services.cluster().restartApp(node);
                    break;
                }
                case LEADER_KILL: {
                    Optional<RabbitCluster.Node> leader = services.cluster().leaderOf(queue);
                    RabbitCluster.Node node = leader.orElse(services.cluster().nodes().get(fault.target()));
                    target = node.name() + (leader.isPresent() ? " (leader)" : " (no leader found)");
                    services.cluster().killAndRestart(node);
                    break;
                }
                case REDIS_KILL:
                    target = "redis";
                    services.redis().killAndRestart();
                    break;
                case REDIS_DATA_LOSS:
                    target = "redis";
                    services.redis().killAndWipe();
                    break;
                case PG_TERMINATE:
                    target = services.postgres().terminateConnections() + " backends";
                    break;
                case PG_RESTART:
                    target = "postgres";
                    services.postgres().restart();
                    break;
                case MARIADB_KILL_CONNECTIONS:
                    target = services.mariadb().killConnections() + " connections";
                    break;
                case MARIADB_RESTART:
                    target = "mariadb";
                    services.mariadb().restart();
                    break;
                case STORE_STALL:
                    target = fault.holdMillis() + " ms";
                    services.stall(fault.holdMillis());
                    Thread.sleep(fault.holdMillis());
                    break;
                default:
                    throw new IllegalStateException("no injection for " + fault.kind());
            }
            return new FaultEvent(fault.kind(), start, System.currentTimeMillis(), target, true, "");
        } catch (Exception e) {
            return new FaultEvent(fault.kind(), start, System.currentTimeMillis(), target, false, String.valueOf(e));
        }
    }
}
