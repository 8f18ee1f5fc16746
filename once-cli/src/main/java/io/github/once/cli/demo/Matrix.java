package io.github.once.cli.demo;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/** Runs every style against every scenario, a few cells at a time, each on its own queue and namespace. */
final class Matrix {

    private Matrix() {
    }

    static MatrixResult run(String runId, List<ConsumerStyle> styles, ConnectionFactory amqp, String broker,
            List<String> notes, int parallel, IntConsumer progress) throws Exception {
        long started = System.nanoTime();
        Scenario[] scenarios = Scenario.values();
        AtomicInteger done = new AtomicInteger();
        AtomicInteger threadNo = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(parallel, r -> {
            Thread t = new Thread(r, "once-demo-cell-" + threadNo.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        try (Connection control = amqp.newConnection("once-demo-control")) {
            CellRunner runner = new CellRunner(amqp, control);
            List<List<Future<CellResult>>> futures = new ArrayList<>();
            for (int row = 0; row < styles.size(); row++) {
                ConsumerStyle style = styles.get(row);
                List<Future<CellResult>> cells = new ArrayList<>();
                for (Scenario scenario : scenarios) {
                    String cellId = Cell.id(runId, row, scenario);
                    cells.add(pool.submit(() -> {
                        long t0 = System.nanoTime();
                        CellResult r;
                        try {
                            r = runner.run(style, scenario, cellId);
                        } catch (Exception e) {
                            r = CellResult.error(scenario, describe(e), (System.nanoTime() - t0) / 1_000_000);
                        }
                        progress.accept(done.incrementAndGet());
                        return r;
                    }));
                }
                futures.add(cells);
            }
            List<RowResult> rows = new ArrayList<>();
            for (int row = 0; row < styles.size(); row++) {
                ConsumerStyle style = styles.get(row);
                List<CellResult> cells = new ArrayList<>();
                for (Future<CellResult> f : futures.get(row)) {
                    try {
                        cells.add(f.get());
                    } catch (ExecutionException e) {
                        throw new IllegalStateException("a demo cell failed unexpectedly", e.getCause());
                    }
                }
                rows.add(new RowResult(style.code(), style.label(), style.once(), List.copyOf(cells)));
            }
            return new MatrixResult(runId, broker, List.copyOf(notes), List.copyOf(rows),
                    (System.nanoTime() - started) / 1_000_000);
        } finally {
            pool.shutdownNow();
        }
    }

    static int cells(int styles) {
        return styles * Scenario.values().length;
    }

    private static String describe(Throwable e) {
        StringBuilder sb = new StringBuilder(e.toString());
        Throwable c = e.getCause();
        while (c != null && c != e) {
            sb.append(" <- ").append(c);
            e = c;
            c = c.getCause();
        }
        return sb.toString();
    }
}
