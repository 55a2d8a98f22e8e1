package io.pgward.wire.startup;

import java.security.SecureRandom;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The cancel keys pgward hands to clients. A session relayed to PostgreSQL gets its backend's real process id,
 * so that {@code pg_backend_pid()}, the pid in NotificationResponse, {@code pg_stat_activity} and
 * {@code pg_terminate_backend} agree with what the client was told; its secret is pgward's own, made for the
 * session. A CancelRequest carrying both is relayed to that session's backend with the backend's real secret,
 * which clients never see: a key leaked by one client could otherwise cancel whatever later uses the pooled
 * connection. When the session ends its key is forgotten, so the next client of the same pooled backend gets
 * the same process id with a new secret, and the old key cancels nothing. A session pgward answers itself (a
 * local database) has no backend and gets a made-up process id.
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

    /** A key with a made-up process id, for a session without a backend. */
    Key newKey() {
        return newKey(random.nextInt(1, Integer.MAX_VALUE));
    }

    /**
     * A key with this process id and a new secret no session holds with it. Two sessions can share a process id
     * (backends of two servers), never a key.
     */
    Key newKey(int processId) {
        while (true) {
            Key key = new Key(processId, random.nextInt());
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
