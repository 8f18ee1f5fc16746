package io.github.once.chaos;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;

import com.zaxxer.hikari.HikariDataSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * One mode's run: consumers and a publisher as processes, the faults of its plan while messages flow, then
 * everything back up, a wait until the queues are empty and the effects stop changing, and the check.
 */
final class ModeRun {

    /** Settings of one run that are not the mode's. */
    record Settings(long seed, int messages, Map<FaultKind, Integer> faultsPerKind, int consumers, boolean unsafeAckFirst,
                    long handlerMillis, long leaseMillis, double resendShare, double publishRate, long quietMillis,
                    String haltOn, String classpath, Path logDir) {
    }

    /** What happened: the verdict, the faults, how long it took, and a mode's own remark (or an empty one). */
    record Result(Checker.Verdict verdict, List<FaultEvent> faults, long millis, int unexpectedWorkerExits,
                  boolean settled, String note) {
    }

    /** Relay processes of the outbox-tx mode. */
    static final int RELAYS = 2;

    private final Mode mode;
    private final Settings settings;
    private final Services services;
    private final String queue;
    private final String table;
    /** The outbox-tx mode's business and outbox tables, or null. */
    private final OutboxLedger outbox;

    ModeRun(Mode mode, Settings settings, Services services) {
        this.mode = mode;
        this.settings = settings;
        this.services = services;
        String suffix = (settings.unsafeAckFirst() ? "unsafe-" : "") + Long.toHexString(System.nanoTime() & 0xFFFFFF);
        this.queue = "chaos-" + mode.label() + "-" + suffix;
        this.table = "once_chaos_fx_" + mode.name().toLowerCase() + "_" + suffix.replace('-', '_');
        this.outbox = mode == Mode.OUTBOX_TX ? new OutboxLedger(table) : null;
    }

    Result run() throws Exception {
        long started = System.currentTimeMillis();
        String effectsUrl = mode.onMariaDb() ? services.mariadb().directUrl()
                : mode.transactional() ? services.postgres().directUrl() : Services.SHARED_POSTGRES;
        try (HikariDataSource ledger = Pools.forUrl(effectsUrl, "ledger", 2);
             Connection amqp = Amqp.connect(services.cluster().addresses(), "once-chaos-harness", 60_000, false)) {
            prepare(ledger, amqp);
            try {
                return runPrepared(ledger, amqp, effectsUrl, started);
            } finally {
                cleanUp(ledger, amqp);
            }
        }
    }

    private void prepare(HikariDataSource ledger, Connection amqp) throws Exception {
        try (java.sql.Connection c = ledger.getConnection()) {
            EffectLedger.create(c, table);
            if (outbox != null) {
                outbox.create(c);
            }
        }
        if (!mode.transactional()) { // in the machine's PostgreSQL, which outlives the run
            services.onTeardown("drop " + table, () -> {
                try (java.sql.Connection c = java.sql.DriverManager.getConnection(Services.SHARED_POSTGRES,
                        "postgres", "")) {
                    EffectLedger.drop(c, table);
                }
            });
        }
        if (mode.transactional()) {
            OnceWiring.createRecordTable(ledger, mode);
        }
        try (Channel ch = amqp.createChannel()) {
            OnceWiring.declareTopology(ch, queue);
        }
    }

