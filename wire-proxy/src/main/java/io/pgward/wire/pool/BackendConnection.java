package io.pgward.wire.pool;

import io.netty.channel.Channel;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One authenticated connection to PostgreSQL, owned by one client session at a time or idle in the pool.
 * Confined to its channel's event loop.
 */
public final class BackendConnection {

    private final Channel channel;
    private final BackendTarget target;
    private final int processId;
    private final int secretKey;
    private final Map<String, String> parameters;
    private char transactionStatus = 'I';

    BackendConnection(Channel channel, BackendTarget target, int processId, int secretKey,
                      Map<String, String> parameters) {
        this.channel = channel;
        this.target = target;
        this.processId = processId;
        this.secretKey = secretKey;
        this.parameters = new LinkedHashMap<>(parameters);
    }

    public Channel channel() {
        return channel;
    }

    public BackendTarget target() {
        return target;
    }

    /** The backend's own cancel key (BackendKeyData), never shown to clients. */
    public int processId() {
        return processId;
    }

    public int secretKey() {
        return secretKey;
    }

    /** The backend's current reported settings (ParameterStatus), kept up to date by whoever owns it. */
    public Map<String, String> parameters() {
        return parameters;
    }

    /** 'I', 'T' or 'E' from the last ReadyForQuery. */
    public char transactionStatus() {
        return transactionStatus;
    }

    public void transactionStatus(char status) {
        this.transactionStatus = status;
    }

    @Override
    public String toString() {
        return "backend " + target.key() + " pid " + processId;
    }
}
