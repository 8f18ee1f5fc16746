package io.github.once.rabbitmq;

import com.rabbitmq.client.Delivery;

import io.github.once.Outcome;
import io.github.once.Task;
import io.github.once.TaskPipeline;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;

/**
 * A pipelined channel's deliveries, from taken in hand to verdict: keyed ones go into the executor's
 * {@link TaskPipeline}, and each verdict waits in {@link OrderedVerdicts} until every delivery before it has one,
 * then goes to the {@link Settlement}. A delivery is acked only once its outcome is in, that is once its completion
 * is recorded (or it was answered without running). When the store cannot be reached, consumption pauses as in
 * the other modes: the deliveries whose handler has not started are given back, the ones whose handler ran wait
 * for their completion's answer, and every delivery whose work is not recorded is requeued, never acked.
 */
final class PipelinedFlow {

    /** Ends the tasks not started when the consumer stops: given back unprocessed, without a pause. */
    private static final class Stopping extends RuntimeException {
        Stopping() {
            super("the consumer is stopping", null, false, false);
        }
    }

    /** An outcome or failure come in for a delivery, noted by the pipeline's callback and decided after its step. */
    private record Answered(OrderedVerdicts.Slot slot, Admitted admitted, Outcome<byte[]> outcome, Throwable failure,
                            int epoch) {
    }

    private final TaskPipeline<byte[]> pipeline;
    private final Disposition disposition;
    private final Settlement settlement;
    private final PauseGate gate;
    private final Runnable pauseNow;
    private final OrderedVerdicts order = new OrderedVerdicts();
    private final Queue<Answered> answered = new ArrayDeque<>();
    private final Stopping stopping = new Stopping();
    /** Counts store outages: a failure or success of work submitted before the last outage says nothing new. */
    private int epoch;

    /** @param pauseNow stops consuming at once (the gate is closed), so requeued deliveries are not handed back */
    PipelinedFlow(TaskPipeline<byte[]> pipeline, Disposition disposition, Settlement settlement, PauseGate gate,
                  Runnable pauseNow) {
        this.pipeline = pipeline;
        this.disposition = disposition;
        this.settlement = settlement;
        this.gate = gate;
        this.pauseNow = pauseNow;
    }

    /** Takes one admitted delivery; {@code task} is its work, or null when its verdict is known already. */
    void take(Admitted a, Task<byte[]> task) {
        OrderedVerdicts.Slot slot = order.add(a.in(), a.key().keyOrNull());
        Delivery d = a.in().delivery();
        if (a.key() instanceof DeliveryKey.Keyless keyless) {
            order.decide(slot, disposition.keyless(d, a.attempt(), keyless));
        } else if (a.early() != null) {
            order.decide(slot, a.early());
        } else {
            int submittedIn = epoch;
            pipeline.submit(task).whenComplete((outcome, failure) ->
                    answered.add(new Answered(slot, a, outcome, failure, submittedIn)));
        }
    }

    /** Moves the pipeline on, decides what came in and settles the verdicts ready; whether anything happened. */
    boolean advance() {
        boolean progress = pipeline.step();
        for (Answered a; (a = answered.poll()) != null; ) {
            progress = true;
            order.decide(a.slot(), decide(a));
        }
        List<Verdict> ready = order.ready();
        if (!ready.isEmpty()) {
            settlement.settle(ready);
            progress = true;
        }
        return progress;
    }

    private Disposition.Action decide(Answered a) {
        if (a.failure() == null) {
            if (a.epoch() == epoch) {
                gate.succeeded();
            }
            return disposition.decide(a.admitted().in().delivery(), a.admitted().attempt(), a.outcome());
        }
        if (a.failure() != stopping && a.epoch() == epoch) {
            // The first failure of this outage: pause, and give back what has not started (it fails here too).
            epoch++;
            gate.failed(a.failure());
            pipeline.abandon(a.failure() instanceof RuntimeException r ? r : new IllegalStateException(a.failure()));
            pauseNow.run();
        }
        return disposition.storeFailed(a.failure());
    }

    /** Gives back the deliveries whose handler has not started; the others finish (see {@link #advance()}). */
    void stop() {
        pipeline.abandon(stopping);
    }

    /** Deliveries taken and not yet handed to the settlement. */
    int size() {
        return order.size();
    }
}