    private Result runPrepared(HikariDataSource ledger, Connection amqp, String effectsUrl, long started)
            throws Exception {
        Path logDir = settings.logDir().resolve(queue);
        Files.createDirectories(logDir);
        FaultPlan plan = FaultPlan.draw(settings.seed(), mode, settings.faultsPerKind(), settings.consumers(),
                services.cluster().nodes().size());
        System.out.printf("%s: %d messages, %d consumers, %d faults planned over about %d s; logs in %s%n",
                mode.label(), settings.messages(), settings.consumers(), plan.faults().size(),
                plan.spanMillis() / 1000, logDir);
        WorkerPool workers = new WorkerPool(workerCommand(effectsUrl), "worker", logDir, settings.consumers());
        WorkerPool relays = outbox == null ? null : new WorkerPool(relayCommand(), "relay", logDir, RELAYS);
        FaultInjector injector = new FaultInjector(plan, queue, services, workers, relays);
        Thread injecting = new Thread(injector, "fault-injector");
        // What the publisher had confirmed, or the ids whose transactions the outbox producer saw commit.
        Path published = logDir.resolve(outbox == null ? "published.txt" : "committed.txt");
        Path rolledBack = logDir.resolve("rolled-back.txt");
        try {
            workers.startAll();
            awaitReady(logDir, "worker", settings.consumers());
            if (relays != null) {
                relays.startAll();
                awaitReady(logDir, "relay", RELAYS);
            }
            // Messages spread over the faults, unless the run sets its own pace.
            double rate = settings.publishRate() > 0 ? settings.publishRate()
                    : settings.messages() * 1000.0 / Math.max(10_000, plan.spanMillis());
            Process publisher = outbox == null ? startPublisher(published, rate, logDir)
                    : startProducer(published, rolledBack, rate, logDir);
            awaitFirstConfirms(published, publisher);
            injecting.start(); // faults while messages flow, not while the publisher's JVM is still starting
            injecting.join();
            if (!publisher.waitFor(600, TimeUnit.SECONDS)) {
                publisher.destroyForcibly();
                throw new IllegalStateException("the publisher did not finish; see " + logDir.resolve("publisher.log"));
            }
            if (publisher.exitValue() != 0) {
                throw new IllegalStateException("the publisher failed; see " + logDir.resolve("publisher.log"));
            }
            services.recover();
            workers.ensureAllAlive();
            if (relays != null) {
                relays.ensureAllAlive();
            }
            boolean settled = settle(ledger, amqp);
            int unexpectedExits = workers.unexpectedExits() + (relays == null ? 0 : relays.unexpectedExits());
            workers.close();
            Set<String> ids = new HashSet<>();
            List<String> lines = Files.readAllLines(published, StandardCharsets.UTF_8);
            ids.addAll(lines);
            List<EffectLedger.Effect> effects;
            Map<String, String> dead = drainDeadLetters(amqp);
            try (java.sql.Connection c = ledger.getConnection()) {
                effects = EffectLedger.readAll(c, table);
                if (outbox != null) {
                    // Every committed row must have its effect, including those whose commit the producer never
                    // heard of; an id the producer saw commit and the table lacks counts too, and is lost.
                    ids.addAll(outbox.committed(c));
                    dead.putAll(outbox.parked(c));
                }
            }
            Checker.Verdict verdict = new Checker(OnceWiring.STORE_TIMEOUT.toMillis() + 1000, settings.leaseMillis())
                    .check(mode, ids, lines.size(), effects, dead, injector.events());
            writeDetails(logDir, verdict);
            String note = outbox == null ? "" : rolledBackNote(rolledBack, effects);
            return new Result(verdict, injector.events(), System.currentTimeMillis() - started, unexpectedExits,
                    settled, note);
        } finally {
            injector.stop();
            injecting.interrupt();
            workers.close();
            if (relays != null) {
                relays.close();
            }
        }
    }

    /** How many transactions the producer rolled back, and how many of those ids have an effect (must be none). */
    private static String rolledBackNote(Path rolledBack, List<EffectLedger.Effect> effects) throws IOException {
        Set<String> ids = new HashSet<>(Files.readAllLines(rolledBack, StandardCharsets.UTF_8));
        if (ids.isEmpty()) {
            throw new IllegalStateException("the producer rolled back no transaction, so the run checked nothing of "
                    + "rolled-back rows; see " + rolledBack.resolveSibling("producer.log"));
        }
        long withEffect = effects.stream().filter(e -> ids.contains(e.messageId())).count();
        return ids.size() + " transactions rolled back by the producer, " + withEffect + " effects of them";
    }

