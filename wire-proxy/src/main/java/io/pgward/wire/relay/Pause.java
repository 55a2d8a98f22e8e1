package io.pgward.wire.relay;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The admin console's PAUSE: while held, relayed sessions forward no new client message (it waits, as the client's
 * next messages wait behind a verdict); RESUME lets each session go on where it stopped. Thread-safe: read on every
 * session's event loop, changed by the console.
 */
public final class Pause {

    /** Never held: sessions made without a server. */
    public static final Pause NEVER = new Pause();

    private volatile boolean held;
    private final Set<Session> waiting = ConcurrentHashMap.newKeySet();

    public boolean held() {
        return held;
    }

    /** Holds new client messages from now on. */
    public void hold() {
        held = true;
    }

    /** Lets the held sessions go on. */
    public void release() {
        held = false;
        for (Session session : waiting) {
            waiting.remove(session);
            session.resume();
        }
    }

    /** {@code session} holds a message because of the pause; it is told when the pause ends. */
    void waits(Session session) {
        waiting.add(session);
        if (!held && waiting.remove(session)) {
            // released between the session's check and its registration here
            session.resume();
        }
    }

    void gone(Session session) {
        waiting.remove(session);
    }
}
