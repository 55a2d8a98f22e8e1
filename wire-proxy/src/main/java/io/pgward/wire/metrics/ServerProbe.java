package io.pgward.wire.metrics;

import io.netty.buffer.Unpooled;
import io.pgward.wire.protocol.PgError;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * Whether a PostgreSQL server accepts connections, as pg_isready tells it: a startup packet, and the server's first
 * answer. An authentication request, or any error but 57P03 (starting up, shutting down, in recovery and not
 * accepting), means it does; the probe then closes without authenticating, which PostgreSQL does not log. The user
 * is one that exists (a login's backend user), so that the probe leaves no "role does not exist" line either.
 */
final class ServerProbe {

    private static final int PROTOCOL_3_0 = 196608;

    private final String host;
    private final int port;
    private final String user;
    private final Duration timeout;

    ServerProbe(String host, int port, String user, Duration timeout) {
        this.host = host;
        this.port = port;
        this.user = user;
        this.timeout = timeout;
    }

    /** Empty when the server accepts connections; otherwise why not. */
    Optional<String> problem() {
        int millis = (int) timeout.toMillis();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), millis);
            socket.setSoTimeout(millis);
            OutputStream out = socket.getOutputStream();
            out.write(startupPacket());
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            int type = in.read();
            if (type == 'R') {
                return Optional.empty();
            }
            if (type != 'E') {
                return Optional.of(where() + " answered with message type " + type);
            }
            int length = in.readInt();
            if (length < 4 || length > 65536) {
                return Optional.of(where() + " sent an error of length " + length);
            }
            byte[] body = new byte[length - 4];
            in.readFully(body);
            Map<Character, String> fields = PgError.fields(Unpooled.wrappedBuffer(body));
            return "57P03".equals(fields.get('C'))
                    ? Optional.of(where() + " does not accept connections yet: " + fields.get('M'))
                    : Optional.empty();
        } catch (IOException e) {
            return Optional.of(where() + " cannot be reached: " + e.getMessage());
        }
    }

    private String where() {
        return "the database server at " + host + ":" + port;
    }

    private byte[] startupPacket() {
        byte[] parameters = ("user\0" + user + "\0database\0template1\0application_name\0pgward readiness\0\0")
                .getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(8 + parameters.length).putInt(8 + parameters.length).putInt(PROTOCOL_3_0)
                .put(parameters).array();
    }
}
