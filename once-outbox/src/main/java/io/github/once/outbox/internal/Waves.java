package io.github.once.outbox.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Splits a claimed batch into waves that are published one after another. Unordered, the whole batch is one wave.
 * Ordered, wave k holds the k-th row of each aggregate (rows without an aggregate go in the first), so an
 * aggregate's next message is sent only after the previous one was confirmed, and a message that did not get
 * through holds back the rest of its aggregate.
 */
public final class Waves {

    private Waves() {
    }

    public static List<List<ClaimedRow>> of(List<ClaimedRow> batch, boolean ordered) {
        if (!ordered) {
            return batch.isEmpty() ? List.of() : List.of(batch);
        }
        List<List<ClaimedRow>> waves = new ArrayList<>();
        Map<String, Integer> seen = new LinkedHashMap<>();
        for (ClaimedRow row : batch) {
            int wave = row.aggregateKey() == null ? 0 : seen.merge(row.aggregateKey(), 1, Integer::sum) - 1;
            while (waves.size() <= wave) {
                waves.add(new ArrayList<>());
            }
            waves.get(wave).add(row);
        }
        return waves;
    }
}
