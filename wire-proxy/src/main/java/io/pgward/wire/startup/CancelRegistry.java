package io.pgward.wire.startup;

import java.security.SecureRandom;
import java.util.concurrent.ConcurrentHashMap;

/**
 * pgward's own cancel keys. Each client session gets a BackendKeyData that pgward made up; a CancelRequest
 * carrying it is relayed to that session's current backend with the backend's real keys, which clients never
 * see (a key leaked by one client could otherwise cancel whatever later uses the pooled connection).
 */
final class CancelRegistry {

    private final SecureRandom random = new SecureRandom();
    /** What cancels the running statement of each session, by its key. */
    private final ConcurrentHashMap<Long, Runnable> sessions = new ConcurrentHashMap<>();

    record Key(int processId, int secretKey) {
        long packed() {
            return ((long) processId << 32) | (secretKey & 0xffffffffL);
        }
    }

    Key newKey() {
        while (true) {
            Key key = new Key(random.nextInt(1, Integer.MAX_VALUE), random.nextInt());
            if (!sessions.containsKey(key.packed())) {
                return key;
            }
        }
    }

    /** An unpredictable number, for per-session secrets. */
    long nonce() {
        return random.nextLong();
    }

    void register(Key key, Runnable cancel) {
        sessions.put(key.packed(), cancel);
    }

    void unregister(Key key) {
        sessions.remove(key.packed());
    }

    /** What cancels the session holding these keys, or null; a wrong key is ignored silently, as PostgreSQL does. */
    Runnable find(int processId, int secretKey) {
        return sessions.get(new Key(processId, secretKey).packed());
    }

    int size() {
        return sessions.size();
    }
}
