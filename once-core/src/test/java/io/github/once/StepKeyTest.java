package io.github.once;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Step keys and operation keys: derived deterministically, never equal to a message's stored key. */
class StepKeyTest {

    private static final IdempotencyKey ORDER = IdempotencyKey.of("orders", "order-42");

    @Test
    @DisplayName("a step's key keeps the namespace and is stored as <id>#step:<name>")
    void stepKeyIsReadable() {
        IdempotencyKey step = ORDER.forStep("deduct-stock:sku-1");

        assertThat(step.namespace()).isEqualTo("orders");
        assertThat(step.id()).isEqualTo("order-42");
        assertThat(step.step()).isEqualTo("deduct-stock:sku-1");
        assertThat(step.isStep()).isTrue();
        assertThat(step.message()).isEqualTo(ORDER);
        assertThat(step.storageId()).isEqualTo("order-42#step:deduct-stock:sku-1");
        assertThat(step.isDigested()).isFalse();
        assertThat(step).isEqualTo(ORDER.forStep("deduct-stock:sku-1")).isNotEqualTo(ORDER);
        assertThat(step.toString()).isEqualTo("orders/order-42#step:deduct-stock:sku-1");
    }

    @Test
    @DisplayName("a message whose id looks like a step's stored id is stored as a digest, so it cannot collide with the step")
    void messageCannotPoseAsStep() {
        IdempotencyKey step = ORDER.forStep("payment");
        IdempotencyKey impostor = IdempotencyKey.of("orders", "order-42#step:payment");

        assertThat(impostor.isDigested()).isTrue();
        assertThat(impostor.storageId()).startsWith(IdempotencyKey.DIGEST_PREFIX).hasSize(71)
                .isNotEqualTo(step.storageId()).doesNotContain(IdempotencyKey.STEP_MARKER);
        assertThat(IdempotencyKey.of("orders", "plain").storageId()).doesNotContain(IdempotencyKey.STEP_MARKER);
    }

    @Test
    @DisplayName("odd ids and names give digested parts, every stored id fits 200 bytes, and none repeats")
    void oddPartsAreDigestedAndDistinct() {
        List<String> ids = List.of("order-42", "x".repeat(200), "x".repeat(10_000), "a\u0000b", "bad\uD800",
                IdempotencyKey.DIGEST_PREFIX + "0".repeat(64), "order-42#step:payment", "order-42#step");
        List<String> names = List.of("payment", "payment#step:x", "n".repeat(64), "n".repeat(65), "tab\tname",
                IdempotencyKey.DIGEST_PREFIX + "x", ":payment", "payment:");
        Set<String> stored = new HashSet<>();
        for (String id : ids) {
            IdempotencyKey message = IdempotencyKey.of("orders", id);
            assertThat(stored.add(message.storageId())).as("message %s", id).isTrue();
            for (String name : names) {
                String storageId = message.forStep(name).storageId();
                assertThat(storageId.getBytes(java.nio.charset.StandardCharsets.UTF_8).length).isLessThanOrEqualTo(200);
                assertThat(storageId).contains(IdempotencyKey.STEP_MARKER);
                assertThat(stored.add(storageId)).as("step %s of %s", name, id).isTrue();
            }
        }
        assertThat(IdempotencyKey.of("orders", "x".repeat(200)).forStep("payment").storageId())
                .startsWith(IdempotencyKey.DIGEST_PREFIX).endsWith("#step:payment");
    }

    @Test
    @DisplayName("steps do not nest and need a name")
    void stepsDoNotNest() {
        assertThatThrownBy(() -> ORDER.forStep("a").forStep("b")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> ORDER.forStep("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ORDER.forStep(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    @DisplayName("an operation key is stable per message and name, readable when it can be, a digest when it cannot")
    void operationKeys() {
        ExecutionContext ctx = context(ORDER);
        assertThat(ctx.operationKey("payment")).isEqualTo("orders:order-42:payment")
                .isEqualTo(context(ORDER).operationKey("payment"))
                .isNotEqualTo(ctx.operationKey("refund"));
        assertThat(context(IdempotencyKey.of("orders", "order-43")).operationKey("payment"))
                .isNotEqualTo(ctx.operationKey("payment"));

        String odd = context(IdempotencyKey.of("orders", "order 42/\u00e9\n")).operationKey("payment");
        assertThat(odd).matches("orders:sha256-[0-9a-f]{64}");
        assertThat(context(IdempotencyKey.of("orders", "x".repeat(300))).operationKey("payment"))
                .matches("orders:sha256-[0-9a-f]{64}");
        // The pairs ("a:b", "c") and ("a", "b:c") must not meet: neither is readable, and the digest separates them.
        assertThat(context(IdempotencyKey.of("orders", "a:b")).operationKey("c"))
                .isNotEqualTo(context(IdempotencyKey.of("orders", "a")).operationKey("b:c"));
        assertThat(context(ORDER.forStep("payment")).operationKey("payment")).isEqualTo(ctx.operationKey("payment"));
        assertThatThrownBy(() -> ctx.operationKey("")).isInstanceOf(IllegalArgumentException.class);
    }

    private static ExecutionContext context(IdempotencyKey key) {
        return new io.github.once.internal.HandlerContext(new io.github.once.spi.Lease(key, 1, java.time.Instant.now()),
                () -> true, type -> null);
    }
}