    private List<String> relayCommand() {
        List<String> cmd = WorkerPool.javaCommand(RelayWorker.class.getName(), settings.classpath());
        cmd.addAll(List.of("--jdbc", services.postgresUrlViaProxy(), "--outbox-table", outbox.outbox(),
                "--amqp", services.cluster().addressList()));
        return cmd;
    }

    private Process startProducer(Path committed, Path rolledBack, double rate, Path logDir) throws IOException {
        List<String> cmd = WorkerPool.javaCommand(OutboxProducer.class.getName(), settings.classpath());
        cmd.addAll(List.of("--jdbc", services.postgresUrlViaProxy(), "--business-table", outbox.business(),
                "--outbox-table", outbox.outbox(), "--queue", queue,
                "--messages", Integer.toString(settings.messages()), "--rate", Double.toString(rate),
                "--rollback-share", "0.1", "--seed", Long.toString(settings.seed()),
                "--out", committed.toString(), "--rolled-back", rolledBack.toString()));
        return new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logDir.resolve("producer.log").toFile()))
                .start();
    }

    private List<String> workerCommand(String effectsUrl) {
        String main = mode == Mode.SPRING_TX ? SpringWorker.class.getName() : Worker.class.getName();
        List<String> cmd = WorkerPool.javaCommand(main, settings.classpath());
        cmd.addAll(List.of("--mode", mode.label(), "--queue", queue, "--amqp", services.cluster().addressList(),
                "--effects-url", effectsUrl, "--effects-table", table,
                "--lease-ms", Long.toString(settings.leaseMillis()),
                "--handler-ms", Long.toString(settings.handlerMillis())));
        if (mode == Mode.REDIS || mode == Mode.TIERED) {
            cmd.addAll(List.of("--redis", services.redisUriViaProxy()));
        }
        if (mode.transactional()) {
            String jdbc = mode.onMariaDb() ? services.mariadbUrlViaProxy() : services.postgresUrlViaProxy();
            cmd.addAll(List.of("--jdbc", jdbc));
        }
        if (settings.unsafeAckFirst()) {
            cmd.add("--unsafe-ack-first");
        }
        if (!settings.haltOn().isEmpty()) {
            cmd.addAll(List.of("--halt-on", settings.haltOn()));
        }
        return cmd;
    }

    private static void awaitReady(Path logDir, String role, int count) throws IOException {
        long deadline = System.nanoTime() + 120_000_000_000L;
        for (int i = 1; i <= count; i++) {
            Path log = logDir.resolve(role + "-" + i + ".log");
            while (!(Files.exists(log) && Files.readString(log).contains("ready " + role.charAt(0) + i + "."))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(role + " " + i + " never became ready; see " + log);
                }
                Pause.millis(200);
            }
        }
    }

    private static void awaitFirstConfirms(Path published, Process publisher) throws IOException {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (!(Files.exists(published) && Files.size(published) > 0)) {
            if (!publisher.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("the publisher confirmed nothing; see its log");
            }
            Pause.millis(100);
        }
    }

    private Process startPublisher(Path published, double rate, Path logDir) throws IOException {
        List<String> cmd = WorkerPool.javaCommand(Publisher.class.getName(), settings.classpath());
        cmd.addAll(List.of("--amqp", services.cluster().addressList(), "--queue", queue,
                "--messages", Integer.toString(settings.messages()), "--rate", Double.toString(rate),
                "--resend-share", Double.toString(settings.resendShare()), "--seed", Long.toString(settings.seed()),
                "--out", published.toString()));
        return new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logDir.resolve("publisher.log").toFile()))
                .start();
    }

    /**
     * Waits until no message waits in the work or delay queues and the effects have not changed for a while:
     * shortly once every published id is accounted for, longer while some are not (a slow one may still come).
     */
    private boolean settle(HikariDataSource ledger, Connection amqp) throws Exception {
        List<String> queues = new ArrayList<>(List.of(queue));
        queues.addAll(OnceWiring.delayQueues(queue));
        long deadline = System.currentTimeMillis() + Math.max(120_000, settings.quietMillis() * 4);
        long lastChange = System.currentTimeMillis();
        String lastState = "";
        while (System.currentTimeMillis() < deadline) {
            long waiting = waitingMessages(amqp, queues);
            long dead = readyCount(amqp, OnceWiring.deadLetterQueue(queue));
            long total;
            long distinct;
            long expected = settings.messages();
            try (java.sql.Connection c = ledger.getConnection();
                 java.sql.Statement st = c.createStatement();
                 java.sql.ResultSet rs = st.executeQuery("SELECT count(*), count(DISTINCT message_id) FROM " + table)) {
                rs.next();
                total = rs.getLong(1);
                distinct = rs.getLong(2);
                if (outbox != null) { // the committed rows are expected; unsent outbox rows still wait
                    long[] committedAndUnsent = outbox.committedAndUnsent(c);
                    expected = committedAndUnsent[0];
                    waiting += committedAndUnsent[1];
                }
            }
            String state = waiting + "/" + dead + "/" + total;
            long now = System.currentTimeMillis();
            if (!state.equals(lastState)) {
                lastState = state;
                lastChange = now;
            }
            boolean accounted = distinct + dead >= expected;
            long quietFor = now - lastChange;
            if (waiting == 0 && quietFor >= (accounted ? 3000 : settings.quietMillis())) {
                return accounted;
            }
            Pause.millis(500);
        }
        System.out.println("  not settled within the limit: waiting/dead-lettered/effects = " + lastState);
        return false;
    }

    private static long waitingMessages(Connection amqp, List<String> queues) {
        long n = 0;
        for (String q : queues) {
            n += readyCount(amqp, q);
        }
        return n;
    }

    private static long readyCount(Connection amqp, String q) {
        try (Channel ch = amqp.createChannel()) {
            return ch.queueDeclarePassive(q).getMessageCount();
        } catch (Exception e) {
            return 1; // unknown counts as not empty yet
        }
    }

    private Map<String, String> drainDeadLetters(Connection amqp) throws Exception {
        Map<String, String> dead = new LinkedHashMap<>();
        try (Channel ch = amqp.createChannel()) {
            GetResponse r;
            while ((r = ch.basicGet(OnceWiring.deadLetterQueue(queue), true)) != null) {
                Map<String, Object> headers = r.getProps().getHeaders();
                Object reason = headers == null ? null : headers.get("x-once-reason");
                dead.put(r.getProps().getMessageId(), String.valueOf(reason));
            }
        }
        return dead;
    }

    private void writeDetails(Path logDir, Checker.Verdict v) throws IOException {
        List<String> lines = new ArrayList<>();
        v.lost().forEach(id -> lines.add("lost " + id));
        v.unexplained().forEach(id -> lines.add("unexplained duplicate " + id));
        v.unexpected().forEach(id -> lines.add("unexpected " + id));
        v.deadLettered().forEach((id, reason) -> lines.add("dead-lettered " + id + " " + reason));
        Files.write(logDir.resolve("verdict.txt"), lines, StandardCharsets.UTF_8);
    }

    private void cleanUp(HikariDataSource ledger, Connection amqp) {
        List<String> queues = new ArrayList<>(List.of(queue, OnceWiring.deadLetterQueue(queue)));
        queues.addAll(OnceWiring.delayQueues(queue));
        for (String q : queues) {
            try (Channel ch = amqp.createChannel()) {
                ch.queueDelete(q);
            } catch (Exception e) {
                System.err.println("could not delete queue " + q + ": " + e);
            }
        }
        try (java.sql.Connection c = ledger.getConnection()) {
            EffectLedger.drop(c, table);
            if (outbox != null) {
                outbox.drop(c);
            }
        } catch (Exception e) {
            System.err.println("could not drop " + table + ": " + e);
        }
    }
}
