package io.github.once.examples.springorders;

import java.time.Duration;
import java.util.Map;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.MediaType;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;

/**
 * The payment service's client: {@code POST /charges} with an {@code Idempotency-Key} header, which the service
 * charges once and answers again with the first charge's id.
 */
@Component
public class PaymentClient {
    private final RestClient rest;

    public PaymentClient(@Value("${payments.url}") String url, @Value("${payments.timeout:5s}") Duration timeout) {
        JdkClientHttpRequestFactory requests = new JdkClientHttpRequestFactory();
        requests.setReadTimeout(timeout);
        this.rest = RestClient.builder().baseUrl(url).requestFactory(requests).build();
    }

    /** Charges {@code order}; returns the charge's id. Throws when the service refuses or does not answer. */
    public String charge(String idempotencyKey, Order order) {
        return rest.post().uri("/charges")
                .header("Idempotency-Key", idempotencyKey)
                .contentType(MediaType.APPLICATION_JSON)
                .body(Map.of("order", order.orderId(), "amount_cents", order.amountCents()))
                .retrieve()
                .body(String.class);
    }
}
