package io.github.once.cli.demo;

import java.util.function.Supplier;

/** A trap row: plain amqp-client consumer code in the seed's shape. */
final class TrapStyle implements ConsumerStyle {
    static final int PREFETCH = 10;

    private final String code;
    private final String label;
    private final Supplier<TrapLogic> logic;
    private final Trap duplicateTrap;
    private final AutoCloseable resource;

    private TrapStyle(String code, String label, Supplier<TrapLogic> logic, Trap duplicateTrap, AutoCloseable resource) {
        this.code = code;
        this.label = label;
        this.logic = logic;
        this.duplicateTrap = duplicateTrap;
        this.resource = resource;
    }

    static TrapStyle ackFirst() {
        return new TrapStyle("ack-first", "ack before processing", AckFirstLogic::new, Trap.NO_GUARD, null);
    }

    static TrapStyle noGuard() {
        return new TrapStyle("no-guard", "manual ack, no guard", NoGuardLogic::new, Trap.NO_GUARD, null);
    }

    static TrapStyle checkThenLock(String where, CheckThenLockGuard guard) {
        return new TrapStyle("check-then-lock-" + where, "seed check-then-lock (" + where + ")",
                () -> new CheckThenLockLogic(guard), Trap.CHECK_THEN_LOCK_RACE, guard);
    }

    @Override
    public String code() {
        return code;
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public boolean once() {
        return false;
    }

    @Override
    public Trap duplicateTrap() {
        return duplicateTrap;
    }

    @Override
    public ConsumerProcess start(Cell cell, String name, boolean first) throws Exception {
        return RawProcess.start(cell, name, first, logic.get(), PREFETCH);
    }

    @Override
    public void close() {
        if (resource != null) {
            try {
                resource.close();
            } catch (Exception e) {
                // closing a demo guard: nothing to recover
            }
        }
    }
}
