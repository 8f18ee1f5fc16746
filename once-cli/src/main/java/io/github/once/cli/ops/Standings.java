package io.github.once.cli.ops;

import io.github.once.spi.StoreInspector;

/** What each standing means for an operator, in a few words. */
final class Standings {
    private Standings() {
    }

    static String explain(StoreInspector.Standing standing, boolean tellsReleased) {
        switch (standing) {
            case IN_PROGRESS:
                return "lease live: a consumer is working on it";
            case RELEASED:
                return "its handler failed and gave the claim back: waiting for its retry";
            case LAPSED:
                return tellsReleased ? "lease ran out without a release: its owner died or stalled"
                        : "lease ended: released after a failure, or its owner died (this store does not tell which)";
            default:
                return "done; the result is kept until expiry";
        }
    }
}
