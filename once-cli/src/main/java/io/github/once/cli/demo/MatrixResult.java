package io.github.once.cli.demo;

import java.util.List;

/** The whole matrix, with where it ran. */
public record MatrixResult(String runId, String broker, List<String> notes, List<RowResult> rows, long millis) {

    /** Once rows that showed a duplicate or a lost effect: the demo's exit status is non-zero when any did. */
    public List<RowResult> onceFailures() {
        return rows.stream().filter(r -> r.once() && r.failed()).toList();
    }
}
