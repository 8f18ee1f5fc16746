package io.github.once.chaos;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The faults of one mode's run, drawn from a number: the same number, mode and sizes give the same faults in the
 * same order, on the same targets, at the same planned times (the machine's speed still moves the real times).
 */
record FaultPlan(long seed, List<Fault> faults, long spanMillis) {

    /** One planned fault: when (from the start of the run), what, on which consumer or node, for how long. */
    record Fault(int seq, FaultKind kind, long atMillis, int target, long holdMillis) {
    }

    /** Faults one after the other, each given its typical time plus a random gap of 0.3 to 0.8 s. */
    static FaultPlan draw(long seed, Mode mode, Map<FaultKind, Integer> perKind, int consumers, int nodes) {
        Random random = new Random(seed * 31 + mode.ordinal());
        List<FaultKind> kinds = new ArrayList<>();
        for (FaultKind kind : FaultKind.values()) {
            if (kind.appliesTo(mode)) {
                kinds.addAll(Collections.nCopies(perKind.getOrDefault(kind, 0), kind));
            }
        }
        Collections.shuffle(kinds, random);
        List<Fault> faults = new ArrayList<>();
        long at = 0;
        for (int i = 0; i < kinds.size(); i++) {
            FaultKind kind = kinds.get(i);
            at += 300 + random.nextInt(500);
            int target = kind == FaultKind.CONSUMER_KILL ? random.nextInt(consumers)
                    : kind == FaultKind.RELAY_KILL ? random.nextInt(ModeRun.RELAYS) : random.nextInt(nodes);
            long hold = switch (kind) {
                case CONSUMER_KILL, RELAY_KILL -> 300 + random.nextInt(1700);  // down before its restart
                case STORE_STALL -> 1000 + random.nextInt(3000);   // longer than the store's 2 s timeout, or not
                default -> 0;
            };
            faults.add(new Fault(i + 1, kind, at, target, hold));
            at += kind.typicalMillis() + hold;
        }
        return new FaultPlan(seed, List.copyOf(faults), at);
    }
}
