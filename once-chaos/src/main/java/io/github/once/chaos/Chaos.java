package io.github.once.chaos;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The chaos harness's entry point (see docs/chaos.md and scripts/chaos.sh).
 *
 * <pre>
 * java -cp CLASSPATH io.github.once.chaos.Chaos quick|medium|full [--seed N]
 *      [--modes jdbc-tx,mariadb-tx,tiered,redis,memory,spring-tx,outbox-tx] [--messages N] [--faults N] [--kills N]
 *      [--kinds leader_kill,...] [--consumers N] [--no-self-test] [--unsafe-ack-first]
 *      [--halt-on ID] [--report FILE] [--logs DIR]
 * </pre>
 * Exits 0 when every mode kept its guarantee (and the self-test's broken consumer was caught), 1 otherwise.
 * {@code --halt-on ID} makes every consumer process halt when that message reaches its handler (a message that
 * kills its consumer every time, for crash-loop tests; until something dead-letters it, it counts as lost).
 */
public final class Chaos {

    private Chaos() {
    }

    public static void main(String[] argv) throws Exception {
        Args args = Args.parse(argv);
        Size size = Size.of(args.positional("quick"));
        if (args.getInt("messages", 0) > 0) {
            size = size.withMessages(args.getInt("messages", 0));
        }
        if (args.getInt("faults", -1) >= 0) {
            size = size.withFaults(args.getInt("faults", 0), args.getInt("kills", args.getInt("faults", 0)));
        }
        if (!args.get("kinds", "").isEmpty()) {
            size = size.onlyKinds(args.get("kinds"));
        }
        long seed = args.getLong("seed", new SecureRandom().nextInt(1_000_000));
        List<Mode> modes = new ArrayList<>();
        for (String m : args.get("modes", "jdbc-tx,mariadb-tx,tiered,redis,memory,spring-tx,outbox-tx").split(",")) {
            modes.add(Mode.of(m.trim()));
        }
        boolean unsafe = args.flag("unsafe-ack-first");
        boolean selfTest = size.name().equals("quick") && !args.flag("no-self-test") && !unsafe;
        String command = "scripts/chaos.sh " + String.join(" ", argv).replaceAll("--seed \\S+ ?", "").trim()
                + " --seed " + seed;
        Path logs = Path.of(args.get("logs", "once-chaos/target/chaos"));
        Path reportFile = Path.of(args.get("report", logs.resolve("report.md").toString()));
        Files.createDirectories(logs);
        requireRoot();
        System.out.println("Chaos run '" + size.name() + "', fault plan number " + seed + "; rerun: " + command);

        long started = System.currentTimeMillis();
        List<Report.Line> lines = new ArrayList<>();
        try (Teardown teardown = new Teardown()) {
            Files.createDirectories(logs);
            Services services = Services.start(teardown, Services.Ports.defaults(), logs);
            System.out.printf("Cluster and stores up after %.0f s (in %s)%n",
                    (System.currentTimeMillis() - started) / 1000.0, services.dir());
            String classpath = System.getProperty("once.chaos.classpath", System.getProperty("java.class.path"));
            for (Mode mode : modes) {
                ModeRun.Settings s = new ModeRun.Settings(seed, size.messages(), size.faultsPerKind(),
                        args.getInt("consumers", 3), unsafe, 2, 5000, 0.1, 0, 15_000, args.get("halt-on", ""), classpath, logs);
                ModeRun.Result result = new ModeRun(mode, s, services).run();
                // A run with consumers that ack first must fail, like any other broken guarantee.
                lines.add(new Report.Line(mode.label(), result, false));
                System.out.printf("%s: %s in %.0f s: %d lost, %d repeated effects (%d unexplained)%n", mode.label(),
                        result.verdict().passed() ? "pass" : "FAIL", result.millis() / 1000.0,
                        result.verdict().lost().size(), result.verdict().extraEffects(),
                        result.verdict().unexplained().size());
            }
            if (selfTest) {
                // A consumer that acks before it works, killed three times while it holds a backlog: the checker must
                // report lost messages, or it proves nothing.
                ModeRun.Settings s = new ModeRun.Settings(seed, 400, Map.of(FaultKind.CONSUMER_KILL, 3),
                        args.getInt("consumers", 3), true, 50, 5000, 0.1, 300, 5_000, "", classpath, logs);
                lines.add(new Report.Line("self-test: ack first", new ModeRun(Mode.MEMORY, s, services).run(), true));
            }
        }
        long total = System.currentTimeMillis() - started;
        String report = Report.render(command, seed, lines, total);
        Files.writeString(reportFile, report, StandardCharsets.UTF_8);
        boolean ok = lines.stream().allMatch(Report.Line::asExpected);
        System.out.println();
        System.out.println(report);
        System.out.printf("%s in %.1f min; report in %s%n", ok ? "PASSED" : "FAILED", total / 60_000.0, reportFile);
        System.exit(ok ? 0 : 1);
    }

    private static void requireRoot() {
        if (!"root".equals(System.getProperty("user.name"))) {
            throw new IllegalStateException("the harness starts RabbitMQ, PostgreSQL and MariaDB as their own "
                    + "users (runuser, mariadbd --user): run it as root");
        }
    }
}
