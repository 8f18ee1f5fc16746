package io.github.once.examples.orderflow;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Charges an order through the payment service, with the idempotency key the message's step gives it. */
public final class PaymentClient {

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final URI charges;
    private final Duration timeout;

    public PaymentClient(URI service, Duration timeout) {
        this.charges = service.resolve("/charges");
        this.timeout = timeout;
    }

    /**
     * @return the charge's id
     * @throws IOException when the service did not answer in time (the charge may still have been made)
     */
    public String charge(String idempotencyKey, String orderId, long amountCents) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(charges)
                .timeout(timeout)
                .header("Idempotency-Key", idempotencyKey)
                .POST(HttpRequest.BodyPublishers.ofString("order=" + orderId + "&amount=" + amountCents))
                .build();
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("payment refused: " + response.statusCode() + " " + response.body());
        }
        return response.body();
    }
}
