package io.pgward.wire.clients;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** Every client session past its login, relayed or answered by pgward itself. Thread-safe. */
public final class ClientRegistry {

    private final ConcurrentHashMap<Long, ConnectedClient> clients = new ConcurrentHashMap<>();

    public void add(ConnectedClient client) {
        clients.put(client.id(), client);
    }

    public void remove(long id) {
        clients.remove(id);
    }

    public Optional<ConnectedClient> find(long id) {
        return Optional.ofNullable(clients.get(id));
    }

    /** The sessions open now, oldest first. */
    public List<ConnectedClient> all() {
        return clients.values().stream().sorted(Comparator.comparingLong(ConnectedClient::id)).toList();
    }
}
