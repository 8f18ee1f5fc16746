package io.github.once.chaos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The end-of-run check, in the manner of Jepsen's: for every message id, was it published, how many effects did
 * it have, was it dead-lettered. It reports ids lost (published, no effect, not dead-lettered), ids with more
 * than one effect (and which of those the mode allows), and ids nobody published.
 *
 * <p>For Redis a repeated effect is allowed only when the run shows why: the fault that can cut a completion
 * short (a SIGKILL of the process that made the effect, a Redis kill, stall or data loss) was in force within
 * {@code windowMillis} after the earlier effect, or Redis lost its data between the earlier claim (at most a
 * lease before the earlier effect) and the later effect: a lease wiped while its handler ran lets another copy
 * claim the message, and the first handler's completion is then refused.
 */
final class Checker {

    private final long windowMillis;
    private final long leaseMillis;

    Checker(long windowMillis, long leaseMillis) {
        this.windowMillis = windowMillis;
        this.leaseMillis = leaseMillis;
    }

    /** Why a repeated effect is allowed. */
    enum Reason {
        CRASH_WINDOW("a SIGKILL or store fault within the window after the effect"),
        DATA_LOSS("Redis lost its data between the first claim and the repeat"),
        PER_PROCESS_STORE("in-memory records are per process");

        final String text;

        Reason(String text) {
            this.text = text;
        }
    }

    /** The outcome for one mode. */
    record Verdict(Mode mode, int messages, int sends, int effects, List<String> lost, int duplicatedIds,
                   int extraEffects, Map<Reason, Integer> explained, List<String> unexplained,
                   List<String> unexpected, Map<String, String> deadLettered) {

        boolean passed() {
            return lost.isEmpty() && unexplained.isEmpty() && unexpected.isEmpty();
        }

        int explainedTotal() {
            return explained.values().stream().mapToInt(Integer::intValue).sum();
        }
    }

    Verdict check(Mode mode, Set<String> published, int sends, List<EffectLedger.Effect> effects,
                  Map<String, String> deadLettered, List<FaultEvent> faults) {
        Map<String, List<EffectLedger.Effect>> byId = new TreeMap<>();
        for (EffectLedger.Effect e : effects) {
            byId.computeIfAbsent(e.messageId(), k -> new ArrayList<>()).add(e);
        }
        List<String> lost = new ArrayList<>();
        for (String id : published) {
            if (!byId.containsKey(id) && !deadLettered.containsKey(id)) {
                lost.add(id);
            }
        }
        List<String> unexpected = new ArrayList<>();
        for (String id : byId.keySet()) {
            if (!published.contains(id)) {
                unexpected.add(id + " (effect)");
            }
        }
        for (String id : deadLettered.keySet()) {
            if (!published.contains(id)) {
                unexpected.add(id + " (dead-lettered)");
            }
        }
        Map<Reason, Integer> explained = new LinkedHashMap<>();
        List<String> unexplained = new ArrayList<>();
        int duplicatedIds = 0;
        int extra = 0;
        for (Map.Entry<String, List<EffectLedger.Effect>> entry : byId.entrySet()) {
            List<EffectLedger.Effect> list = entry.getValue();
            if (list.size() < 2) {
                continue;
            }
            duplicatedIds++;
            list.sort(Comparator.comparingLong(EffectLedger.Effect::atMillis));
            for (int i = 1; i < list.size(); i++) {
                extra++;
                Reason reason = reason(mode, list.get(i - 1), list.get(i), faults);
                if (reason == null) {
                    unexplained.add(entry.getKey() + " (effects by " + list.get(i - 1).worker() + " at "
                            + list.get(i - 1).atMillis() + " and " + list.get(i).worker() + " at "
                            + list.get(i).atMillis() + ")");
                } else {
                    explained.merge(reason, 1, Integer::sum);
                }
            }
        }
        lost.sort(Comparator.naturalOrder());
        return new Verdict(mode, published.size(), sends, effects.size(), lost, duplicatedIds, extra, explained,
                unexplained, unexpected, deadLettered);
    }

    private Reason reason(Mode mode, EffectLedger.Effect earlier, EffectLedger.Effect later, List<FaultEvent> faults) {
        switch (mode) {
            case MEMORY:
                return Reason.PER_PROCESS_STORE;
            case REDIS:
                for (FaultEvent f : faults) {
                    if (f.kind() == FaultKind.REDIS_DATA_LOSS
                            && f.overlaps(earlier.atMillis() - leaseMillis, later.atMillis())) {
                        return Reason.DATA_LOSS;
                    }
                }
                for (FaultEvent f : faults) {
                    if (!f.kind().interruptsRedisCompletion()
                            || !f.overlaps(earlier.atMillis(), earlier.atMillis() + windowMillis)) {
                        continue;
                    }
                    // A SIGKILL explains only the effects of the very process it killed.
                    if (f.kind() != FaultKind.CONSUMER_KILL || f.target().equals(earlier.worker())) {
                        return Reason.CRASH_WINDOW;
                    }
                }
                return null;
            default:
                return null; // transactional: the effect commits with its record, nothing may repeat
        }
    }
}
