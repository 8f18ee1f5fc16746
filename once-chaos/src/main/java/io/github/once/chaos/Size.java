package io.github.once.chaos;

import java.util.EnumMap;
import java.util.Map;

/** How big a run is: messages per mode and faults of each kind per mode. */
record Size(String name, int messages, Map<FaultKind, Integer> faultsPerKind) {

    static Size of(String name) {
        switch (name) {
            case "quick":
                return new Size(name, 1500, counts(1, 3));
            case "medium":
                return new Size(name, 10_000, counts(5, 10));
            case "full":
                return new Size(name, 100_000, counts(50, 50));
            default:
                throw new IllegalArgumentException("no size '" + name + "'; use quick, medium or full");
        }
    }

    /** {@code each} of every kind, {@code kills} consumer (and relay) SIGKILLs. */
    static Map<FaultKind, Integer> counts(int each, int kills) {
        Map<FaultKind, Integer> counts = new EnumMap<>(FaultKind.class);
        for (FaultKind kind : FaultKind.values()) {
            counts.put(kind, kind.killsAProcess() ? kills : each);
        }
        return counts;
    }

    /** Only these kinds (names as in {@link FaultKind}, any case); the others none. */
    Size onlyKinds(String kinds) {
        Map<FaultKind, Integer> only = new EnumMap<>(FaultKind.class);
        for (String k : kinds.split(",")) {
            FaultKind kind = FaultKind.valueOf(k.trim().toUpperCase().replace('-', '_'));
            only.put(kind, faultsPerKind.getOrDefault(kind, 0));
        }
        return new Size(name, messages, only);
    }

    Size withMessages(int messages) {
        return new Size(name, messages, faultsPerKind);
    }

    Size withFaults(int each, int kills) {
        return new Size(name, messages, counts(each, kills));
    }
}
