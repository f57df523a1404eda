package dev.svc.client;

/**
 * One server-sent event, as dispatched by {@link SseParser}.
 *
 * @param event the event type ({@code message} when the frame named none)
 * @param data the data lines, joined with {@code \n}
 * @param id the last event id seen on the stream so far (empty when none)
 */
record SseEvent(String event, String data, String id) {}
