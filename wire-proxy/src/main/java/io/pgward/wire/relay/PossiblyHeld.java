package io.pgward.wire.relay;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * For each name of a prepared statement or a portal, every value pgward follows that the name may hold on the server
 * now. Only the server knows what a name holds: a message that sets or removes one runs only if nothing before it in
 * its request failed, and fails itself where the name is taken. So a Parse or Bind adds its value to what the name
 * may hold, and only a request that ends without an error proves what the name holds after it.
 *
 * @param <T> what is followed of each statement or portal
 */
final class PossiblyHeld<T> {

    /**
     * @param possible every value the name may hold now
     * @param pending what the name holds if the request numbered {@code request} ends without an error
     */
    private record Entry<T>(List<T> possible, List<T> pending, long request) {
    }

    private final Map<String, Entry<T>> entries = new HashMap<>();

    /**
     * {@code name} was set in the client request numbered {@code request}, to {@code value}, or to something pgward
     * does not follow (null).
     */
    void set(String name, T value, long request) {
        if (value == null) {
            removed(name, request);
            return;
        }
        List<T> possible = new ArrayList<>(possible(name));
        possible.add(value);
        entries.put(name, new Entry<>(List.copyOf(possible), List.of(value), request));
    }

    /** {@code name} was closed in the client request numbered {@code request}. */
    void removed(String name, long request) {
        Entry<T> entry = entries.get(name);
        if (entry != null) {
            entries.put(name, new Entry<>(entry.possible(), List.of(), request));
        }
    }

    /** The client request numbered {@code request} got its ReadyForQuery; {@code errored}: the server failed it. */
    void retired(long request, boolean errored) {
        if (errored) {
            return;
        }
        entries.replaceAll((name, entry) -> entry.request() == request
                ? new Entry<>(entry.pending(), entry.pending(), request) : entry);
        entries.values().removeIf(entry -> entry.possible().isEmpty());
    }

    /** Every value {@code name} may hold; empty when it holds nothing pgward follows. */
    List<T> possible(String name) {
        Entry<T> entry = entries.get(name);
        return entry == null ? List.of() : entry.possible();
    }

    /**
     * Every value {@code name} may hold for a message of the open client request numbered {@code openRequest}: when
     * that request set or removed the name, the message runs only if that did too (an error before it makes the
     * server skip to the Sync), so the name holds what it set.
     */
    List<T> possibleWithin(String name, long openRequest) {
        Entry<T> entry = entries.get(name);
        return entry == null ? List.of() : entry.request() == openRequest ? entry.pending() : entry.possible();
    }

    /** {@code before}, which {@code name} may hold, is {@code now} from here on. */
    void replaced(String name, T before, T now) {
        Entry<T> entry = entries.get(name);
        if (entry != null) {
            entries.put(name, new Entry<>(replaced(entry.possible(), before, now),
                    replaced(entry.pending(), before, now), entry.request()));
        }
    }

    private static <T> List<T> replaced(List<T> values, T before, T now) {
        return values.stream().map(value -> value == before ? now : value).toList();
    }

    /** Every name is gone. */
    void clear() {
        entries.clear();
    }
}
